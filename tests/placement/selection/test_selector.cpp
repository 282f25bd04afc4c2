// SPDX-License-Identifier: GPL-2.0-or-later
// The fabricfit selector: hand-checked choices and the properties issue 4 asks for.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "fabric_fixture.hpp"
#include "placement/selection/baselines.hpp"
#include "placement/selection/selector.hpp"

using namespace fabricfit;
using fabricfit::testing::degrade_uplink;
using fabricfit::testing::FixtureSpec;
using fabricfit::testing::leaf_group_count;
using fabricfit::testing::leaf_groups_of;
using fabricfit::testing::make_fabric;
using fabricfit::testing::World;

namespace {

JobRequest nodes_of(int n, int gpus = 8, const char* pattern = "ring") {
  return JobRequest{.min_nodes = n, .gpus_per_node = gpus, .pattern = parse_comm_pattern(pattern)};
}

std::set<int> groups(const World& w, const Allocation& a) {
  auto g = leaf_groups_of(w.index, a);
  return {g.begin(), g.end()};
}

// Where the fabricfit selector puts the job in the world as it stands.
std::optional<Allocation> place(const World& w, const JobRequest& request) {
  FabricfitSelector sel;
  return sel.place(w.ctx(), request);
}

TEST(Selector, SmallJobFillsAPartlyUsedHost) {
  World w(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4});
  w.busy(6, 5);  // 3 free on gpu007
  const auto a = place(w, nodes_of(1, 2));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts, std::vector<int>{6});
  EXPECT_EQ(a->gpus, std::vector<int>{2});
}

TEST(Selector, SmallJobAvoidsBreakingAWholeLeafGroup) {
  // Both groups have only whole free hosts except that leaf-02 has one busy host: a
  // 1-GPU job goes to leaf-02, keeping leaf-01 whole for a 4-node job.
  World w(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4});
  w.busy(4, 8);
  const auto a = place(w, nodes_of(1, 1));
  ASSERT_TRUE(a);
  EXPECT_EQ(w.index.leaf_group_of(a->hosts[0]), 1);
}

TEST(Selector, MultiNodeJobTakesTheTightestLeafGroup) {
  // leaf-01: 2 whole free hosts; leaf-02: 4. A 2-node job fits both; taking leaf-01 keeps
  // a 4-node hole.
  World w(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4});
  w.busy(0, 8);
  w.busy(1, 8);
  const auto a = place(w, nodes_of(2));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts, (std::vector<int>{2, 3}));
}

TEST(Selector, SplitJobConsumesPartlyFreeGroupsNotWholeOnes) {
  // 4 groups of 4: leaf-01 and leaf-02 whole, leaf-03 and leaf-04 with 3 free hosts.
  // 6 nodes need 2 groups; 3 + 3 uses them without breaking a whole group. (tree: 4 + 2.)
  World w(FixtureSpec{.leaf_groups = 4, .hosts_per_leaf = 4});
  w.busy(8, 8);
  w.busy(12, 8);
  const auto a = place(w, nodes_of(6));
  ASSERT_TRUE(a);
  EXPECT_EQ(groups(w, *a), (std::set<int>{2, 3}));
  TreePolicy tree;
  const auto t = tree.place(w.ctx(), nodes_of(6));
  ASSERT_TRUE(t);
  EXPECT_EQ(leaf_group_count(w.index, *t), 2);
  EXPECT_EQ(groups(w, *t), (std::set<int>{0, 2}));
}

TEST(Selector, DegradedUplinkSteersPlacementAway) {
  // Three whole groups; leaf-01 has a half-speed uplink. A 6-node job needs two groups:
  // it avoids leaf-01.
  Fabric f = make_fabric(FixtureSpec{.leaf_groups = 3, .hosts_per_leaf = 4});
  degrade_uplink(f, 0, 100);
  World w(std::move(f));
  FabricfitSelector sel;
  const auto d = sel.decide(w.ctx(), nodes_of(6), 2);
  ASSERT_TRUE(d);
  EXPECT_EQ(groups(w, d->chosen.allocation), (std::set<int>{1, 2}));
  EXPECT_DOUBLE_EQ(d->chosen.score.uplink_stretch, 1.0);
  ASSERT_FALSE(d->alternatives.empty());
  EXPECT_GT(d->alternatives[0].score.uplink_stretch, 1.0);
  // The tree does not see link health.
  const auto t = TreePolicy().place(w.ctx(), nodes_of(6));
  ASSERT_TRUE(t);
  EXPECT_TRUE(groups(w, *t).contains(0));
}

