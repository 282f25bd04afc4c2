// SPDX-License-Identifier: GPL-2.0-or-later
// Jobs wider than one leaf group, split by their pattern (docs/placement.md, "Split by
// pattern"): hand-worked cross-spine bytes of the selector's split against the naive
// orders, and the helpers that define the rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "fabric_fixture.hpp"
#include "placement/selection/pattern_split.hpp"
#include "placement/selection/selector.hpp"

using namespace fabricfit;
using fabricfit::selection::LeafTake;
using fabricfit::selection::Plan;
using fabricfit::testing::FixtureSpec;
using fabricfit::testing::World;

namespace {

JobRequest job(int nodes, const char* pattern) {
  return JobRequest{.min_nodes = nodes, .gpus_per_node = 8, .pattern = parse_comm_pattern(pattern)};
}

// Cross-spine bytes of the hosts in the order given (what `fabricfit score` reports).
double spine_bytes(const World& w, std::vector<int> hosts, const char* pattern) {
  Allocation a{std::move(hosts), {}};
  a.gpus.assign(a.hosts.size(), 8);
  return evaluate_allocation(w.ctx(), a, parse_comm_pattern(pattern)).spine_bytes;
}

std::vector<int> ascending(std::vector<int> hosts) {
  std::sort(hosts.begin(), hosts.end());
  return hosts;
}

// Only the listed hosts are free; every other host is busy.
void only_free(World& w, const std::vector<int>& free) {
  for (int h = 0; h < w.index.host_count(); ++h) {
    if (std::find(free.begin(), free.end(), h) == free.end()) w.busy(h, 8);
  }
}

// The selector's choice for a job of 4 whole hosts that communicates as `pattern`.
auto decide(const World& w, const char* pattern) {
  FabricfitSelector sel;
  return sel.decide(w.ctx(), job(4, pattern));
}

TEST(PatternSplit, StageHosts) {
  const JobShape four{.nodes = 4, .gpus_per_node = 8, .total_gpus = 32};
  // A stage is T x D ranks: 8 (one host), 16 (two hosts), 32 (the whole job).
  EXPECT_EQ(selection::stage_hosts(parse_comm_pattern("tp=8,pp=4,dp=1"), four), 1);
  EXPECT_EQ(selection::stage_hosts(parse_comm_pattern("tp=4,pp=2,dp=4"), four), 2);
  EXPECT_EQ(selection::stage_hosts(parse_comm_pattern("tp=8,pp=1,dp=4"), four), 4);
  // Stages smaller than a host, and every other pattern: any host edge is a stage edge.
  EXPECT_EQ(selection::stage_hosts(parse_comm_pattern("tp=2,pp=16,dp=1"), four), 1);
  EXPECT_EQ(selection::stage_hosts(parse_comm_pattern("ring"), four), 1);
}

TEST(PatternSplit, StagesSplitCountsStagesOverTwoGroups) {
  // Takes 2, 3, 1 with stages of 2 hosts: slots A A | B B | B C -> the third stage is split.
  const Plan plan{LeafTake{0, 2}, LeafTake{1, 3}, LeafTake{2, 1}};
  EXPECT_EQ(selection::stages_split(plan, 2), 1);
  EXPECT_EQ(selection::stages_split(plan, 1), 0);
  // 1, 2, 1 in index order splits both stages; whole-stage groups first splits one.
  Plan odd{LeafTake{0, 1}, LeafTake{1, 2}, LeafTake{2, 1}};
  EXPECT_EQ(selection::stages_split(odd, 2), 2);
  World w(FixtureSpec{.leaf_groups = 4, .hosts_per_leaf = 4});
  selection::order_for_split(odd, w.index, 2);
  EXPECT_EQ(odd.front().leaf, 1);
  EXPECT_EQ(selection::stages_split(odd, 2), 1);
}

TEST(PatternSplit, OneStagePerHostBoundariesOnGroupEdges) {
  // 4 groups of 4 hosts, 2 free hosts in each; tp=8,pp=4,dp=1 on 4 hosts x 8 GPUs: each
  // stage is one host, so the job needs 2 groups and its one cross-group stage boundary
  // (stage 1 -> 2) carries 8 ranks x 1 each way = 16. Interleaving the groups would put
  // all three boundaries across: 48.
  World w(FixtureSpec{.leaf_groups = 4, .hosts_per_leaf = 4});
  only_free(w, {0, 1, 4, 5, 8, 9, 12, 13});
  const char* p = "tp=8,pp=4,dp=1";
  const auto d = decide(w, p);
  ASSERT_TRUE(d);
  const auto& hosts = d->chosen.allocation.hosts;
  ASSERT_EQ(hosts.size(), 4U);
  // Two hosts from each of two groups, in rank order group by group.
  EXPECT_EQ(w.index.leaf_group_of(hosts[0]), w.index.leaf_group_of(hosts[1]));
  EXPECT_EQ(w.index.leaf_group_of(hosts[2]), w.index.leaf_group_of(hosts[3]));
  EXPECT_NE(w.index.leaf_group_of(hosts[1]), w.index.leaf_group_of(hosts[2]));
  EXPECT_DOUBLE_EQ(d->chosen.score.spine_bytes, 16.0);
  EXPECT_LE(d->chosen.score.spine_bytes, spine_bytes(w, ascending(hosts), p));
  EXPECT_DOUBLE_EQ(spine_bytes(w, {hosts[0], hosts[2], hosts[1], hosts[3]}, p), 48.0);
}

TEST(PatternSplit, TwoHostStagesEachInsideOneGroup) {
  // tp=4,pp=2,dp=4 on 4 hosts: a stage is 16 ranks, 2 hosts; host slot i holds stage i/2.
  // Two half-free groups (leaf-01: gpu001-002, leaf-02: gpu005-006): each stage inside one
  // group, data-parallel rings stay in it, only the pipeline crosses: 8 ranks x 1 each way
  // between slots 0-2 and 1-3 = 32.
  World w(FixtureSpec{.leaf_groups = 4, .hosts_per_leaf = 4});
  only_free(w, {0, 1, 4, 5});
  const char* p = "tp=4,pp=2,dp=4";
  const auto d = decide(w, p);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->chosen.allocation.hosts, (std::vector<int>{0, 1, 4, 5}));
  EXPECT_DOUBLE_EQ(d->chosen.score.spine_bytes, 32.0);
  EXPECT_LE(d->chosen.score.spine_bytes, spine_bytes(w, {0, 1, 4, 5}, p));
}

