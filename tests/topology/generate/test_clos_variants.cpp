// SPDX-License-Identifier: GPL-2.0-or-later
// The generator's fabrics to judge placement on (issue 11), read back through the reader
// and the model builder: the capacities the model shows are the ones the options asked for.
#include <gtest/gtest.h>

#include "generated_fabric.hpp"
#include "placement/locality_index.hpp"
#include "placement/runtime/runtime_model.hpp"

using namespace fabricfit;
using fabricfit::testing::generated_fabric;

namespace {

ClosSpec two_tier(int leaves, int hosts, int spines) {
  return fabricfit::testing::clos_spec({.leaves = leaves, .hosts_per_leaf = hosts, .spines = spines});
}

TEST(ClosVariants, OversubscriptionSetsUplinks) {
  for (double ratio : {1.0, 2.0, 3.0}) {
    ClosSpec s = two_tier(4, 12, 2);
    s.oversubscription = ratio;
    const Fabric f = generated_fabric(s);
    ASSERT_EQ(f.leaf_groups.size(), 4u);
    for (const auto& lg : f.leaf_groups) {
      EXPECT_EQ(lg.uplinks, static_cast<int>(12 / ratio)) << ratio;
      EXPECT_DOUBLE_EQ(lg.oversubscription(), ratio);
    }
  }
  ClosSpec both = two_tier(4, 8, 2);
  both.uplinks = 4;
  both.oversubscription = 2;
  EXPECT_THROW((void)generate_ibnetdiscover(both), SpecError);
}

TEST(ClosVariants, HalfTheUplinksOfOneGroupAtHalfRate) {
  // Fabric (c): 1 leaf group in 10 with half its uplinks at 4xEDR (100) instead of 4xHDR (200).
  ClosSpec s = two_tier(10, 8, 4);
  s.degraded.push_back(parse_uplink_degradation("groups=3,fraction=0.5,rate=4xEDR"));
  const Fabric f = generated_fabric(s);
  const LocalityIndex index(f);
  for (int l = 0; l < index.leaf_group_count(); ++l) {
    const auto& g = index.leaf_group(l);
    const bool hit = g.name == "ib-leaf-003";
    EXPECT_DOUBLE_EQ(g.up_gbps, hit ? 4 * 200 + 4 * 100 : 1600) << g.name;
    EXPECT_DOUBLE_EQ(g.min_uplink_gbps, hit ? 100 : 200) << g.name;
    // What the run-time model charges: ECMP spreads evenly, the slow cables saturate first.
    EXPECT_DOUBLE_EQ(UplinkBundles(index).capacity_gbps(2 * l), hit ? 800 : 1600) << g.name;
  }
  EXPECT_EQ(f.degraded_links.size(), 4u);
  // Static routes see every cable at its own rate.
  const UplinkBundles pinned(index, UplinkRouting::Static, &f);
  int slow = 0;
  for (int b = 0; b < pinned.count(); ++b) slow += pinned.capacity_gbps(b) == 100 ? 1 : 0;
  EXPECT_EQ(slow, 8);  // 4 cables, both directions
}

TEST(ClosVariants, OneRailDegradedOnEveryGroup) {
  // Fabric (d): 8 rails, rail 3's uplinks at 4xEDR on every leaf group.
  ClosSpec s = two_tier(4, 4, 2);
  s.rails = 8;
  s.degraded.push_back(parse_uplink_degradation("rail=3,rate=4xEDR"));
  const Fabric f = generated_fabric(s);
  ASSERT_EQ(f.rails, 8);
  for (const auto& lg : f.leaf_groups) {
    EXPECT_EQ(lg.uplinks, 32);
    EXPECT_DOUBLE_EQ(lg.up_gbps, 28 * 200 + 4 * 100);
    EXPECT_DOUBLE_EQ(lg.min_uplink_gbps, 100);
  }
}

TEST(ClosVariants, ThreeTierTwoToOneAtTheCore) {
  // Fabric (e): 2 pods x 4 groups x 8 hosts, 1:1 at the leaves, 2:1 at the core.
  ClosSpec s = two_tier(4, 8, 4);
  s.pods = 2;
  s.core_oversubscription = 2;
  const Fabric f = generated_fabric(s);
  ASSERT_EQ(f.pods.size(), 2u);
  for (const auto& pod : f.pods) {
    EXPECT_EQ(pod.uplinks, 16);  // each spine: 4 groups x 8 uplinks / 4 spines = 8 down, 4 up
    EXPECT_DOUBLE_EQ(pod.up_gbps, 16 * 200);
  }
  double leaf_up = 0;
  for (int g : f.pods[0].leaf_groups) leaf_up += f.leaf_groups[g].up_gbps;
  EXPECT_DOUBLE_EQ(leaf_up / f.pods[0].up_gbps, 2.0);
}

TEST(ClosVariants, DegradeParsesAndRejects) {
  const auto d = parse_uplink_degradation("groups=1,5-7,rail=2,fraction=0.25,rate=4xEDR");
  EXPECT_EQ(d.leaf_groups, (std::vector<int>{1, 5, 6, 7}));
  EXPECT_EQ(d.rail, 2);
  EXPECT_DOUBLE_EQ(d.fraction, 0.25);
  EXPECT_EQ(d.rate.to_string(), "4xEDR");
  for (const char* bad : {"", "rate=9xFOO", "fraction=0,rate=4xEDR", "groups=3-1,rate=4xEDR", "speed=1"}) {
    EXPECT_THROW((void)parse_uplink_degradation(bad), SpecError) << bad;
  }
  ClosSpec s = two_tier(2, 4, 2);
  s.degraded.push_back(parse_uplink_degradation("groups=3,rate=4xEDR"));
  EXPECT_THROW((void)generate_ibnetdiscover(s), SpecError);  // only 2 groups
}

}  // namespace