TEST(Selector, DegradedUplinkDoesNotMatterInsideOneGroup) {
  Fabric f = make_fabric(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4});
  degrade_uplink(f, 0, 100);
  World w(std::move(f));
  w.busy(4, 8);  // leaf-02 has 3 whole hosts, leaf-01 4
  const auto a = FabricfitSelector().place(w.ctx(), nodes_of(4));
  ASSERT_TRUE(a);
  EXPECT_EQ(groups(w, *a), (std::set<int>{0}));  // no cross traffic: the uplink is irrelevant
}

TEST(Selector, AllToAllConcentratesTraffic) {
  // 5 nodes over groups with 4, 4 and 1 whole free hosts (+3 busy): k = 2. 4 + 1 sends
  // less over the spines than 4 + 4 split evenly would; and the selector never splits more.
  World w(FixtureSpec{.leaf_groups = 3, .hosts_per_leaf = 4});
  for (int h : {9, 10, 11}) w.busy(h, 8);
  const auto d = FabricfitSelector().decide(w.ctx(), nodes_of(5, 8, "alltoall"));
  ASSERT_TRUE(d);
  EXPECT_EQ(leaf_group_count(w.index, d->chosen.allocation), 2);
  // Per-group counts: 4 and 1.
  auto g = leaf_groups_of(w.index, d->chosen.allocation);
  std::map<int, int> per;
  for (int x : g) ++per[x];
  std::vector<int> counts;
  for (auto [k, v] : per) counts.push_back(v);
  std::sort(counts.begin(), counts.end());
  EXPECT_EQ(counts, (std::vector<int>{1, 4}));
}

TEST(Selector, ThreeTierStaysInOnePod) {
  // 2 pods x 2 groups x 4 hosts. Pod 1: groups with 3 and 3 whole free; pod 2: 4 and 2.
  // 6 nodes: two groups either way, but 3 + 3 stays inside pod 1, off the cores.
  World w(FixtureSpec{.pods = 2, .leaf_groups = 2, .hosts_per_leaf = 4});
  w.busy(0, 8);
  w.busy(4, 8);
  w.busy(12, 8);
  w.busy(13, 8);
  const auto d = FabricfitSelector().decide(w.ctx(), nodes_of(6));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->chosen.score.pods, 1);
  EXPECT_DOUBLE_EQ(d->chosen.score.core_bytes, 0.0);
}

TEST(Selector, NodeRangeTakesMoreNodesOnlyWithoutMoreGroups) {
  World w(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4});
  w.busy(0, 8);  // leaf-01: 3 whole free, leaf-02: 4
  JobRequest r = nodes_of(2);
  r.max_nodes = 6;
  const auto a = FabricfitSelector().place(w.ctx(), r);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts.size(), 4u);  // 4 still fit in one group; 5 and 6 would need two
  EXPECT_EQ(leaf_group_count(w.index, *a), 1);
}

TEST(Selector, TotalGpusSpreadEvenly) {
  World w(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4});
  JobRequest r;
  r.total_gpus = 12;
  const auto a = FabricfitSelector().place(w.ctx(), r);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->gpus, (std::vector<int>{6, 6}));
  EXPECT_EQ(leaf_group_count(w.index, *a), 1);
}

TEST(Selector, ExclusiveTakesWholeHosts) {
  World w(FixtureSpec{.leaf_groups = 1, .hosts_per_leaf = 4});
  w.busy(0, 1);
  JobRequest r = nodes_of(2, 2);
  r.exclusive = true;
  const auto a = FabricfitSelector().place(w.ctx(), r);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->gpus, (std::vector<int>{8, 8}));
  EXPECT_FALSE(std::find(a->hosts.begin(), a->hosts.end(), 0) != a->hosts.end());
}

