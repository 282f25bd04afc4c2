// SPDX-License-Identifier: GPL-2.0-or-later
// The run-time model (docs/placement.md, "Run-time model"): demands, max-min sharing and
// slowdowns computed by hand, and the replay's progress-based engine on a trace small
// enough to follow event by event.
#include <gtest/gtest.h>

#include <optional>

#include "fabric_fixture.hpp"
#include "placement/runtime/runtime_model.hpp"
#include "replay/replay.hpp"

using namespace fabricfit;
using fabricfit::testing::degrade_uplink;
using fabricfit::testing::FixtureSpec;
using fabricfit::testing::make_fabric;

namespace {

std::vector<BundleDemand> ring_demand(const UplinkBundles& b, std::vector<int> hosts) {
  const std::vector<int> gpus(hosts.size(), 8);
  return b.demand(TrafficMatrix::build(CommPattern{PatternKind::Ring}, gpus), hosts);
}

TEST(RuntimeModel, FairLevelByHand) {
  // 200 over {50, 100, 200}: 50 is served whole, the other two split the 150 left.
  std::vector<double> d{200, 50, 100};
  EXPECT_DOUBLE_EQ(fair_level(d, 200), 75.0);
  std::vector<double> fits{100, 100};
  EXPECT_TRUE(std::isinf(fair_level(fits, 200)));
  EXPECT_DOUBLE_EQ(slowdown(0.5, 2.0 / 3, DemandMode::Peak), 1.25);         // (1 - 0.5) + 0.5 x 1.5
  EXPECT_DOUBLE_EQ(slowdown(0.5, 2.0 / 3, DemandMode::TimeAveraged), 1.5);  // the whole run: 1 / rho
  for (const DemandMode mode : {DemandMode::Peak, DemandMode::TimeAveraged}) {
    EXPECT_DOUBLE_EQ(slowdown(0, 0.1, mode), 1.0);  // one-host jobs never slow down
    EXPECT_DOUBLE_EQ(slowdown(0.3, 1.0, mode), 1.0);
  }
}

TEST(RuntimeModel, RingAcrossTwoGroupsDrivesOneHostsLineRate) {
  // A 2-host ring of 16 ranks: each host sends 2 x 15/16 = 1.875 per unit, all of it across;
  // scaled to 200 Gb/s per host, each group's bundle carries 200 Gb/s each way.
  const Fabric f = make_fabric(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4});
  const LocalityIndex index(f);
  const UplinkBundles b(index);
  EXPECT_EQ(b.count(), 4);
  EXPECT_DOUBLE_EQ(b.capacity_gbps(0), 800.0);  // 4 uplinks x 200
  EXPECT_DOUBLE_EQ(b.host_gbps(0), 200.0);
  const auto d = ring_demand(b, {0, 4});
  ASSERT_EQ(d.size(), 4u);
  for (const auto& x : d) EXPECT_NEAR(x.gbps, 200.0, 1e-9) << b.name(x.bundle);
  EXPECT_TRUE(ring_demand(b, {0, 1}).empty());  // one leaf group: no uplink
}

TEST(RuntimeModel, SharedBundleByHand) {
  // 2:1: 2 uplinks, 400 Gb/s per group and direction. Three split 2-host rings at peak
  // want 3 x 200: level 400/3, rho = 2/3 each; with f = 0.5, s = 1.25.
  const Fabric f = make_fabric(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4, .uplinks = 2});
  const LocalityIndex index(f);
  const UplinkBundles b(index);
  BandwidthSharing sharing(b);
  std::vector<int> changed;
  const auto a = ring_demand(b, {0, 4}), bb = ring_demand(b, {1, 5}), c = ring_demand(b, {2, 6});
  sharing.add(0, a, changed);
  sharing.add(1, bb, changed);
  EXPECT_DOUBLE_EQ(sharing.rho(a), 1.0);  // 400 fits 400
  EXPECT_EQ(sharing.over_capacity(), 0);
  EXPECT_NEAR(sharing.rho_if_added(c), 2.0 / 3, 1e-12);
  changed.clear();
  sharing.add(2, c, changed);
  EXPECT_EQ(changed.size(), 4u);
  EXPECT_EQ(sharing.over_capacity(), 4);
  for (const auto* d : {&a, &bb, &c}) {
    EXPECT_NEAR(sharing.rho(*d), 2.0 / 3, 1e-12);
    EXPECT_NEAR(slowdown(0.5, sharing.rho(*d), DemandMode::Peak), 1.25, 1e-12);
  }
  changed.clear();
  sharing.remove(2, c, changed);
  EXPECT_DOUBLE_EQ(sharing.rho(a), 1.0);
  EXPECT_EQ(sharing.over_capacity(), 0);
}

