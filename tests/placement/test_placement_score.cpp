// SPDX-License-Identifier: GPL-2.0-or-later
// Scores computed by hand on small fabrics (docs/placement.md, "Score").
#include <gtest/gtest.h>

#include "fabric_fixture.hpp"
#include "placement/placement_score.hpp"

using namespace fabricfit;
using fabricfit::testing::degrade_uplink;
using fabricfit::testing::FixtureSpec;
using fabricfit::testing::make_fabric;

namespace {

// 4 leaf groups of 4 hosts, 1:1, 200 Gb/s: 4 uplinks per leaf group.
const FixtureSpec kSmall{.leaf_groups = 4, .hosts_per_leaf = 4};

PlacementScore score(const Fabric& f, std::vector<int> hosts, std::vector<int> gpus, const char* pattern) {
  LocalityIndex index(f);
  return score_hosts(index, hosts, gpus, parse_comm_pattern(pattern));
}

TEST(PlacementScore, RingOverTwoLeafGroupsCrossesTwice) {
  // Hosts 0,1 on leaf-01 and 4,5 on leaf-02, 8 GPUs each: R = 32, 1.9375 per hop.
  // Hops 1->4 and 5->0 cross: spine 3.875. Each leaf group sends 1.9375 over 4 uplinks:
  // 0.484375 GB per uplink x 8 / 200 Gb/s = 0.019375 s per GB of message.
  const auto s = score(make_fabric(kSmall), {0, 1, 4, 5}, {8, 8, 8, 8}, "ring");
  EXPECT_EQ(s.leaf_groups, 2);
  EXPECT_EQ(s.pods, 0);
  EXPECT_DOUBLE_EQ(s.inter_node_bytes, 7.75);
  EXPECT_DOUBLE_EQ(s.spine_bytes, 3.875);
  EXPECT_DOUBLE_EQ(s.core_bytes, 0.0);
  EXPECT_DOUBLE_EQ(s.max_uplink_load, 0.019375);
  EXPECT_DOUBLE_EQ(s.uplink_stretch, 1.0);
}

TEST(PlacementScore, RankOrderMatters) {
  // The same hosts interleaved: every hop crosses.
  const auto s = score(make_fabric(kSmall), {0, 4, 1, 5}, {8, 8, 8, 8}, "ring");
  EXPECT_DOUBLE_EQ(s.spine_bytes, 7.75);
}

TEST(PlacementScore, OneLeafGroupStaysOffTheSpines) {
  const auto s = score(make_fabric(kSmall), {0, 1, 2, 3}, {8, 8, 8, 8}, "alltoall");
  EXPECT_EQ(s.leaf_groups, 1);
  EXPECT_DOUBLE_EQ(s.spine_bytes, 0.0);
  EXPECT_DOUBLE_EQ(s.max_uplink_load, 0.0);
  EXPECT_DOUBLE_EQ(s.uplink_stretch, 0.0);
  EXPECT_GT(s.inter_node_bytes, 0.0);
}

TEST(PlacementScore, DegradedUplinkIsTheBottleneck) {
  // leaf-02 has one uplink at 100 Gb/s: ECMP still gives it 1/4 of 1.9375, at half speed.
  Fabric f = make_fabric(kSmall);
  degrade_uplink(f, 1, 100);
  const auto s = score(f, {0, 1, 4, 5}, {8, 8, 8, 8}, "ring");
  EXPECT_DOUBLE_EQ(s.max_uplink_load, 0.03875);
  EXPECT_EQ(s.bottleneck, "leaf-02");
  EXPECT_DOUBLE_EQ(s.uplink_stretch, 2.0);  // 800 down / (4 x 100)
}

TEST(PlacementScore, OversubscribedLeafGroupCostsMore) {
  // 2 uplinks for 4 hosts (2:1): the same traffic on half the cables.
  Fabric f = make_fabric(FixtureSpec{.leaf_groups = 4, .hosts_per_leaf = 4, .uplinks = 2});
  const auto s = score(f, {0, 1, 4, 5}, {8, 8, 8, 8}, "ring");
  EXPECT_DOUBLE_EQ(s.max_uplink_load, 0.03875);
  EXPECT_DOUBLE_EQ(s.uplink_stretch, 2.0);
}

TEST(PlacementScore, AllToAllThreePlusOne) {
  // 3 hosts on leaf-01 (24 of 32 ranks), 1 on leaf-02 (8): each sends 24 x 8 / 32 = 6 out.
  const auto s = score(make_fabric(kSmall), {0, 1, 2, 4}, {8, 8, 8, 8}, "alltoall");
  EXPECT_DOUBLE_EQ(s.inter_node_bytes, 24.0);  // (32^2 - 4 x 8^2) / 32
  EXPECT_DOUBLE_EQ(s.spine_bytes, 12.0);
  EXPECT_DOUBLE_EQ(s.max_uplink_load, 6.0 / 4 * 8 / 200);
}

TEST(PlacementScore, TreeTwoPlusTwo) {
  // Slots 0,1 on leaf-01, 2,3 on leaf-02; the four-node double binary tree crosses on
  // 1-2 (1 each way), 0-2 and 1-3 (1/2 each way): 4 in all; leaf-01 sends 1 + 1/2 + 1/2.
  const auto s = score(make_fabric(kSmall), {0, 1, 4, 5}, {8, 8, 8, 8}, "tree");
  EXPECT_DOUBLE_EQ(s.spine_bytes, 4.0);
  EXPECT_DOUBLE_EQ(s.max_uplink_load, 2.0 / 4 * 8 / 200);
}

TEST(PlacementScore, MegatronPipelineCrossesDataParallelStays) {
  // tp=8,pp=2,dp=2 on 4 nodes x 8: node = d + 2p. Data-parallel pairs join nodes 0-1 and 2-3
  // (same leaf group); pipeline pairs join 0-2 and 1-3: 8 GPUs x 1 each way, 4 directions.
  const auto s = score(make_fabric(kSmall), {0, 1, 4, 5}, {8, 8, 8, 8}, "tp=8,pp=2,dp=2");
  EXPECT_DOUBLE_EQ(s.spine_bytes, 32.0);
  EXPECT_DOUBLE_EQ(s.inter_node_bytes, 64.0);
}

TEST(PlacementScore, NoneHasNoCost) {
  const auto s = score(make_fabric(kSmall), {0, 4, 8}, {8, 8, 8}, "none");
  EXPECT_EQ(s.leaf_groups, 3);
  EXPECT_DOUBLE_EQ(s.spine_bytes, 0.0);
  EXPECT_DOUBLE_EQ(s.max_uplink_load, 0.0);
}

TEST(PlacementScore, ThreeTierCoreBytes) {
  // 2 pods x 2 leaf groups x 2 hosts, 1 GPU each; one host per leaf group: R = 4, 1.5 per
  // hop, all 4 hops cross a spine, 2 of them (pod 1 -> 2 and back) a core. A leaf group
  // sends 1.5 over 2 uplinks (0.03 s/GB); a pod 1.5 over 4 (0.015).
  Fabric f = make_fabric(FixtureSpec{.pods = 2, .leaf_groups = 2, .hosts_per_leaf = 2});
  const auto s = score(f, {0, 2, 4, 6}, {1, 1, 1, 1}, "ring");
  EXPECT_EQ(s.pods, 2);
  EXPECT_DOUBLE_EQ(s.spine_bytes, 6.0);
  EXPECT_DOUBLE_EQ(s.core_bytes, 3.0);
  EXPECT_DOUBLE_EQ(s.max_uplink_load, 1.5 / 2 * 8 / 200);
}

TEST(PlacementScore, RailsSplitTheSpineBytes) {
  // Two rails: the same bytes, half on each rail's spines; per-uplink load unchanged.
  Fabric f = make_fabric(FixtureSpec{.leaf_groups = 4, .hosts_per_leaf = 4, .rails = 2});
  const auto s = score(f, {0, 1, 4, 5}, {8, 8, 8, 8}, "ring");
  EXPECT_EQ(s.rails, 2);
  EXPECT_DOUBLE_EQ(s.spine_bytes, 3.875);
  EXPECT_DOUBLE_EQ(s.spine_bytes_per_rail, 1.9375);
  EXPECT_DOUBLE_EQ(s.max_uplink_load, 1.9375 / 8 * 8 / 200);  // 8 uplinks over 2 rails
}

}  // namespace