TEST(Selector, RespectsTheAllowedHosts) {
  World w(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4});
  std::vector<std::uint8_t> allowed(8, 0);
  allowed[5] = allowed[6] = 1;
  PlacementContext ctx{w.index, w.gpus, w.frag, allowed};
  const auto a = FabricfitSelector().place(ctx, nodes_of(2));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts, (std::vector<int>{5, 6}));
  EXPECT_FALSE(FabricfitSelector().place(ctx, nodes_of(3)));
}

TEST(Selector, DoesNotFitReturnsNothing) {
  World w(FixtureSpec{.leaf_groups = 1, .hosts_per_leaf = 2});
  w.busy(0, 1);
  EXPECT_FALSE(FabricfitSelector().place(w.ctx(), nodes_of(2)));
  EXPECT_THROW((void)FabricfitSelector().place(w.ctx(), nodes_of(1, 9)), RequestError);
}

// ---- properties on random states ----

struct RandomCase {
  World world;
  JobRequest request;
};

RandomCase random_case(std::mt19937& rng, int pods) {
  const int groups = 2 + static_cast<int>(rng() % 6);
  const int per = 2 + static_cast<int>(rng() % 7);
  World w(FixtureSpec{.pods = pods, .leaf_groups = groups, .hosts_per_leaf = per});
  for (int h = 0; h < w.index.host_count(); ++h) {
    const int r = static_cast<int>(rng() % 10);
    if (r < 4)
      w.busy(h, 8);
    else if (r < 6)
      w.busy(h, 1 + static_cast<int>(rng() % 7));
  }
  if (rng() % 3 != 0) w.busy(static_cast<int>(rng() % w.index.host_count()), 0);
  if (rng() % 4 == 0) degrade_uplink(w.fabric, 0, 100);
  w.index = LocalityIndex(w.fabric);
  static const char* patterns[] = {"ring", "tree", "alltoall", "none"};
  const int n = 1 + static_cast<int>(rng() % (w.index.host_count() / 2 + 1));
  const int g = n == 1 ? 1 + static_cast<int>(rng() % 8) : 8;
  return RandomCase{std::move(w), nodes_of(n, g, patterns[rng() % 4])};
}

TEST(SelectorProperties, NeverMoreLeafGroupsThanTree) {
  std::mt19937 rng(20240611);
  int compared = 0;
  for (int trial = 0; trial < 600; ++trial) {
    auto c = random_case(rng, trial % 3 == 0 ? 2 : 0);
    const auto t = TreePolicy().place(c.world.ctx(), c.request);
    const auto f = FabricfitSelector().place(c.world.ctx(), c.request);
    ASSERT_EQ(t.has_value(), f.has_value()) << "trial " << trial;
    if (!f) continue;
    ++compared;
    EXPECT_LE(leaf_group_count(c.world.index, *f), leaf_group_count(c.world.index, *t)) << "trial " << trial;
    EXPECT_EQ(f->hosts.size(), static_cast<std::size_t>(c.request.min_nodes));
  }
  EXPECT_GT(compared, 200);
}

TEST(SelectorProperties, DeterministicAndRankContiguous) {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 300; ++trial) {
    auto c = random_case(rng, trial % 2 == 0 ? 2 : 0);
    FabricfitSelector reused;
    (void)reused.place(c.world.ctx(), nodes_of(1, 1));  // scratch left from another decision
    const auto a = reused.place(c.world.ctx(), c.request);
    const auto b = FabricfitSelector().place(c.world.ctx(), c.request);
    ASSERT_EQ(a.has_value(), b.has_value());
    if (!a) continue;
    EXPECT_EQ(*a, *b) << "trial " << trial;
    // Each leaf group appears as one run of consecutive ranks.
    const auto g = leaf_groups_of(c.world.index, *a);
    std::set<int> done;
    for (std::size_t i = 0; i < g.size(); ++i) {
      if (i > 0 && g[i] != g[i - 1]) {
        EXPECT_FALSE(done.contains(g[i])) << "trial " << trial;
        done.insert(g[i - 1]);
      }
    }
    // Hosts are distinct, eligible and hold the GPUs given.
    std::set<int> distinct(a->hosts.begin(), a->hosts.end());
    EXPECT_EQ(distinct.size(), a->hosts.size());
    for (std::size_t i = 0; i < a->hosts.size(); ++i) {
      EXPECT_LE(a->gpus[i], c.world.gpus.free[a->hosts[i]]);
    }
  }
}