TEST(RuntimeModel, DegradedBundleByHand) {
  // All-to-all over 4 + 4 hosts of 8 GPUs: R = 64, each group sends 32 x 32/64 = 16 and
  // each host 8 x 56/64 = 7 per unit; at 200 Gb/s per host the bundle wants 16/7 x 200 =
  // 457.1 Gb/s. Healthy (800): rho 1. One of 4 uplinks at 100: ECMP spreads evenly, so
  // 4 x 100 = 400: rho = 400 x 7/3200 = 0.875, and with f = 0.5 s = 0.5 + 0.5/0.875.
  Fabric f = make_fabric(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4});
  const std::vector<int> hosts{0, 1, 2, 3, 4, 5, 6, 7}, gpus(8, 8);
  const auto traffic = TrafficMatrix::build(CommPattern{PatternKind::AllToAll}, gpus);
  {
    const LocalityIndex index(f);
    const UplinkBundles b(index);
    const auto d = b.demand(traffic, hosts);
    EXPECT_NEAR(d.front().gbps, 3200.0 / 7, 1e-9);
    EXPECT_DOUBLE_EQ(BandwidthSharing(b).rho_if_added(d), 1.0);
  }
  degrade_uplink(f, 0, 100);
  const LocalityIndex index(f);
  const UplinkBundles b(index);
  EXPECT_DOUBLE_EQ(b.capacity_gbps(0), 400.0);
  const auto d = b.demand(traffic, hosts);
  const double rho = BandwidthSharing(b).rho_if_added(d);
  EXPECT_NEAR(rho, 0.875, 1e-12);
  EXPECT_NEAR(slowdown(0.5, rho, DemandMode::Peak), 0.5 + 0.5 / 0.875, 1e-12);

  // Static routes: each destination host of the other group receives 32 x 8/64 = 4 per
  // unit (114.3 Gb/s) on cable (host mod 4); host 4 lands on cable 0, the slow one.
  const UplinkBundles pinned(index, UplinkRouting::Static);
  EXPECT_EQ(pinned.count(), 2 * 2 * 4);
  EXPECT_DOUBLE_EQ(pinned.capacity_gbps(0), 100.0);
  EXPECT_DOUBLE_EQ(pinned.capacity_gbps(2), 200.0);
  EXPECT_NEAR(BandwidthSharing(pinned).rho_if_added(pinned.demand(traffic, hosts)), 0.875, 1e-12);
}

TEST(RuntimeModel, StaticRoutesCollide) {
  // 2:1 static: two cables per group. Rings 0-4 and 1-6 send to hosts 4 and 6 (both cable
  // 0 of leaf-01) and back to hosts 0 and 1 (cables 0 and 1 of leaf-02): they collide on
  // leaf-01's cable 0 (400 wanted of 200) while cable 1 idles. ECMP would not slow them.
  const Fabric f = make_fabric(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4, .uplinks = 2});
  const LocalityIndex index(f);
  const UplinkBundles pinned(index, UplinkRouting::Static), ecmp(index);
  for (const auto* b : {&pinned, &ecmp}) {
    BandwidthSharing s(*b);
    std::vector<int> changed;
    const auto x = ring_demand(*b, {0, 4}), y = ring_demand(*b, {1, 6});
    s.add(0, x, changed);
    s.add(1, y, changed);
    EXPECT_DOUBLE_EQ(s.rho(x), b == &pinned ? 0.5 : 1.0);
  }
}

// Places the jobs on the hosts given, in the order place() is called.
class ScriptedPolicy final : public PlacementPolicy {
 public:
  explicit ScriptedPolicy(std::vector<std::vector<int>> hosts) : hosts_(std::move(hosts)) {}
  [[nodiscard]] std::string name() const override { return "scripted"; }
  std::optional<Allocation> place(const PlacementContext&, const JobRequest& r) override {
    if (next_ >= hosts_.size()) return std::nullopt;
    Allocation a{hosts_[next_++], {}};
    a.gpus.assign(a.hosts.size(), r.gpus_per_node);
    return a;
  }

 private:
  std::vector<std::vector<int>> hosts_;
  std::size_t next_ = 0;
};

