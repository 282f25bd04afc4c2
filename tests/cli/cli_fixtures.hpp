// SPDX-License-Identifier: GPL-2.0-or-later
// What the tests of the commands that read Slurm's jobs start from: a generated fabric and
// job records written as Slurm gives them.
#pragma once

#include <cstdint>

#include "cli/slurm_cluster.hpp"
#include "generated_fabric.hpp"

namespace fabricfit::testing {

// Two leaf groups of 4 hosts (gpu001-gpu008), 2 spines, 1:1.
inline Fabric two_groups_of_four() {
  return generated_fabric(clos_spec({.leaves = 2, .hosts_per_leaf = 4, .spines = 2, .uplinks = 4}));
}

// A job record with 8 GPUs on each of its nodes.
inline cli::SlurmJob job(std::uint64_t id, const char* state, const char* nodes, std::int64_t start,
                         std::int64_t end) {
  cli::SlurmJob j;
  j.id = id;
  j.state = state;
  j.nodes = nodes;
  j.gpus_per_node = 8;
  j.start_time = start;
  j.end_time = end;
  return j;
}

}  // namespace fabricfit::testing
