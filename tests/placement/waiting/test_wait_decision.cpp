// SPDX-License-Identifier: GPL-2.0-or-later
// The adaptive locality wait as the controller asks it (placement/waiting/wait_decision.hpp),
// with hand-computed numbers (docs/placement.md, "Adaptive locality wait in Slurm").
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "fabric_fixture.hpp"
#include "placement/traffic_matrix.hpp"
#include "placement/waiting/wait_decision.hpp"

using namespace fabricfit;
using fabricfit::testing::FixtureSpec;
using fabricfit::testing::make_fabric;

namespace {

// Two leaf groups of 4 hosts (8 GPUs each), each group with ONE 200 Gb/s uplink (4:1).
// Now = 1000. Group 0: hosts 0, 1 free, hosts 2, 3 busy until 1060 (their jobs' time
// limits). Group 1: hosts 4, 5 free, 6, 7 busy until 2800. A 4-host alltoall job can
// only be split now: {0, 1, 4, 5}.
//
// Slowdown now, by hand: 32 ranks, a host sends 8 x 24 / 32 = 6 units, scaled to its
// 200 Gb/s line rate (x 200/6). Group 0 -> group 1: 2 x 2 host pairs x 8 x 8 / 32 = 8
// units = 266.7 Gb/s on a 200 Gb/s uplink: rho = 0.75. With f = 0.5,
// s = 0.5 + 0.5 / 0.75 = 7/6. Group 0 is expected whole at 1060: a wait of 60 s.
struct Cluster {
  Fabric fabric = make_fabric(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4, .gbps = 200, .uplinks = 1});
  LocalityIndex index{fabric};
  UplinkBundles bundles{index};
  GpuState gpus = [] {
    GpuState g = GpuState::uniform(8, 8);
    for (int h : {2, 3, 6, 7}) g.free[h] = 0;
    return g;
  }();
  std::vector<double> free_at{0, 0, 1060, 1060, 0, 0, 2800, 2800};
  Allocation now{{0, 1, 4, 5}, {8, 8, 8, 8}};
  CommPattern alltoall = parse_comm_pattern("alltoall");

  WaitDecision ask(double time_limit_s, double eligible = 1000, double cap_s = 3600, double f = 0.5,
                   const Allocation* placed = nullptr) const {
    const WaitFacts facts{
        .now = 1000, .eligible = eligible, .time_limit_s = time_limit_s, .comm_share = f, .cap_s = cap_s};
    return decide_locality_wait(index, bundles, gpus, free_at, {}, alltoall, 8, placed ? *placed : now,
                                facts);
  }
};

TEST(WaitDecision, AWaitThatPays) {
  const Cluster c;
  // Time limit 600 s: gain = 600 x (7/6 - 1) = 100 s > 60 s of expected wait.
  const WaitDecision d = c.ask(600);
  EXPECT_EQ(d.verdict, WaitVerdict::Waits);
  EXPECT_TRUE(d.wait);
  EXPECT_NEAR(d.slowdown_now, 7.0 / 6.0, 1e-9);
  EXPECT_NEAR(d.gain_s, 100, 1e-9);
  EXPECT_DOUBLE_EQ(d.expected_wait_s, 60);
  EXPECT_DOUBLE_EQ(d.ready_at, 1060);
  EXPECT_DOUBLE_EQ(d.until, 1060);
  EXPECT_EQ(d.leaf_group, 0);
  EXPECT_EQ(d.hosts, (std::vector<int>{0, 1, 2, 3}));  // free now first, then by free time
}

