// SPDX-License-Identifier: GPL-2.0-or-later
// A Slurm topology.conf (topology/tree) for a Fabric: one switch per leaf group (its
// hosts), one per pod in a three-tier fabric, and a single root above everything, since
// topology/tree rejects jobs wider than the subtree of any top switch.
#pragma once

#include <string>

#include "topology/fabric.hpp"

namespace fabricfit {

[[nodiscard]] std::string slurm_topology_conf(const Fabric& fabric);

// A name Slurm takes as a SwitchName: letters, digits, '.', '_' and '-' only.
[[nodiscard]] std::string slurm_switch_name(const std::string& name);

}  // namespace fabricfit
