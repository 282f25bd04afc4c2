// SPDX-License-Identifier: GPL-2.0-or-later
// The adaptive locality wait (docs/placement.md, "Adaptive locality wait"): the rule by
// hand, and in the replay a wait that pays, one that does not, and the reservation.
#include <gtest/gtest.h>

#include "fabric_fixture.hpp"
#include "placement/waiting/locality_wait.hpp"
#include "replay/replay.hpp"

using namespace fabricfit;
using fabricfit::testing::degrade_uplink;
using fabricfit::testing::FixtureSpec;
using fabricfit::testing::make_fabric;

namespace {

TEST(LocalityWait, RuleByHand) {
  GroupReadiness target{.leaf_group = 0, .ready_s = 1100, .hosts = {0, 1}, .leaf_groups = {}};
  const LocalityWaitSettings s{.cap_s = 3600, .overestimate = 1};
  // gain = 1000 x (1.25 - 1) = 250 s; ready in 100 s: wait, until the group is ready.
  auto a = advise_locality_wait(1000, 1.25, 1.0, target, 1000, 0, s);
  EXPECT_TRUE(a.wait);
  EXPECT_DOUBLE_EQ(a.gain_s, 250);
  EXPECT_DOUBLE_EQ(a.expected_wait_s, 100);
  EXPECT_DOUBLE_EQ(a.until_s, 1100);
  // Ready in 300 s > 250: start now.
  target.ready_s = 1300;
  EXPECT_FALSE(advise_locality_wait(1000, 1.25, 1.0, target, 1000, 0, s).wait);
  // 3550 s waited of a 3600 s cap: waits, but asks again at the cap.
  target.ready_s = 1100;
  a = advise_locality_wait(1000, 1.25, 1.0, target, 1000, 3550, s);
  EXPECT_TRUE(a.wait);
  EXPECT_DOUBLE_EQ(a.until_s, 1050);
  EXPECT_FALSE(advise_locality_wait(1000, 1.25, 1.0, target, 1000, 3600, s).wait);  // never past the cap
  EXPECT_FALSE(advise_locality_wait(1000, 1.0, 1.0, target, 1000, 0, s).wait);      // nothing to gain
  EXPECT_FALSE(advise_locality_wait(1000, 1.25, 1.0, target, 1000, 0, LocalityWaitSettings{}).wait);  // off
}

TEST(LocalityWait, EarliestGroupByHand) {
  const Fabric f = make_fabric(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 3});
  const LocalityIndex index(f);
  GpuState gpus = GpuState::uniform(6, 8);
  // leaf-01: host 2 free, hosts 0 and 1 busy until 100; leaf-02: host 5 free, 3 and 4 until 300.
  std::vector<double> free_at{100, 100, 0, 300, 300, 0};
  for (int h : {0, 1, 3, 4}) gpus.free[h] = 0;
  const auto g = earliest_group(index, gpus, free_at, 2, 8, 1);
  EXPECT_EQ(g.leaf_group, 0);
  EXPECT_DOUBLE_EQ(g.ready_s, 100);
  EXPECT_EQ(g.hosts, (std::vector<int>{2, 0}));
  EXPECT_EQ(earliest_group(index, gpus, free_at, 4, 8, 1).leaf_group, -1);  // no group holds 4
}

