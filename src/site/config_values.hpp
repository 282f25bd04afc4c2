// SPDX-License-Identifier: GPL-2.0-or-later
// How fabricfit.conf spells its values: keys without regard to case (as Slurm), whole and
// real numbers within bounds. Shared by the parsers of its keys.
#pragma once

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <string_view>

#include "common/iequals.hpp"

namespace fabricfit::conf {

inline bool key_is(std::string_view key, std::string_view name) {
  return iequals(key, name);
}

// A whole decimal number in [low, high]; nullopt otherwise.
inline std::optional<int> parse_int(std::string_view value, int low, int high) {
  int n = 0;
  const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc{} || ptr != value.data() + value.size() || n < low || n > high) return std::nullopt;
  return n;
}

// A decimal number (1e-12 spelt so too) in [low, high]; nullopt otherwise.
inline std::optional<double> parse_real(std::string_view value, double low, double high) {
  double x = 0;
  const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), x);
  if (ec != std::errc{} || ptr != value.data() + value.size() || !(x >= low && x <= high))
    return std::nullopt;
  return x;
}

}  // namespace fabricfit::conf
