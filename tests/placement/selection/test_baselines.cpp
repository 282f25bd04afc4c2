// SPDX-License-Identifier: GPL-2.0-or-later
// The baselines behave as Slurm documents topology/tree, and as their names say.
#include <gtest/gtest.h>

#include "fabric_fixture.hpp"
#include "placement/selection/baselines.hpp"

using namespace fabricfit;
using fabricfit::testing::FixtureSpec;
using fabricfit::testing::World;

namespace {

JobRequest nodes_of(int n, int gpus = 8) {
  JobRequest r;
  r.min_nodes = n;
  r.gpus_per_node = gpus;
  return r;
}

TEST(TreePolicy, SingleNodeGoesToTheTightestGroupInNodeOrder) {
  // leaf-01: 4 eligible hosts, leaf-02: 2 (two busy). Tightest: leaf-02, first host there.
  World w(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4});
  w.busy(4, 8);
  w.busy(6, 8);
  const auto a = TreePolicy().place(w.ctx(), nodes_of(1, 1));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts, std::vector<int>{5});
}

TEST(TreePolicy, IgnoresHowFullASharedHostIs) {
  // gpu002 has 1 GPU free, gpu001 all 8: tree counts both as eligible and takes gpu001.
  World w(FixtureSpec{.leaf_groups = 1, .hosts_per_leaf = 2});
  w.busy(1, 7);
  const auto a = TreePolicy().place(w.ctx(), nodes_of(1, 1));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts, std::vector<int>{0});
}

TEST(TreePolicy, LargestFirstThenTightestRemainder) {
  // Eligible per group: 4, 4, 3, 3. Six nodes: none holds them; the largest (leaf-01, the
  // first of equals) gives 4; the remaining 2 fit leaf-02 (4), leaf-03 (3), leaf-04 (3):
  // the tightest, leaf-03, gives its first 2 hosts.
  World w(FixtureSpec{.leaf_groups = 4, .hosts_per_leaf = 4});
  w.busy(8, 8);
  w.busy(12, 8);
  const auto a = TreePolicy().place(w.ctx(), nodes_of(6));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts, (std::vector<int>{0, 1, 2, 3, 9, 10}));
}

TEST(TreePolicy, ThreeTierPrefersGroupsNearTheFirst) {
  // 2 pods x 2 groups x 4. Eligible: pod 1: 3, 1; pod 2: 3, 2. Five nodes: none holds
  // them, so groups are compared through their pods: pod 2 (5) holds them, pod 1 (4) does
  // not; pod 2's larger group leaf-03 (3) goes first, then leaf-04 (2), two hops away,
  // fits the rest.
  World w(FixtureSpec{.pods = 2, .leaf_groups = 2, .hosts_per_leaf = 4});
  for (int h : {0, 4, 5, 6, 8, 12, 13}) w.busy(h, 8);
  const auto a = TreePolicy().place(w.ctx(), nodes_of(5));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts, (std::vector<int>{9, 10, 11, 14, 15}));
}

TEST(FirstFitPolicy, TakesHostsInNodeOrder) {
  World w(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4});
  w.busy(1, 8);
  const auto a = FirstFitPolicy().place(w.ctx(), nodes_of(3));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts, (std::vector<int>{0, 2, 3}));
}

TEST(RandomPolicy, RepeatableForASeed) {
  World w(FixtureSpec{.leaf_groups = 4, .hosts_per_leaf = 8});
  const auto a = RandomPolicy(42).place(w.ctx(), nodes_of(5));
  const auto b = RandomPolicy(42).place(w.ctx(), nodes_of(5));
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, *b);
  EXPECT_TRUE(std::is_sorted(a->hosts.begin(), a->hosts.end()));
}

TEST(MakePolicy, KnowsTheNames) {
  for (const char* name : {"fabricfit", "tree", "tree-switches", "firstfit", "random"})
    EXPECT_EQ(make_policy(name)->name(), name);
  EXPECT_THROW((void)make_policy("best"), PolicyError);
}

}  // namespace
