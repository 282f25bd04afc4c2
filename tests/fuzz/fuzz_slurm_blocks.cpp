// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target for Slurm block topology.conf lines (`discover --blocks`,
// parse_slurm_blocks). Any input is refused with SlurmBlocksError naming the file, or reads
// as blocks that are named, distinct, not empty and share no node; written back as
// BlockName lines (slurm_block_lines) they read as the same blocks of the same nodes.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "topology/slurm_blocks.hpp"

namespace {

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  fabricfit::SlurmBlocks blocks;
  try {
    blocks = fabricfit::parse_slurm_blocks(in, "fuzz.conf");
  } catch (const fabricfit::SlurmBlocksError& e) {
    if (!std::string_view(e.what()).starts_with("fuzz.conf:")) std::abort();
    return 0;
  }
  if (blocks.blocks.empty()) std::abort();
  std::set<std::string> names, nodes;
  for (const auto& b : blocks.blocks) {
    if (b.name.empty() || b.nodes.empty() || !names.insert(b.name).second) std::abort();
    for (const auto& n : b.nodes) {
      if (n.empty() || !nodes.insert(n).second) std::abort();
    }
  }
  const std::string again = fabricfit::slurm_block_lines(blocks.blocks, "fuzz");
  fabricfit::SlurmBlocks back;
  try {
    back = fabricfit::parse_slurm_blocks(again, "written");
  } catch (const fabricfit::SlurmBlocksError&) {
    std::abort();  // what fabricfit writes, it reads
  }
  if (back.blocks.size() != blocks.blocks.size()) std::abort();
  for (std::size_t i = 0; i < back.blocks.size(); ++i) {
    if (back.blocks[i].name != blocks.blocks[i].name) std::abort();
    if (sorted(back.blocks[i].nodes) != sorted(blocks.blocks[i].nodes)) std::abort();
  }
  return 0;
}