// On NVLink domains a group is ready when its domains hold the job's segments, not when it
// has enough free hosts: 2 groups of 4 hosts, domains of 2 (nvl0 = 0-1, nvl1 = 2-3 under
// leaf-01; nvl2 = 4-5, nvl3 = 6-7 under leaf-02).
TEST(LocalityWait, EarliestGroupCountsSegmentsInDomains) {
  Fabric f = make_fabric(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4});
  set_nvlink_domains(f, {{"nvl0", {0, 1}}, {"nvl1", {2, 3}}, {"nvl2", {4, 5}}, {"nvl3", {6, 7}}});
  const LocalityIndex index(f);
  GpuState gpus = GpuState::uniform(8, 8);
  // leaf-01: hosts 0 and 2 free now, one in each domain; 1 and 3 busy until 400.
  // leaf-02: nvl2's two hosts busy until 100, nvl3's until 400.
  const std::vector<double> free_at{0, 400, 0, 400, 100, 100, 400, 400};
  for (int h : {1, 3, 4, 5, 6, 7}) gpus.free[h] = 0;
  // A 2-host job fits a domain: its one segment is the whole job.
  EXPECT_EQ(wait_segment(index, 0, 2), 2);
  const auto g = earliest_group(index, gpus, free_at, 2, 8, 1, {}, wait_segment(index, 0, 2));
  EXPECT_EQ(g.leaf_group, 1);
  EXPECT_DOUBLE_EQ(g.ready_s, 100);
  EXPECT_EQ(g.hosts, (std::vector<int>{4, 5}));
  // Counting hosts alone, leaf-01 looks ready now, though no domain there holds the job.
  EXPECT_EQ(earliest_group(index, gpus, free_at, 2, 8, 1).leaf_group, 0);
  // 4 hosts in segments of 2: leaf-01 at 400 (nvl0 and nvl1 whole) and leaf-02 at 400 too;
  // the lower group index wins the tie.
  const auto w = earliest_group(index, gpus, free_at, 4, 8, 1, {}, 2);
  EXPECT_EQ(w.leaf_group, 0);
  EXPECT_DOUBLE_EQ(w.ready_s, 400);
  EXPECT_EQ(w.hosts.size(), 4u);
  // Segments that do not divide the job: no group.
  EXPECT_EQ(earliest_group(index, gpus, free_at, 3, 8, 1, {}, 2).leaf_group, -1);
  // Wider than a domain without --segment: single hosts, each in some domain.
  EXPECT_EQ(wait_segment(index, 0, 3), 1);
  EXPECT_EQ(wait_segment(index, 2, 4), 2);
  // A job placed on hosts in no domain waits as on any fabric.
  EXPECT_EQ(wait_segment(index, 2, 4, false), 0);
  // Without domains nothing changes.
  const LocalityIndex plain(make_fabric(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4}));
  EXPECT_EQ(wait_segment(plain, 2, 4), 0);
}

// A job wider than every group: the fewest groups that could hold it, when they first
// do. 3 groups of 4 hosts, domains of 2 (nvl0 = 0-1, nvl1 = 2-3, ..., nvl5 = 10-11).
TEST(LocalityWait, EarliestGroupsForAJobWiderThanAnyGroup) {
  Fabric f = make_fabric(FixtureSpec{.leaf_groups = 3, .hosts_per_leaf = 4});
  set_nvlink_domains(f, {{"nvl0", {0, 1}},
                         {"nvl1", {2, 3}},
                         {"nvl2", {4, 5}},
                         {"nvl3", {6, 7}},
                         {"nvl4", {8, 9}},
                         {"nvl5", {10, 11}}});
  const LocalityIndex index(f);
  EXPECT_EQ(fewest_leaf_groups(index, 4), 1);
  EXPECT_EQ(fewest_leaf_groups(index, 6), 2);
  EXPECT_EQ(fewest_leaf_groups(index, 9), 3);
  EXPECT_EQ(fewest_leaf_groups(index, 13), 4);  // more than the fabric has: never
  GpuState gpus = GpuState::uniform(12, 8);
  // Group 0: 0 and 2 free (one host of each domain), 1 and 3 until 500. Group 1: 4 free,
  // 5-7 until 200. Group 2: 8-9 free, 10-11 until 300.
  std::vector<double> free_at{0, 500, 0, 500, 0, 200, 200, 200, 0, 0, 300, 300};
  for (int h : {1, 3, 5, 6, 7, 10, 11}) gpus.free[h] = 0;
  // 6 hosts in 2 groups: at 200 group 1 is whole (4) and group 0 has 2 (group 2 too: the
  // lower index): ready, group 1's hosts first.
  auto g = earliest_groups(index, gpus, free_at, 6, 8, 1);
  EXPECT_DOUBLE_EQ(g.ready_s, 200);
  EXPECT_EQ(g.leaf_groups, (std::vector<int>{1, 0}));
  EXPECT_EQ(g.leaf_group, 1);
  EXPECT_EQ(g.hosts, (std::vector<int>{4, 5, 6, 7, 0, 2}));
  // In segments of 2 inside domains group 0's two free hosts make none: groups 1 and 2.
  g = earliest_groups(index, gpus, free_at, 6, 8, 1, {}, 2);
  EXPECT_DOUBLE_EQ(g.ready_s, 200);
  EXPECT_EQ(g.leaf_groups, (std::vector<int>{1, 2}));
  EXPECT_EQ(g.hosts, (std::vector<int>{4, 5, 6, 7, 8, 9}));
  // Hosts not allowed never count: without group 1, groups 2 and 0 once group 2 is whole.
  std::vector<std::uint8_t> allowed(12, 1);
  for (int h : {4, 5, 6, 7}) allowed[h] = 0;
  g = earliest_groups(index, gpus, free_at, 6, 8, 1, allowed);
  EXPECT_DOUBLE_EQ(g.ready_s, 300);
  EXPECT_EQ(g.leaf_groups, (std::vector<int>{2, 0}));
  EXPECT_EQ(g.hosts, (std::vector<int>{8, 9, 10, 11, 0, 2}));
  // More hosts than the counted ones: never.
  EXPECT_EQ(earliest_groups(index, gpus, free_at, 9, 8, 1, allowed).leaf_group, -1);
  // Segments that do not divide the job: never.
  EXPECT_EQ(earliest_groups(index, gpus, free_at, 5, 8, 1, {}, 2).leaf_group, -1);
}

