// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target for rdma-core's node-name-map format (parse_node_name_map). Any text
// either parses or raises NodeNameMapError naming the file.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "topology/node_name_map.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    std::size_t sum = 0;
    for (const auto& [guid, name] : fabricfit::parse_node_name_map(text, "map.txt"))
      sum += name.size() + guid;
    if (sum == 1234567) std::abort();  // keeps the walk from being optimised away
  } catch (const fabricfit::NodeNameMapError& e) {
    if (std::string(e.what()).rfind("map.txt", 0) != 0) std::abort();
  }
  return 0;
}
