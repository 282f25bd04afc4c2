// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/link_rate.hpp"

#include <array>
#include <charconv>
#include <utility>

namespace fabricfit {

double lane_gbps(std::string_view speed) {
  // Per-lane data rates after 8b/10b (SDR-QDR) or 64b/66b (FDR and later) encoding.
  // XDR (200G per lane) is read from text even where the installed rdma-core does not
  // name it (ibnetdiscover there prints it only once it knows it).
  static constexpr std::array<std::pair<std::string_view, double>, 9> kRates{{
      {"SDR", 2.0},
      {"DDR", 4.0},
      {"QDR", 8.0},
      {"FDR10", 10.0},
      {"FDR", 13.64},
      {"EDR", 25.0},
      {"HDR", 50.0},
      {"NDR", 100.0},
      {"XDR", 200.0},
  }};
  for (const auto& [name, rate] : kRates) {
    if (name == speed) return rate;
  }
  return 0.0;
}

double LinkRate::gbps() const {
  return width * lane_gbps(speed);
}

std::optional<LinkRate> parse_link_rate(std::string_view text) {
  const auto x = text.find('x');
  if (x == std::string_view::npos || x == 0) return std::nullopt;
  int width = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + x, width);
  if (ec != std::errc{} || ptr != text.data() + x) return std::nullopt;
  if (width != 1 && width != 2 && width != 4 && width != 8 && width != 12) return std::nullopt;
  const auto speed = text.substr(x + 1);
  if (lane_gbps(speed) == 0.0) return std::nullopt;
  return LinkRate{width, std::string(speed)};
}

}  // namespace fabricfit
