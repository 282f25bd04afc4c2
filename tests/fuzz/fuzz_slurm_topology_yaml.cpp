// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target for Slurm's topology.yaml (`discover --blocks`, parse_slurm_topology_yaml).
// Any input is refused with SlurmBlocksError naming the file (no other exception of yaml-cpp
// gets out), or reads as blocks that keep slurm_block_checks.hpp's promises.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "slurm_block_checks.hpp"
#include "topology/readers/slurm_topology_yaml.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  fabricfit::SlurmBlocks blocks;
  try {
    blocks = fabricfit::parse_slurm_topology_yaml(in, "fuzz.yaml");
  } catch (const fabricfit::SlurmBlocksError& e) {
    if (!std::string_view(e.what()).starts_with("fuzz.yaml:")) std::abort();
    return 0;
  }
  fabricfit::fuzz::check_blocks(blocks);
  return 0;
}