TEST(PatternSplit, WholeStageGroupsFirstCutsFewerBytes) {
  // tp=8,pp=2,dp=2 on 4 hosts (stages of 2 hosts): slot 0 = (p0, d0), 1 = (p0, d1),
  // 2 = (p1, d0), 3 = (p1, d1); data-parallel pairs 0-1 and 2-3, pipeline pairs 0-2 and
  // 1-3, each pair 8 each way (16). Only leaf-01 (1 free: gpu001), leaf-02 (2 free:
  // gpu005-006) and leaf-03 (1 free: gpu009) have room, so the job takes 1 + 2 + 1.
  // In index order (gpu001, gpu005, gpu006, gpu009) every pair crosses: 64. With leaf-02,
  // which holds a whole stage, first: stage 0 stays inside leaf-02, only 0-1 does not
  // cross: 48.
  World w(FixtureSpec{.leaf_groups = 4, .hosts_per_leaf = 4});
  only_free(w, {0, 4, 5, 8});
  const char* p = "tp=8,pp=2,dp=2";
  const auto d = decide(w, p);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->chosen.allocation.hosts, (std::vector<int>{4, 5, 0, 8}));
  EXPECT_DOUBLE_EQ(d->chosen.score.spine_bytes, 48.0);
  const double naive = spine_bytes(w, {0, 4, 5, 8}, p);
  EXPECT_DOUBLE_EQ(naive, 64.0);
  EXPECT_LT(d->chosen.score.spine_bytes, naive);
}

TEST(PatternSplit, FollowsTheBytesWhenCuttingAStageCostsLess) {
  // tp=4,pp=2,dp=4 on two groups with 3 free hosts each (gpu001-003, gpu005-007). 2 + 2 keeps
  // each stage in one group but puts the whole stage boundary across: 32. 3 + 1 leaves one
  // host of stage 1 alone: its pipeline pair (8 each way, 16) and one cut of stage 1's data-
  // parallel rings (4 rings x 1.5 each way, 12) cross: 28. The model's bytes win: 3 + 1.
  World w(FixtureSpec{.leaf_groups = 4, .hosts_per_leaf = 4});
  only_free(w, {0, 1, 2, 4, 5, 6});
  const char* p = "tp=4,pp=2,dp=4";
  EXPECT_DOUBLE_EQ(spine_bytes(w, {0, 1, 4, 5}, p), 32.0);
  EXPECT_DOUBLE_EQ(spine_bytes(w, {0, 1, 2, 4}, p), 28.0);
  const auto d = decide(w, p);
  ASSERT_TRUE(d);
  EXPECT_DOUBLE_EQ(d->chosen.score.spine_bytes, 28.0);
}

TEST(PatternSplit, RingKeepsGroupsContiguousInIndexOrder) {
  // The same free hosts for a ring: the order is by group index as before (one crossing
  // per group edge, 3 x 2 x 31/32 = 5.8125 whatever the order of the groups).
  World w(FixtureSpec{.leaf_groups = 4, .hosts_per_leaf = 4});
  only_free(w, {0, 4, 5, 8});
  const auto d = decide(w, "ring");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->chosen.allocation.hosts, (std::vector<int>{0, 4, 5, 8}));
  EXPECT_DOUBLE_EQ(d->chosen.score.spine_bytes, 3 * 2.0 * 31 / 32);
}

}  // namespace
