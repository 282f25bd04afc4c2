// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target for Slurm block topology.conf lines (`discover --blocks`,
// parse_slurm_blocks). Any input is refused with SlurmBlocksError naming the file, or reads
// as blocks that keep slurm_block_checks.hpp's promises.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "slurm_block_checks.hpp"
#include "topology/slurm_blocks.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  fabricfit::SlurmBlocks blocks;
  try {
    blocks = fabricfit::parse_slurm_blocks(in, "fuzz.conf");
  } catch (const fabricfit::SlurmBlocksError& e) {
    if (!std::string_view(e.what()).starts_with("fuzz.conf:")) std::abort();
    return 0;
  }
  fabricfit::fuzz::check_blocks(blocks);
  return 0;
}
