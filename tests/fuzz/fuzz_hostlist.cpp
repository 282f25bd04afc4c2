// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target for hostlist expressions (expand_hostlist) and their compression
// (compress_hostlist): what expands, compressed and expanded again, names the same hosts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "common/hostlist.hpp"
#include "common/hostlist_expand.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto names = fabricfit::expand_hostlist(text);
    const std::string compressed = fabricfit::compress_hostlist(names);
    const auto again = fabricfit::expand_hostlist(compressed);
    if (std::set<std::string>(names.begin(), names.end()) !=
        std::set<std::string>(again.begin(), again.end()))
      std::abort();
  } catch (const fabricfit::HostlistError&) {
  }
  return 0;
}
