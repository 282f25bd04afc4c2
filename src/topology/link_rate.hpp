// SPDX-License-Identifier: GPL-2.0-or-later
// InfiniBand link width and speed, as ibnetdiscover prints them ("4xHDR").
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fabricfit {

struct LinkRate {
  int width = 4;              // lanes: 1, 2, 4, 8 or 12
  std::string speed = "HDR";  // SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR

  // Data rate in Gb/s after line encoding: what the link can carry (4xHDR = 200).
  [[nodiscard]] double gbps() const;
  [[nodiscard]] std::string to_string() const { return std::to_string(width) + "x" + speed; }
  friend bool operator==(const LinkRate&, const LinkRate&) = default;
};

// Parses "4xHDR"; nullopt for anything else.
[[nodiscard]] std::optional<LinkRate> parse_link_rate(std::string_view text);
// Data rate of one lane in Gb/s, or 0 for an unknown speed name.
[[nodiscard]] double lane_gbps(std::string_view speed);

}  // namespace fabricfit
