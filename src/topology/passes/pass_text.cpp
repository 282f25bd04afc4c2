// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/passes/pass_text.hpp"

#include <fmt/format.h>

namespace fabricfit::passes {

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

std::string join_some(const std::vector<std::string>& items, std::size_t limit) {
  if (items.size() <= limit) return join(items);
  std::vector<std::string> head(items.begin(), items.begin() + static_cast<long>(limit));
  return fmt::format("{} and {} more", join(head), items.size() - limit);
}

int tier_level(SwitchTier t) {
  switch (t) {
    case SwitchTier::Leaf: return 1;
    case SwitchTier::Spine: return 2;
    case SwitchTier::Core: return 3;
    case SwitchTier::None: return 4;
  }
  return 4;
}

const char* tier_name(SwitchTier t) {
  switch (t) {
    case SwitchTier::Leaf: return "leaf";
    case SwitchTier::Spine: return "spine";
    case SwitchTier::Core: return "core";
    case SwitchTier::None: return "untiered";
  }
  return "?";
}

}  // namespace fabricfit::passes
