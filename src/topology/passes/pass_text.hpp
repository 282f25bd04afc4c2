// SPDX-License-Identifier: GPL-2.0-or-later
// Small helpers the passes share: lists in warnings, tier order and names.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "topology/fabric.hpp"

namespace fabricfit::passes {

[[nodiscard]] std::string join(const std::vector<std::string>& items, std::string_view sep = ", ");

// At most `limit` items, then "and N more".
[[nodiscard]] std::string join_some(const std::vector<std::string>& items, std::size_t limit = 8);

// Leaf 1, spine 2, core 3, untiered 4 (sorts after the tiers).
[[nodiscard]] int tier_level(SwitchTier t);
[[nodiscard]] const char* tier_name(SwitchTier t);

// The most common value; ties go to the larger one.
template <typename T>
T mode_of(const std::map<T, int>& counts) {
  T best{};
  int n = -1;
  for (const auto& [value, count] : counts) {
    if (count >= n) {
      best = value;
      n = count;
    }
  }
  return best;
}

}  // namespace fabricfit::passes