// The same cluster with NVLink domains: nvl0 = hosts 0-2 and nvl1 = host 3 under group 0,
// nvl2 = 4-5 and nvl3 = 6-7 under group 1. Asking --segment=2, the job needs 2 hosts of one
// domain twice: group 0 never gives that (nvl0 one segment, nvl1 none), so the wait is for
// group 1, at 2800: 1800 s of expected wait for 100 s of gain.
TEST(WaitDecision, SegmentsMustFitTheGroupsDomains) {
  Cluster c;
  set_nvlink_domains(c.fabric, {{"nvl0", {0, 1, 2}}, {"nvl1", {3}}, {"nvl2", {4, 5}}, {"nvl3", {6, 7}}});
  const LocalityIndex index(c.fabric);
  const UplinkBundles bundles(index);
  WaitFacts facts{.now = 1000, .eligible = 1000, .time_limit_s = 600, .comm_share = 0.5, .cap_s = 3600};
  WaitDecision d = decide_locality_wait(index, bundles, c.gpus, c.free_at, {}, c.alltoall, 8, c.now, facts);
  EXPECT_EQ(d.verdict, WaitVerdict::Waits);  // no segment: any 4 hosts of group 0, at 1060
  EXPECT_EQ(d.leaf_group, 0);
  facts.segment_nodes = 2;
  d = decide_locality_wait(index, bundles, c.gpus, c.free_at, {}, c.alltoall, 8, c.now, facts);
  EXPECT_EQ(d.verdict, WaitVerdict::WaitTooLong);
  EXPECT_FALSE(d.wait);
  EXPECT_EQ(d.leaf_group, 1);
  EXPECT_DOUBLE_EQ(d.ready_at, 2800);
}

TEST(WaitDecision, AWaitThatDoesNotPay) {
  const Cluster c;
  // Time limit 300 s: gain = 50 s < 60 s: start split now.
  const WaitDecision d = c.ask(300);
  EXPECT_EQ(d.verdict, WaitVerdict::WaitTooLong);
  EXPECT_FALSE(d.wait);
  EXPECT_NEAR(d.gain_s, 50, 1e-9);
  EXPECT_DOUBLE_EQ(d.expected_wait_s, 60);
  EXPECT_TRUE(d.hosts.empty());
  // f = 0.3: s = 0.7 + 0.3 / 0.75 = 1.1, gain = 600 x 0.1 = 60 s, not more than 60 s.
  const WaitDecision tie = c.ask(600, 1000, 3600, 0.3);
  EXPECT_NEAR(tie.gain_s, 60, 1e-9);
  EXPECT_FALSE(tie.wait);
}

TEST(WaitDecision, AWaitCutAtTheCap) {
  const Cluster c;
  // Eligible at -2570 with a 3600 s cap: 30 s of the cap left, the group needs 60 s:
  // it waits, but only until the cap (1030), never past it.
  WaitDecision d = c.ask(600, 1000 - 3570);
  EXPECT_TRUE(d.wait);
  EXPECT_DOUBLE_EQ(d.until, 1030);
  EXPECT_DOUBLE_EQ(d.ready_at, 1060);
  // At the cap: no more waiting, though the wait would still pay.
  d = c.ask(600, 1000 - 3600);
  EXPECT_FALSE(d.wait);
  EXPECT_EQ(d.verdict, WaitVerdict::CapReached);
  // LocalityWaitMax=0: never.
  EXPECT_EQ(c.ask(600, 1000, 0).verdict, WaitVerdict::Disabled);
}

TEST(WaitDecision, NothingToWaitFor) {
  const Cluster c;
  const Allocation one_group{{4, 5, 6, 7}, {8, 8, 8, 8}};
  EXPECT_EQ(c.ask(600, 1000, 3600, 0.5, &one_group).verdict, WaitVerdict::OneGroup);
  const Allocation one_host{{0}, {8}};
  EXPECT_EQ(c.ask(600, 1000, 3600, 0.5, &one_host).verdict, WaitVerdict::NotCandidate);
  // No finite time limit: no predicted duration.
  EXPECT_EQ(c.ask(0).verdict, WaitVerdict::NoTimeLimit);
  EXPECT_EQ(c.ask(std::numeric_limits<double>::infinity()).verdict, WaitVerdict::NoTimeLimit);
  // 1:1 uplinks (4 per group): 266.7 Gb/s fits in 800, s = 1, nothing to gain.
  Cluster wide;
  wide.fabric = make_fabric(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4, .gbps = 200});
  const LocalityIndex index(wide.fabric);
  const UplinkBundles bundles(index);
  const WaitFacts facts{.now = 1000, .eligible = 1000, .time_limit_s = 600, .comm_share = 0.5, .cap_s = 3600};
  const WaitDecision d =
      decide_locality_wait(index, bundles, wide.gpus, wide.free_at, {}, wide.alltoall, 8, wide.now, facts);
  EXPECT_EQ(d.verdict, WaitVerdict::NoGain);
  EXPECT_DOUBLE_EQ(d.slowdown_now, 1.0);
}

