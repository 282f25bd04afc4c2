// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target for the NodeName= reader (parse_slurm_node_lines). Any text either
// gives a list of distinct, non-empty names or raises SlurmNodesError naming the file.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "common/slurm_node_names.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto names = fabricfit::parse_slurm_node_lines(text, "slurm.conf");
    std::set<std::string> seen;
    for (const auto& n : names) {
      if (n.empty() || !seen.insert(n).second) std::abort();
    }
  } catch (const fabricfit::SlurmNodesError& e) {
    if (std::string(e.what()).rfind("slurm.conf", 0) != 0) std::abort();
  }
  return 0;
}