TEST(RuntimeModel, ReplayProgressByHand) {
  // The shared bundle above, in time: A and B (100 s) and C (40 s) start at 0, each split.
  // All three at s = 1.25 until C ends at 50; A and B then have 100 - 50/1.25 = 60 s of
  // work left at full pace: they end at 110.
  const Fabric f = make_fabric(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4, .uplinks = 2});
  const LocalityIndex index(f);
  const std::vector<TraceJob> jobs = {
      {.id = "A", .submit_s = 0, .duration_s = 100, .nodes = 2, .gpus_per_node = 8},
      {.id = "B", .submit_s = 0, .duration_s = 100, .nodes = 2, .gpus_per_node = 8},
      {.id = "C", .submit_s = 0, .duration_s = 40, .nodes = 2, .gpus_per_node = 8}};
  const FragModel frag(workload_mix_of(jobs), 8, 4);
  ReplayOptions options;
  options.model.comm_shares = {0.5};
  options.model.demand = DemandMode::Peak;
  ScriptedPolicy peak_policy({{0, 4}, {1, 5}, {2, 6}});
  const auto peak = replay_trace(index, jobs, peak_policy, frag, options);
  EXPECT_DOUBLE_EQ(peak.makespan_s, 110.0);
  EXPECT_DOUBLE_EQ(peak.classes[0].jct_mean_s, (110.0 + 110 + 50) / 3);
  EXPECT_NEAR(peak.classes[0].gpu_hours, 16 * (110.0 + 110 + 50) / 3600, 1e-9);
  EXPECT_DOUBLE_EQ(peak.uplink_over_capacity_s, 4 * 50.0);  // 4 bundle directions for 50 s
  EXPECT_NEAR(peak.classes[0].bounded_slowdown_mean, (1.1 + 1.1 + 1.25) / 3, 1e-12);
  // Each alone (JobRun::alone_s): fabricfit holds a 2-host job in one leaf group, where no
  // uplink slows it: its duration, where beside the others it ran 110 and 50 s.
  options.keep_runs = true;
  ScriptedPolicy again({{0, 4}, {1, 5}, {2, 6}});
  const auto kept = replay_trace(index, jobs, again, frag, options);
  ASSERT_EQ(kept.runs.size(), 3u);
  for (const JobRun& run : kept.runs) {
    EXPECT_DOUBLE_EQ(run.alone_s, jobs[run.job].duration_s) << jobs[run.job].id;
    EXPECT_DOUBLE_EQ(run.end_s - run.start_s, run.job == 2 ? 50.0 : 110.0) << jobs[run.job].id;
  }
  options.keep_runs = false;

  // Time-averaged, the three want 3 x 100 of 400: nobody slows down.
  options.model.demand = DemandMode::TimeAveraged;
  ScriptedPolicy avg_policy({{0, 4}, {1, 5}, {2, 6}});
  const auto avg = replay_trace(index, jobs, avg_policy, frag, options);
  EXPECT_DOUBLE_EQ(avg.makespan_s, 100.0);
  EXPECT_DOUBLE_EQ(avg.uplink_over_capacity_s, 0.0);
}

TEST(RuntimeModel, AWideJobsRunAloneIsWhatItsOwnTrafficLeavesIt) {
  // JobRun::alone_s (--per-job's alone_s): the job on the hosts fabricfit gives it on an
  // empty cluster, with no traffic but its own (jobs one group holds: ReplayProgressByHand).
  ReplayOptions options;
  options.model.comm_shares = {0.5};
  options.model.demand = DemandMode::Peak;
  options.keep_runs = true;
  // A 6-host ring no group holds, alone on a fabric whose group 0 has one uplink at 100
  // Gb/s: its two crossing edges want 200 Gb/s each way of 100, rho = 0.5, s = 0.5 + 0.5 /
  // 0.5 = 1.5: alone_s is 150, and so is its run, alone in the replay on fabricfit's hosts.
  Fabric thin = make_fabric(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4, .uplinks = 1});
  degrade_uplink(thin, 0, 100);
  const LocalityIndex thin_index(thin);
  const std::vector<TraceJob> wide = {
      {.id = "D", .submit_s = 0, .duration_s = 100, .nodes = 6, .gpus_per_node = 8}};
  const FragModel wide_frag(workload_mix_of(wide), 8, 4);
  auto fabricfit = make_policy("fabricfit");
  const auto w = replay_trace(thin_index, wide, *fabricfit, wide_frag, options);
  ASSERT_EQ(w.runs.size(), 1u);
  EXPECT_DOUBLE_EQ(w.runs[0].alone_s, 150.0);
  EXPECT_DOUBLE_EQ(w.runs[0].end_s - w.runs[0].start_s, 150.0);
  // A fault still open when the replay ends does not price it: group 0's cable at half
  // (50 Gb/s) for longer than the run slows the run (rho 0.25, s = 2.5: 250 s), and
  // alone_s stays the fabric's as given.
  options.fault_episodes = {{FaultKind::Slow, FaultTarget::Uplink, 0, 0, 1e6}};
  auto again = make_policy("fabricfit");
  const auto slowed = replay_trace(thin_index, wide, *again, wide_frag, options);
  ASSERT_EQ(slowed.runs.size(), 1u);
  EXPECT_DOUBLE_EQ(slowed.runs[0].end_s - slowed.runs[0].start_s, 250.0);
  EXPECT_DOUBLE_EQ(slowed.runs[0].alone_s, 150.0);
}

