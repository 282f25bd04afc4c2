// SPDX-License-Identifier: GPL-2.0-or-later
// Text made safe for XML and HTML (element content and double-quoted attributes): the SVG
// of `replay --svg` and the page of `report --html` share it.
#pragma once

#include <string>
#include <string_view>

namespace fabricfit {

inline std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace fabricfit
