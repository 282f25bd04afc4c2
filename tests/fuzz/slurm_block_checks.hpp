// SPDX-License-Identifier: GPL-2.0-or-later
// What every reader of Slurm block topologies promises (fuzz_slurm_blocks,
// fuzz_slurm_topology_yaml): blocks that are named, distinct, not empty and share no node,
// which written back as BlockName lines (slurm_block_lines) read as the same blocks of the
// same nodes. Aborts, for libFuzzer, on a broken promise.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "topology/slurm_blocks.hpp"

namespace fabricfit::fuzz {

inline std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

inline void check_blocks(const SlurmBlocks& blocks) {
  if (blocks.blocks.empty()) std::abort();
  std::set<std::string> names, nodes;
  for (const auto& b : blocks.blocks) {
    if (b.name.empty() || b.nodes.empty() || !names.insert(b.name).second) std::abort();
    for (const auto& n : b.nodes) {
      if (n.empty() || !nodes.insert(n).second) std::abort();
    }
  }
  const std::string again = slurm_block_lines(blocks.blocks, "fuzz");
  SlurmBlocks back;
  try {
    back = parse_slurm_blocks(again, "written");
  } catch (const SlurmBlocksError&) {
    std::abort();  // what fabricfit writes, it reads
  }
  if (back.blocks.size() != blocks.blocks.size()) std::abort();
  for (std::size_t i = 0; i < back.blocks.size(); ++i) {
    if (back.blocks[i].name != blocks.blocks[i].name) std::abort();
    if (sorted(back.blocks[i].nodes) != sorted(blocks.blocks[i].nodes)) std::abort();
  }
}

}  // namespace fabricfit::fuzz
