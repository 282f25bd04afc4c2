// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/generate/clos_variants.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <cmath>

#include "topology/generate/clos_generator.hpp"

namespace fabricfit {
namespace {

int to_int(std::string_view s, std::string_view what) {
  int v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size()) {
    throw SpecError(fmt::format("--degrade: {} '{}' is not a whole number", what, s));
  }
  return v;
}

int uplinks_taken(const UplinkDegradation& d, int uplinks) {
  return std::min(uplinks, static_cast<int>(std::ceil(d.fraction * uplinks - 1e-9)));
}

}  // namespace

std::string UplinkDegradation::to_string() const {
  std::string groups;
  for (int g : leaf_groups) groups += (groups.empty() ? "" : " ") + std::to_string(g);
  return fmt::format("groups={},rail={},fraction={:g},rate={}", groups.empty() ? "all" : groups,
                     rail < 0 ? std::string("all") : std::to_string(rail), fraction, rate.to_string());
}

UplinkDegradation parse_uplink_degradation(std::string_view text) {
  UplinkDegradation d;
  bool have_rate = false;
  std::string_view key;
  while (!text.empty()) {
    const auto comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const auto eq = item.find('=');
    // "groups=1,5-7": items without '=' continue the group list.
    const std::string_view value = eq == std::string_view::npos ? item : item.substr(eq + 1);
    if (eq != std::string_view::npos) key = item.substr(0, eq);
    if (key == "groups") {
      const auto dash = value.find('-');
      const int first = to_int(value.substr(0, dash), "group");
      const int last = dash == std::string_view::npos ? first : to_int(value.substr(dash + 1), "group");
      if (first < 1 || last < first) throw SpecError(fmt::format("--degrade: bad group range '{}'", value));
      for (int g = first; g <= last; ++g) d.leaf_groups.push_back(g);
    } else if (eq == std::string_view::npos) {
      throw SpecError(fmt::format("--degrade: '{}' is not KEY=VALUE", item));
    } else if (key == "rail") {
      d.rail = to_int(value, "rail");
    } else if (key == "fraction") {
      double f = -1;
      const auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), f);
      if (ec != std::errc{} || p != value.data() + value.size() || !(f > 0 && f <= 1)) {
        throw SpecError(fmt::format("--degrade: fraction '{}' must be above 0 and at most 1", value));
      }
      d.fraction = f;
    } else if (key == "rate") {
      const auto r = parse_link_rate(value);
      if (!r || r->gbps() <= 0)
        throw SpecError(fmt::format("--degrade: rate '{}' is not WIDTHxSPEED", value));
      d.rate = *r;
      have_rate = true;
    } else {
      throw SpecError(fmt::format("--degrade: unknown key '{}' (groups, rail, fraction, rate)", key));
    }
  }
  if (!have_rate) throw SpecError("--degrade needs rate=WIDTHxSPEED");
  return d;
}

ClosSpec resolve_ratios(const ClosSpec& spec) {
  ClosSpec s = spec;
  if (s.oversubscription > 0) {
    s.uplinks = std::max({1, s.spines, static_cast<int>(std::lround(s.hosts_per_leaf / s.oversubscription))});
    s.oversubscription = 0;
  }
  if (s.core_oversubscription > 0 && s.pods > 0) {
    const int cores = s.cores > 0 ? s.cores : s.spines;
    const int down_per_spine = s.leaves * s.rails * s.leaf_uplinks() / s.spines;
    s.core_uplinks =
        std::max({1, cores, static_cast<int>(std::lround(down_per_spine / s.core_oversubscription))});
    s.core_oversubscription = 0;
  }
  return s;
}

LinkRate uplink_rate(const ClosSpec& spec, int group, int rail, int u) {
  for (const UplinkDegradation& d : spec.degraded) {
    if (d.rail >= 0 && d.rail != rail) continue;
    if (!d.leaf_groups.empty() &&
        std::find(d.leaf_groups.begin(), d.leaf_groups.end(), group + 1) == d.leaf_groups.end()) {
      continue;
    }
    if (u < uplinks_taken(d, spec.leaf_uplinks())) return d.rate;
  }
  return spec.rate;
}

void validate_variants(const ClosSpec& spec) {
  if (spec.oversubscription < 0 || spec.core_oversubscription < 0) {
    throw SpecError("--oversubscription and --core-oversubscription must be above 0 (or 0: not used)");
  }
  if (spec.oversubscription > 0 && spec.uplinks > 0) {
    throw SpecError("give --uplinks or --oversubscription, not both");
  }
  if (spec.core_oversubscription > 0 && (spec.pods == 0 || spec.core_uplinks > 0)) {
    throw SpecError("--core-oversubscription needs --pods and no --core-uplinks");
  }
  for (const UplinkDegradation& d : spec.degraded) {
    if (d.rail >= spec.rails) {
      throw SpecError(fmt::format("--degrade: rail {} but the fabric has {} rail(s)", d.rail, spec.rails));
    }
    for (int g : d.leaf_groups) {
      if (g > spec.leaf_groups()) {
        throw SpecError(
            fmt::format("--degrade: group {} but the fabric has {} leaf groups", g, spec.leaf_groups()));
      }
    }
  }
}

}  // namespace fabricfit