// 2 groups x 3 hosts, each group's one uplink at 100 Gb/s. A (2 hosts, 100 s) and B (2
// hosts, 300 s) start at 0, one per group; C (2 hosts, f = 0.5, at peak) arrives at 1 and
// could only be split: its ring wants 200 Gb/s of 100, rho 0.5, s = 1.5. Leaf-01 holds C
// once A ends at 100 (expected wait 99 s).
struct WaitWorld {
  Fabric fabric = [] {
    Fabric f = make_fabric(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 3, .uplinks = 1});
    degrade_uplink(f, 0, 100);
    degrade_uplink(f, 1, 100);
    return f;
  }();
  LocalityIndex index{fabric};
  ReplayOptions options = [] {
    ReplayOptions o;
    o.model.comm_shares = {0.5};
    o.model.demand = DemandMode::Peak;
    o.wait.cap_s = 3600;
    return o;
  }();

  ReplayResult run(const std::vector<TraceJob>& jobs, double cap) {
    const FragModel frag(workload_mix_of(jobs), 8, 3);
    options.wait.cap_s = cap;
    auto policy = make_policy("fabricfit");
    return replay_trace(index, jobs, *policy, frag, options);
  }
};

// Whether C waited for a group or was split, and the mean completion time of the 2-host
// jobs (A, B and C), which says when C started and how fast it ran.
void expect_c(const ReplayResult& r, int locality_waits, int split_jobs, double jct_mean_s) {
  EXPECT_EQ(r.locality_waits, locality_waits);
  EXPECT_EQ(r.split_jobs, split_jobs);
  EXPECT_DOUBLE_EQ(r.classes[2].jct_mean_s, jct_mean_s);
}

std::vector<TraceJob> wait_trace(double c_duration) {
  return {{.id = "A", .submit_s = 0, .duration_s = 100, .nodes = 2, .gpus_per_node = 8},
          {.id = "B", .submit_s = 0, .duration_s = 300, .nodes = 2, .gpus_per_node = 8},
          {.id = "C", .submit_s = 1, .duration_s = c_duration, .nodes = 2, .gpus_per_node = 8}};
}

TEST(LocalityWait, AWaitThatPays) {
  // C runs 1000 s: gain 1000 x 0.5 = 500 > 99: it waits and runs whole in leaf-01 from 100
  // to 1100 (completion 1099 s); split at once it would end at 1 + 1500.
  WaitWorld w;
  expect_c(w.run(wait_trace(1000), 3600), 1, 0, (100.0 + 300 + 1099) / 3);
  const auto eager = w.run(wait_trace(1000), 0);
  EXPECT_EQ(eager.split_jobs, 1);
  EXPECT_DOUBLE_EQ(eager.classes[2].jct_mean_s, (100.0 + 300 + 1500) / 3);
}