// A job wider than every group waits for the fewest groups. 3 groups of 6 hosts (8 GPUs),
// one 200 Gb/s uplink each; now = 1000. Group 0: hosts 0-2 free, 3-5 busy until 1060;
// groups 1 and 2: 6-8 and 12-13 free, the rest until 2800. An 8-host alltoall job (64
// ranks: 1 unit a host pair, 7 a host, so 200/7 Gb/s a unit) can only be spread 3|3|2 now:
// a group of 3 sends 3 x 5 = 15 units up, rho = 7/15, s = 0.5 + 0.5 x 15/7 = 11/7. At 1060
// groups 0 and 1 hold it 6|2: 6 x 2 = 12 units each way, rho = 7/12, s = 19/14. The gain
// is the limit x 3/14, against 60 s of wait.
TEST(WaitDecision, AWideJobWaitsForTheFewestGroups) {
  const Fabric fabric =
      make_fabric(FixtureSpec{.leaf_groups = 3, .hosts_per_leaf = 6, .gbps = 200, .uplinks = 1});
  const LocalityIndex index(fabric);
  const UplinkBundles bundles(index);
  GpuState gpus = GpuState::uniform(18, 8);
  std::vector<double> free_at(18, 0);
  for (int h : {3, 4, 5}) {
    gpus.free[h] = 0;
    free_at[h] = 1060;
  }
  for (int h : {9, 10, 11, 14, 15, 16, 17}) {
    gpus.free[h] = 0;
    free_at[h] = 2800;
  }
  const Allocation spread{{0, 1, 2, 6, 7, 8, 12, 13}, std::vector<int>(8, 8)};
  const CommPattern alltoall = parse_comm_pattern("alltoall");
  WaitFacts facts{.now = 1000, .eligible = 1000, .time_limit_s = 600, .comm_share = 0.5, .cap_s = 3600};
  WaitDecision d = decide_locality_wait(index, bundles, gpus, free_at, {}, alltoall, 8, spread, facts);
  EXPECT_EQ(d.verdict, WaitVerdict::Waits);
  EXPECT_NEAR(d.slowdown_now, 11.0 / 7.0, 1e-9);
  EXPECT_NEAR(d.gain_s, 600 * 3.0 / 14.0, 1e-6);
  EXPECT_DOUBLE_EQ(d.ready_at, 1060);
  EXPECT_EQ(d.leaf_group, 0);
  EXPECT_EQ(d.leaf_groups, 2);
  EXPECT_EQ(d.hosts, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  // Hosts 3-5 not usable (drained, another partition): the fewest groups the usable hosts
  // give is 3, as now: nothing to wait for.
  std::vector<std::uint8_t> usable(18, 1);
  for (int h : {3, 4, 5}) usable[h] = 0;
  for (int h : {9, 10, 11, 14, 15, 16, 17}) usable[h] = 0;
  EXPECT_EQ(decide_locality_wait(index, bundles, gpus, free_at, usable, alltoall, 8, spread, facts).verdict,
            WaitVerdict::FewestGroups);
  // A 200 s limit gains 42.9 s, less than the 60 s wait.
  facts.time_limit_s = 200;
  d = decide_locality_wait(index, bundles, gpus, free_at, {}, alltoall, 8, spread, facts);
  EXPECT_EQ(d.verdict, WaitVerdict::WaitTooLong);
  // On two groups already (6|2): the fewest it can have.
  const Allocation two{{0, 1, 2, 3, 4, 5, 6, 7}, std::vector<int>(8, 8)};
  EXPECT_EQ(decide_locality_wait(index, bundles, gpus, free_at, {}, alltoall, 8, two, facts).verdict,
            WaitVerdict::FewestGroups);
}

// The controller counts the split jobs running now: alone on 1:1 uplinks the job loses
// nothing, beside three others it gets a fair share of 200 Gb/s of 800 and waits.
TEST(WaitDecision, OtherRunningJobsMakeAWaitPay) {
  Cluster c;
  c.fabric = make_fabric(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4, .gbps = 200});
  const LocalityIndex index(c.fabric);
  const UplinkBundles bundles(index);
  const WaitFacts facts{.now = 1000, .eligible = 1000, .time_limit_s = 600, .comm_share = 0.5, .cap_s = 3600};
  // The running jobs, each with the same demand on every bundle.
  const auto ask = [&](int running, const std::vector<BundleDemand>& each) {
    BandwidthSharing beside(bundles);
    std::vector<int> changed;
    for (int j = 0; j < running; ++j) beside.add(j, each, changed);
    return decide_locality_wait(index, bundles, c.gpus, c.free_at, {}, c.alltoall, 8, c.now, facts, &beside);
  };
  EXPECT_EQ(ask(0, {}).verdict, WaitVerdict::NoGain);

  // The job's own demand: 266.7 Gb/s on each of its bundles (group 0 up and down, group 1
  // up and down; 4 uplinks of 200 Gb/s each, 800 Gb/s a bundle).
  const std::vector<BundleDemand> own =
      bundles.demand(TrafficMatrix::build(c.alltoall, c.now.gpus), c.now.hosts);
  ASSERT_EQ(own.size(), 4u);
  for (const auto& d : own) EXPECT_NEAR(d.gbps, 800.0 / 3.0, 1e-9);
  // Three running jobs at 400 Gb/s on the same bundles: 4 x 200 = 800, so the fair level
  // is 200 Gb/s; rho = 200 / 266.7 = 0.75, s = 0.5 + 0.5 / 0.75 = 7/6, gain = 100 s > 60 s.
  std::vector<BundleDemand> busy = own;
  for (auto& d : busy) d.gbps = 400;
  const WaitDecision d = ask(3, busy);
  EXPECT_EQ(d.verdict, WaitVerdict::Waits);
  EXPECT_NEAR(d.slowdown_now, 7.0 / 6.0, 1e-9);
  EXPECT_NEAR(d.gain_s, 100, 1e-9);
  EXPECT_EQ(d.leaf_group, 0);
  // Two running jobs with the job's own demand: 3 x 266.7 = 800 fits; nothing to gain.
  EXPECT_EQ(ask(2, own).verdict, WaitVerdict::NoGain);
}

TEST(WaitDecision, HostsPastTheirLimitsAndHostsNotUsable) {
  Cluster c;
  // Group 0's busy hosts overran their limits: no expected time. Group 1 is expected at
  // 2800: 1800 s > 100 s of gain.
  c.free_at[2] = c.free_at[3] = 900;
  WaitDecision d = c.ask(600);
  EXPECT_EQ(d.verdict, WaitVerdict::WaitTooLong);
  EXPECT_EQ(d.leaf_group, 1);
  EXPECT_DOUBLE_EQ(d.expected_wait_s, 1800);
  // Hosts the job may not use (another partition) do not count either.
  Cluster p;
  const std::vector<std::uint8_t> usable{1, 1, 0, 1, 1, 1, 1, 1};
  const WaitFacts facts{.now = 1000, .eligible = 1000, .time_limit_s = 600, .comm_share = 0.5, .cap_s = 3600};
  d = decide_locality_wait(p.index, p.bundles, p.gpus, p.free_at, usable, p.alltoall, 8, p.now, facts);
  EXPECT_FALSE(d.wait);
  EXPECT_EQ(d.leaf_group, 1);
}

}  // namespace
