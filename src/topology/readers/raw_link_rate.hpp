// SPDX-License-Identifier: GPL-2.0-or-later
// The one link rate a reader records besides real ones: "unknown". A net file written
// for ibsim by hand may give no rate at all, and a live port whose PortInfo was never
// read has none either; LinkRate's defaults (4xHDR) must not stand in for that.
#pragma once

#include "topology/link_rate.hpp"

namespace fabricfit {

// Width 0 and no speed name: gbps() is 0, so nothing is ever routed over it by mistake.
[[nodiscard]] inline LinkRate unknown_link_rate() {
  return LinkRate{0, ""};
}
[[nodiscard]] inline bool is_unknown(const LinkRate& rate) {
  return rate.width == 0;
}

}  // namespace fabricfit
