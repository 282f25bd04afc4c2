// SPDX-License-Identifier: GPL-2.0-or-later
// The selector beside running traffic (selector_cables.cpp, selector.cpp): under static
// routes a split job's flows are pinned to the cable of their destination host, so the
// hosts and the plan it takes decide whether it shares a cable with a running job.
// Worked by hand on two leaf groups of four hosts with two 200 Gb/s uplinks each (2:1):
// a flow towards host h takes cable h mod 2 out of its source group and into h's group.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <vector>

#include "fabric_fixture.hpp"
#include "placement/runtime/runtime_model.hpp"
#include "placement/selection/selector.hpp"

using namespace fabricfit;
using fabricfit::testing::FixtureSpec;
using fabricfit::testing::World;

namespace {

JobRequest ring_of(int n) {
  return JobRequest{.min_nodes = n, .gpus_per_node = 8, .pattern = parse_comm_pattern("ring")};
}

std::vector<BundleDemand> demand_of(const UplinkBundles& bundles, const Allocation& a) {
  return bundles.demand(TrafficMatrix::build(parse_comm_pattern("ring"), a.gpus), a.hosts);
}

// A fresh selector's decision for `job` on `w` beside the running jobs in `sharing`.
std::optional<Decision> decide_beside(const World& w, const UplinkBundles& bundles,
                                      const BandwidthSharing& sharing, const JobRequest& job) {
  const RunningTraffic running{.bundles = bundles, .sharing = sharing};
  PlacementContext ctx = w.ctx();
  ctx.running = &running;
  FabricfitSelector steered;
  return steered.decide(ctx, job);
}

// Hosts 2 (leaf-01) and 5 (leaf-02) run a ring: 2 -> 5 on cable 1 (leaf-01 up, leaf-02
// down) and 5 -> 2 on cable 0 (leaf-02 up, leaf-01 down), each at a host's line rate, which
// fills a cable. Hosts 3 and 7 are busy with one-host jobs. Free: 0, 1 | 4, 6.
struct TwoGroups : ::testing::Test {
  TwoGroups() : world(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4, .uplinks = 2}) {
    for (int h : {2, 3, 5, 7}) world.busy(h, 8);
    const Allocation running_ring{{2, 5}, {8, 8}};
    sharing.add(0, demand_of(bundles, running_ring), changed);
  }
  World world;
  UplinkBundles bundles{world.index, UplinkRouting::Static, &world.fabric};
  BandwidthSharing sharing{bundles};
  std::vector<int> changed;
};

TEST_F(TwoGroups, SplitRingTakesTheHostsWhoseCablesAreFree) {
  // Three hosts need both groups. Blind to the running ring, the selector takes a plan
  // whose ring sends towards host 0 or 4 from the other group: cable 0, which the running
  // ring's 5 -> 2 (leaf-02 up, leaf-01 down) already fills, so both get half: rho 0.5.
  FabricfitSelector blind;
  const auto plain = blind.decide(world.ctx(), ring_of(3));
  ASSERT_TRUE(plain);
  EXPECT_DOUBLE_EQ(sharing.rho_if_added(demand_of(bundles, plain->chosen.allocation)), 0.5);

  // Beside it: leaf-02 gives 4 and 6, leaf-01 gives host 1, so the ring 1 -> 4 -> 6 -> 1
  // sends 1 -> 4 on cable 0 out of leaf-01 and into leaf-02, and 6 -> 1 on cable 1 out of
  // leaf-02 and into leaf-01: none of them the running ring's. rho 1.
  const auto d = decide_beside(world, bundles, sharing, ring_of(3));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->chosen.allocation.hosts, (std::vector<int>{1, 4, 6}));
  EXPECT_DOUBLE_EQ(sharing.rho_if_added(demand_of(bundles, d->chosen.allocation)), 1.0);
}

TEST_F(TwoGroups, InsideOneGroupNothingChanges) {
  // Two hosts fit leaf-01 (0, 1): no traffic leaves it, whatever runs beside.
  FabricfitSelector blind;
  const auto d = decide_beside(world, bundles, sharing, ring_of(2));
  const auto plain = blind.decide(world.ctx(), ring_of(2));
  ASSERT_TRUE(d && plain);
  EXPECT_EQ(d->chosen.allocation.hosts, plain->chosen.allocation.hosts);
}

TEST(SelectorRunning, SplitRingTakesTheGroupsWhoseCablesAreFree) {
  // Three groups with one free host each (0, 4, 9): a 2-host ring needs two of them and
  // no group leaves a choice of host. Hosts 2 and 7 run a ring: 2 -> 7 on cable 1
  // (leaf-01 up, leaf-02 down), 7 -> 2 on cable 0 (leaf-02 up, leaf-01 down). The cheapest
  // plan by cost and index, {0, 4}, sends 4 -> 0 on leaf-02's up cable 0: rho 0.5. {0, 9}
  // sends 0 -> 9 on leaf-01's up cable 1: rho 0.5. {4, 9} sends 4 -> 9 on cable 1 (leaf-02
  // up, leaf-03 down) and 9 -> 4 on cable 0 (leaf-03 up, leaf-02 down): free, rho 1.
  World w(FixtureSpec{.leaf_groups = 3, .hosts_per_leaf = 4, .uplinks = 2});
  for (int h : {1, 2, 3, 5, 6, 7, 8, 10, 11}) w.busy(h, 8);
  const UplinkBundles bundles(w.index, UplinkRouting::Static, &w.fabric);
  BandwidthSharing sharing(bundles);
  std::vector<int> changed;
  sharing.add(0, demand_of(bundles, Allocation{{2, 7}, {8, 8}}), changed);

  FabricfitSelector blind;
  const auto plain = blind.decide(w.ctx(), ring_of(2));
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->chosen.allocation.hosts, (std::vector<int>{0, 4}));
  EXPECT_DOUBLE_EQ(sharing.rho_if_added(demand_of(bundles, plain->chosen.allocation)), 0.5);

  const auto d = decide_beside(w, bundles, sharing, ring_of(2));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->chosen.allocation.hosts, (std::vector<int>{4, 9}));
  EXPECT_DOUBLE_EQ(sharing.rho_if_added(demand_of(bundles, d->chosen.allocation)), 1.0);
}

