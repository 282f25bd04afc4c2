// SPDX-License-Identifier: GPL-2.0-or-later
// Inputs shared by the placement commands (score, frag, replay): the fabric, host lists
// and which GPUs are busy.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "placement/gpu_state.hpp"
#include "placement/locality_index.hpp"
#include "topology/fabric.hpp"

namespace fabricfit::cli {

// A snapshot, or a discovery file (ibnetdiscover text, ibnd cache) built on the spot
// with the default model options.
[[nodiscard]] Fabric load_fabric(const std::string& source);

// Host indices of a Slurm hostlist, in the order written. Throws std::invalid_argument
// naming the hosts the fabric does not have.
[[nodiscard]] std::vector<int> hosts_of(const LocalityIndex& index, std::string_view hostlist);

// --busy: a hostlist whose hosts have every GPU busy, or a file with one
// "HOSTLIST [GPUS_BUSY]" per line (# comments; no count: all busy). Every host has
// `gpus_per_node` GPUs.
[[nodiscard]] GpuState busy_state(const LocalityIndex& index, const std::string& spec, int gpus_per_node);

}  // namespace fabricfit::cli
