// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target for --comm-pattern (parse_comm_pattern). Any text either parses or
// raises PatternError; what parses spells back (to_string) to the same pattern.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "placement/comm_pattern.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const fabricfit::CommPattern p = fabricfit::parse_comm_pattern(text);
    if (!(fabricfit::parse_comm_pattern(p.to_string()) == p)) std::abort();
  } catch (const fabricfit::PatternError&) {
  }
  return 0;
}