TEST(SelectorRunning, NoSingleSwapOfInterchangeableHostsLeavesTheJobMore) {
  // Random states of three groups of 8 hosts with two cables each and three rings
  // running: once steered, swapping any one host of a split ring for an interchangeable
  // free one of its group (the group's hosts ranked ascending again) never raises the job's
  // share. A swap onto the same cable can: it may change which host comes first.
  World base(FixtureSpec{.leaf_groups = 3, .hosts_per_leaf = 8, .uplinks = 2});
  const UplinkBundles bundles(base.index, UplinkRouting::Static, &base.fabric);
  std::mt19937 rng(11);
  int checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    World w(FixtureSpec{.leaf_groups = 3, .hosts_per_leaf = 8, .uplinks = 2});
    BandwidthSharing sharing(bundles);
    std::vector<int> changed;
    for (int j = 0; j < 3; ++j) {
      const int a = static_cast<int>(rng() % 24), b = static_cast<int>(rng() % 24);
      if (a / 8 == b / 8) continue;
      sharing.add(j, demand_of(bundles, Allocation{{std::min(a, b), std::max(a, b)}, {8, 8}}), changed);
      w.busy(a, 8);
      w.busy(b, 8);
    }
    for (int h = 0; h < 24; ++h) {
      if (rng() % 3 == 0) w.busy(h, 8);
    }
    const auto d = decide_beside(w, bundles, sharing, ring_of(3 + static_cast<int>(rng() % 6)));
    if (!d || d->chosen.score.leaf_groups < 2) continue;
    const auto& a = d->chosen.allocation;
    const double rho = sharing.rho_if_added(demand_of(bundles, a));
    ++checked;
    for (std::size_t i = 0; i < a.hosts.size(); ++i) {
      const int g = w.index.leaf_group_of(a.hosts[i]);
      for (int c : w.index.hosts_of(g)) {
        if (!w.gpus.whole_free(c) || std::ranges::find(a.hosts, c) != a.hosts.end()) continue;
        Allocation swapped = a;
        swapped.hosts[i] = c;
        std::size_t first = i, last = i + 1;
        while (first > 0 && w.index.leaf_group_of(swapped.hosts[first - 1]) == g) --first;
        while (last < a.hosts.size() && w.index.leaf_group_of(swapped.hosts[last]) == g) ++last;
        std::sort(swapped.hosts.begin() + static_cast<long>(first),
                  swapped.hosts.begin() + static_cast<long>(last));
        EXPECT_LE(sharing.rho_if_added(demand_of(bundles, swapped)), rho + 1e-9) << "trial " << trial;
      }
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(SelectorRunning, EcmpOrNothingRunningDecidesAsBlind) {
  // Random states of a 2:1 fabric: with nothing running (static) or under ECMP with one
  // ring running, no plan or host can leave the job a larger share than the cheapest, so
  // the steered decision is the blind one.
  World base(FixtureSpec{.leaf_groups = 4, .hosts_per_leaf = 8, .uplinks = 4});
  const UplinkBundles pinned(base.index, UplinkRouting::Static, &base.fabric);
  const UplinkBundles ecmp(base.index, UplinkRouting::Ecmp, &base.fabric);
  BandwidthSharing idle(pinned), one(ecmp);
  std::vector<int> changed;
  one.add(0, demand_of(ecmp, Allocation{{0, 8}, {8, 8}}), changed);
  std::mt19937 rng(7);
  int split = 0;
  for (int trial = 0; trial < 200; ++trial) {
    World w(FixtureSpec{.leaf_groups = 4, .hosts_per_leaf = 8, .uplinks = 4});
    for (int h = 0; h < w.index.host_count(); ++h) {
      if (rng() % 3 == 0) w.busy(h, 8);
    }
    const JobRequest job = ring_of(2 + static_cast<int>(rng() % 6));
    FabricfitSelector blind;
    const auto plain = blind.decide(w.ctx(), job);
    for (const BandwidthSharing* s : {&idle, &one}) {
      const auto d = decide_beside(w, s == &idle ? pinned : ecmp, *s, job);
      ASSERT_EQ(d.has_value(), plain.has_value());
      if (!d) continue;
      split += d->chosen.score.leaf_groups > 1 ? 1 : 0;
      if (s == &idle) EXPECT_EQ(d->chosen.allocation.hosts, plain->chosen.allocation.hosts) << trial;
      // One ring at a host's line rate fits any ECMP bundle of four uplinks: nothing to steer by.
      if (s == &one) EXPECT_EQ(d->chosen.allocation.hosts, plain->chosen.allocation.hosts) << trial;
    }
  }
  EXPECT_GT(split, 20);  // the property was tested on split placements
}

}  // namespace