TEST(RuntimeModel, TimeAveragedDemandConservesBytes) {
  // 2 groups of 8 hosts, 3 uplinks each (8:3, 2.67:1): 600 Gb/s per group and direction.
  // Eight 2-host rings split over the groups (hosts i and 8 + i) each want one host's line
  // rate, 200 Gb/s, at peak, so 100 Gb/s on average at f = 0.5: 800 of 600, rho = 3/4.
  // Stretching only the communication half, s = 0.5 + 0.5 x 4/3 = 7/6, would have the
  // bundle deliver 8 x 100 / (7/6) = 686 Gb/s of its 600: capacity needs s >= 800/600.
  const Fabric f = make_fabric(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 8, .uplinks = 3});
  const LocalityIndex index(f);
  const UplinkBundles b(index);
  ASSERT_DOUBLE_EQ(b.capacity_gbps(0), 600.0);
  BandwidthSharing sharing(b);
  std::vector<int> changed;
  std::vector<std::vector<BundleDemand>> rings;
  for (int i = 0; i < 8; ++i) {
    rings.push_back(ring_demand(b, {i, 8 + i}));
    for (BundleDemand& d : rings.back()) d.gbps *= 0.5;  // time-averaged: peak x f
    sharing.add(i, rings.back(), changed);
  }
  double delivered = 0;  // on leaf group 0's up direction
  for (const auto& ring : rings) {
    const double rho = sharing.rho(ring);
    EXPECT_NEAR(rho, 0.75, 1e-12);
    const double s = slowdown(0.5, rho, DemandMode::TimeAveraged);
    EXPECT_NEAR(s, 4.0 / 3, 1e-12);
    for (const BundleDemand& d : ring)
      delivered += d.bundle == 0 ? d.gbps / s : 0.0;  // its bytes over its run
  }
  EXPECT_NEAR(delivered, 600.0, 1e-9);  // the bundle full, not over

  // In time: eight 100 s jobs end together at 100 x 4/3 s. Each moved its 200 x 0.5 x 100
  // Gb of group 0's uplinks in that time: 8 x 10,000 Gb / 133.3 s = 600 Gb/s.
  std::vector<TraceJob> jobs;
  std::vector<std::vector<int>> placements;
  for (int i = 0; i < 8; ++i) {
    jobs.push_back({.id = std::string(1, static_cast<char>('A' + i)),
                    .submit_s = 0,
                    .duration_s = 100,
                    .nodes = 2,
                    .gpus_per_node = 8});
    placements.push_back({i, 8 + i});
  }
  const FragModel frag(workload_mix_of(jobs), 8, 8);
  ReplayOptions options;
  options.model.comm_shares = {0.5};
  options.model.demand = DemandMode::TimeAveraged;
  ScriptedPolicy policy(placements);
  const auto avg = replay_trace(index, jobs, policy, frag, options);
  EXPECT_NEAR(avg.makespan_s, 400.0 / 3, 1e-9);
  EXPECT_NEAR(avg.classes[0].jct_mean_s, 400.0 / 3, 1e-9);
}

TEST(RuntimeModel, CommShareFromTraceElseDrawn) {
  TraceJob one{.id = "x", .nodes = 1, .gpus_per_node = 8};
  TraceJob kalos{.id = "k", .nodes = 4, .gpus_per_node = 8, .comm_share = 0.6};
  EXPECT_DOUBLE_EQ(comm_share_of(one, {0.1, 0.3, 0.5}, 1), 0.0);
  EXPECT_DOUBLE_EQ(comm_share_of(kalos, {0.1, 0.3, 0.5}, 1), 0.6);
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < 3000; ++i) {
    TraceJob j{.id = std::to_string(i), .nodes = 2, .gpus_per_node = 8};
    const double f = comm_share_of(j, {0.1, 0.3, 0.5}, 7);
    EXPECT_DOUBLE_EQ(f, comm_share_of(j, {0.1, 0.3, 0.5}, 7));  // deterministic per seed
    counts[f < 0.2 ? 0 : f < 0.4 ? 1 : 2]++;
  }
  for (int c : counts) EXPECT_NEAR(c / 3000.0, 1.0 / 3, 0.04);
}

}  // namespace
