// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target for fabricfit.conf (parse_site_config). Any text either parses or
// raises ConfigError naming the file; a parsed default pattern must spell back to itself.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "site/site_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const fabricfit::SiteConfig c = fabricfit::parse_site_config(text, "fabricfit.conf");
    if (!(fabricfit::parse_comm_pattern(c.default_pattern.to_string()) == c.default_pattern)) std::abort();
  } catch (const fabricfit::ConfigError& e) {
    if (std::string(e.what()).rfind("fabricfit.conf", 0) != 0) std::abort();
  }
  return 0;
}