TEST(LocalityWait, AWaitThatDoesNotPay) {
  // C runs 100 s: gain 50 < 99: it starts split at 1 and ends at 151.
  WaitWorld w;
  expect_c(w.run(wait_trace(100), 3600), 0, 1, (100.0 + 300 + 150) / 3);
}

// wait_trace with W (one host, 10 s from 0), whose end teaches the predictor, and C
// arriving at 20, after it.
std::vector<TraceJob> taught_trace(double c_duration) {
  std::vector<TraceJob> jobs = wait_trace(c_duration);
  jobs[2].submit_s = 20;
  jobs.insert(jobs.begin() + 2, {.id = "W", .submit_s = 0, .duration_s = 10, .nodes = 1, .gpus_per_node = 8});
  return jobs;
}

TEST(LocalityWait, AWaitThatPaysOnlyByTheJobsHistory) {
  // History weighs when the running jobs end. Time limits four times the run times. W (one host, 10 s) ends
  // at 10 and teaches the predictor that jobs run a quarter of their limits. C (180 s, at 20) could only be
  // split (W's host and the other group's free one). By limits: gain 720 x 0.5 = 360 <
  // the 380 s until A's limit ends (at 400): it starts split and runs 270 s. By history:
  // gain 180 x 0.5 = 90 > the 80 s until A is expected to end (at 100): it waits and runs
  // whole in leaf-01 from 100 to 280.
  WaitWorld w;
  w.options.wait.overestimate = 4;
  const std::vector<TraceJob> jobs = taught_trace(180);
  expect_c(w.run(jobs, 3600), 0, 1, (100.0 + 300 + 270) / 3);
  w.options.wait.estimate = RunEstimate::History;
  expect_c(w.run(jobs, 3600), 1, 0, (100.0 + 300 + 260) / 3);
}

TEST(LocalityWait, AJobItsHistoryCallsShortDoesNotWait) {
  // The other half: history weighs the job's own run time too, and a misleading history
  // costs. Typed limits (15 min, 30 min, ...), no overestimate. W (10 s of its 15 min)
  // teaches a share of 1/90. C (1000 s, limit 30 min, at 20) could only be split. By
  // limits: gain 1800 x 0.5 = 900 > the 880 s until A's limit (900): it waits, and starts
  // whole when A really ends at 100 (completion 1080 s). By history: predicted 20 s, gain
  // 10 s < 880 s (A, past its predicted 10 s, is expected at its limit): it starts split
  // at 20 and runs 1500 s.
  WaitWorld w;
  w.options.wait.round_limits = true;
  const std::vector<TraceJob> jobs = taught_trace(1000);
  expect_c(w.run(jobs, 3600), 1, 0, (100.0 + 300 + 1080) / 3);
  w.options.wait.estimate = RunEstimate::History;
  expect_c(w.run(jobs, 3600), 0, 1, (100.0 + 300 + 1500) / 3);
}

TEST(LocalityWait, ReservedHostsOnlyForJobsThatEndInTime) {
  // While C waits it holds host gpu003 (free now) and one of leaf-01's hosts A frees at
  // 100. D (500 s, at 2) may not use gpu003 and takes leaf-02's free host; E (50 s, at 3)
  // ends before 100 and may: it takes gpu003. F (500 s, at 4) finds nothing free; when E
  // leaves at 53, gpu003 is still C's: F starts at 100, beside C.
  WaitWorld w;
  auto jobs = wait_trace(1000);
  jobs.push_back({.id = "D", .submit_s = 2, .duration_s = 500, .nodes = 1, .gpus_per_node = 8});
  jobs.push_back({.id = "E", .submit_s = 3, .duration_s = 50, .nodes = 1, .gpus_per_node = 8});
  jobs.push_back({.id = "F", .submit_s = 4, .duration_s = 500, .nodes = 1, .gpus_per_node = 8});
  const auto r = w.run(jobs, 3600);
  EXPECT_EQ(r.locality_waits, 1);
  EXPECT_EQ(r.split_jobs, 0);
  EXPECT_DOUBLE_EQ(r.classes[1].jct_mean_s, (500.0 + 50 + 596) / 3);
  EXPECT_DOUBLE_EQ(r.classes[1].wait_p95_s, 96.0);
}

}  // namespace
