// SPDX-License-Identifier: GPL-2.0-or-later
// Generator options for fabrics that are not healthy 1:1 (issue 11: fabrics to judge
// placement on): an oversubscription ratio at the leaves and at the cores, and uplink
// cables running below their rate, chosen by leaf group, rail and fraction.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "topology/link_rate.hpp"

namespace fabricfit {

struct ClosSpec;

// Uplinks of some leaves running at a lower rate (a cable trained down, a bad transceiver).
struct UplinkDegradation {
  std::vector<int> leaf_groups;  // 1-based leaf-group numbers (ib-leaf-NNN); empty: every group
  int rail = -1;                 // only this rail's leaves; -1: every rail
  double fraction = 1.0;         // of each chosen leaf's uplinks, the first ceil(fraction x uplinks)
  LinkRate rate;                 // what they run at
  [[nodiscard]] std::string to_string() const;
};

// "groups=1,5-7,rail=2,fraction=0.5,rate=4xEDR" (keys optional except rate, any order;
// "groups" takes a list of numbers and ranges). Throws SpecError naming the fault.
[[nodiscard]] UplinkDegradation parse_uplink_degradation(std::string_view text);

// The spec with --oversubscription and --core-oversubscription turned into cable counts
// (uplinks per leaf = hosts per leaf / ratio, rounded, at least one per spine; the same for
// spine-to-core cables), so the rest of the generator sees plain counts.
[[nodiscard]] ClosSpec resolve_ratios(const ClosSpec& spec);

// The rate of uplink `u` of leaf group `group` (0-based) on rail `rail`: the spec's rate,
// or the degraded one of the first degradation that covers it.
[[nodiscard]] LinkRate uplink_rate(const ClosSpec& spec, int group, int rail, int u);

// Checks the variant options; throws SpecError.
void validate_variants(const ClosSpec& spec);

}  // namespace fabricfit
