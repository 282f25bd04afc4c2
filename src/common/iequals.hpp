// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm's config keys (NodeName, BlockName, fabricfit.conf's keys) match without regard to
// case: one comparison for every parser of them.
#pragma once

#include <algorithm>
#include <cctype>
#include <string_view>

namespace fabricfit {

[[nodiscard]] inline bool iequals(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

}  // namespace fabricfit