TEST(SelectorProperties, ScoreMatchesIndependentEvaluation) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    auto c = random_case(rng, trial % 2 == 0 ? 2 : 0);
    const auto d = FabricfitSelector().decide(c.world.ctx(), c.request);
    if (!d) continue;
    const auto s = evaluate_allocation(c.world.ctx(), d->chosen.allocation, c.request.pattern);
    EXPECT_NEAR(d->chosen.score.spine_bytes, s.spine_bytes, 1e-9);
    EXPECT_NEAR(d->chosen.score.max_uplink_load, s.max_uplink_load, 1e-9);
    EXPECT_NEAR(d->chosen.score.frag_before, s.frag_before, 1e-9);
    EXPECT_NEAR(d->chosen.score.frag_after, s.frag_after, 1e-9);
  }
}

// The C edge's decision (ScoreDetail::Traffic) from one selector kept across clusters of
// every shape, as the engine keeps it: the same choice and traffic score as a fresh
// selector's full decision, no fragmentation figures, and the same runners-up for explain.
TEST(SelectorProperties, TrafficOnlyReusedSelectorDecidesAsAFreshOne) {
  std::mt19937 rng(31);
  FabricfitSelector reused;
  int decided = 0, split = 0;
  for (int trial = 0; trial < 300; ++trial) {
    auto c = random_case(rng, trial % 3 == 0 ? 2 : 0);
    const auto fast = reused.decide(c.world.ctx(), c.request, 0, FabricfitSelector::ScoreDetail::Traffic);
    const auto full = FabricfitSelector().decide(c.world.ctx(), c.request);
    ASSERT_EQ(fast.has_value(), full.has_value()) << "trial " << trial;
    if (!fast) continue;
    ++decided;
    const auto& f = fast->chosen.score;
    const auto& g = full->chosen.score;
    split += g.leaf_groups > 1 ? 1 : 0;
    EXPECT_EQ(fast->chosen.allocation, full->chosen.allocation) << "trial " << trial;
    EXPECT_EQ(f.leaf_groups, g.leaf_groups) << "trial " << trial;
    EXPECT_EQ(f.pods, g.pods) << "trial " << trial;
    EXPECT_DOUBLE_EQ(f.spine_bytes, g.spine_bytes) << "trial " << trial;
    EXPECT_DOUBLE_EQ(f.core_bytes, g.core_bytes) << "trial " << trial;
    EXPECT_DOUBLE_EQ(f.max_uplink_load, g.max_uplink_load) << "trial " << trial;
    EXPECT_EQ(f.bottleneck, g.bottleneck) << "trial " << trial;
    EXPECT_DOUBLE_EQ(f.cost, g.cost) << "trial " << trial;
    EXPECT_EQ(f.frag_before, 0.0);
    EXPECT_EQ(f.frag_after, 0.0);
    const auto again = reused.decide(c.world.ctx(), c.request, 1);
    const auto fresh = FabricfitSelector().decide(c.world.ctx(), c.request, 1);
    ASSERT_TRUE(again && fresh);
    ASSERT_EQ(again->alternatives.size(), fresh->alternatives.size()) << "trial " << trial;
    for (std::size_t i = 0; i < fresh->alternatives.size(); ++i)
      EXPECT_EQ(again->alternatives[i].allocation, fresh->alternatives[i].allocation) << "trial " << trial;
    EXPECT_DOUBLE_EQ(again->chosen.score.frag_after, g.frag_after) << "trial " << trial;
  }
  EXPECT_GT(decided, 150);
  EXPECT_GT(split, 10);  // the reused router routed traffic over several groups
}

}  // namespace
