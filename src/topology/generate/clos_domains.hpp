// SPDX-License-Identifier: GPL-2.0-or-later
// NVLink domains of a synthetic Clos fabric (`fabricfit generate --nvl-domain-size N`):
// each leaf group's hosts, in order, cut into domains of N consecutive hosts, as the
// trays of an NVL72 rack share their leaves. Written as Slurm BlockName lines, which
// `discover --blocks` reads back and a lab's topology/block uses as they are.
#pragma once

#include <vector>

#include "topology/generate/clos_generator.hpp"
#include "topology/slurm_blocks.hpp"

namespace fabricfit {

// Domains "nvl0", "nvl1", ... in host order. Throws SpecError for a spec validate() refuses,
// and when `hosts_per_domain` is not at least 1 or does not divide --hosts-per-leaf (a
// domain would straddle two leaves).
[[nodiscard]] std::vector<SlurmBlock> clos_nvlink_domains(const ClosSpec& spec, int hosts_per_domain);

}  // namespace fabricfit
