// SPDX-License-Identifier: GPL-2.0-or-later
// A label value of the Prometheus text format: backslash, double quote and newline escaped,
// as the format requires. Leaf group and switch names are free text set by a site's admins.
#pragma once

#include <string>
#include <string_view>

namespace fabricfit {

inline std::string prom_label(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace fabricfit
