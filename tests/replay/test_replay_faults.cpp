// SPDX-License-Identifier: GPL-2.0-or-later
// Faults in the replay (docs/placement.md, "Faults"): the spec, the episodes, the rule that
// keeps multi-host jobs off unhealthy parts, and a flapping host link followed by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "fabric_fixture.hpp"
#include "message_of.hpp"
#include "placement/selection/health_avoidance.hpp"
#include "replay/replay.hpp"

using namespace fabricfit;
using fabricfit::testing::FixtureSpec;
using fabricfit::testing::make_fabric;
using fabricfit::testing::message_of;

namespace {

TEST(FaultSpec, PresetsAndOverrides) {
  const FaultRates stress = parse_fault_spec("stress,checkpoint=1800");
  EXPECT_DOUBLE_EQ(stress.host_flap, 0.02);
  EXPECT_DOUBLE_EQ(stress.uplink_slow, 0.02);
  EXPECT_DOUBLE_EQ(stress.checkpoint_s, 1800);
  EXPECT_DOUBLE_EQ(parse_fault_spec("llama3").uplink_flap, 2e-5);
  const FaultRates one = parse_fault_spec("host-flap=0.5");
  EXPECT_DOUBLE_EQ(one.host_flap, 0.5);
  EXPECT_DOUBLE_EQ(one.uplink_flap, 0);
  EXPECT_TRUE(one.any());
  EXPECT_FALSE(parse_fault_spec("none").any());
  EXPECT_EQ(parse_fault_spec(one.to_string()).to_string(), one.to_string());  // spells back
}

TEST(FaultSpec, BadItemsAreNamed) {
  EXPECT_NE(message_of<FaultSpecError>([] { (void)parse_fault_spec("host-flap=x"); }, "accepted")
                .find("host-flap=x: not a number"),
            std::string::npos);
  EXPECT_NE(message_of<FaultSpecError>([] { (void)parse_fault_spec("often"); }, "accepted")
                .find("often: unknown preset"),
            std::string::npos);
  EXPECT_NE(message_of<FaultSpecError>([] { (void)parse_fault_spec("slow-keeps=2"); }, "accepted")
                .find("must be in"),
            std::string::npos);
  EXPECT_NE(message_of<FaultSpecError>([] { (void)parse_fault_spec("host-flap=1,stress"); }, "accepted")
                .find("comes first"),
            std::string::npos);
  EXPECT_NE(message_of<FaultSpecError>([] { (void)parse_fault_spec("bogus=1"); }, "accepted")
                .find("bogus: unknown key"),
            std::string::npos);
  EXPECT_NE(
      message_of<FaultSpecError>([] { (void)parse_fault_spec("stress,"); }, "accepted").find("empty item"),
      std::string::npos);
}

TEST(FaultPlan, PoissonPerLinkAndTheSameForEveryPolicy) {
  const Fabric f = make_fabric(FixtureSpec{.leaf_groups = 4, .hosts_per_leaf = 8, .uplinks = 4});
  const LocalityIndex index(f);
  FaultRates r;
  r.host_flap = 0.1;  // 32 hosts x 0.1 a day x 100 days: 320 expected
  const auto a = plan_faults(index, r, 0, 100 * 86400.0, 7);
  EXPECT_GT(a.size(), 250u);
  EXPECT_LT(a.size(), 390u);
  for (const FaultEpisode& e : a) {
    EXPECT_EQ(e.target, FaultTarget::HostLink);
    EXPECT_NEAR(e.end_s - e.start_s, r.episode_s, 1e-6);
  }
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end(), [](const FaultEpisode& x, const FaultEpisode& y) {
    return x.start_s < y.start_s;
  }));
  const auto b = plan_faults(index, r, 0, 100 * 86400.0, 7);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_DOUBLE_EQ(a.back().start_s, b.back().start_s);
  EXPECT_NE(plan_faults(index, r, 0, 100 * 86400.0, 8).front().start_s, a.front().start_s);  // another seed
  r.uplink_slow = 0.1;  // another kind's stream: the host episodes stay as they were
  std::size_t hosts = 0;
  for (const FaultEpisode& e : plan_faults(index, r, 0, 100 * 86400.0, 7))
    hosts += e.target == FaultTarget::HostLink;
  EXPECT_EQ(hosts, a.size());
}

// 2 leaf groups of 2 hosts (1:1), 8 GPUs each.
struct TwoGroups {
  Fabric fabric = make_fabric(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 2});
  LocalityIndex index{fabric};
  GpuState gpus = GpuState::uniform(4, 8);
  FragModel frag{WorkloadMix({JobClass{2, 8, 16}}), 8, 2};
};

TEST(HealthAvoidance, FailingPartsNeverDegradedPartsWhenSomethingElseFits) {
  TwoGroups c;
  auto tree = make_policy("tree");
  JobRequest two{.min_nodes = 2, .gpus_per_node = 8, .pattern = CommPattern{}};
  JobRequest one{.min_nodes = 1, .gpus_per_node = 8, .pattern = CommPattern{}};
  FabricHealthView health;
  health.host_link.assign(4, PartHealth::Healthy);
  health.uplinks.assign(2, PartHealth::Healthy);
  const PlacementContext ctx{c.index, c.gpus, c.frag};
  const auto plain = tree->place(ctx, two);
  ASSERT_TRUE(plain);
  const int g = c.index.leaf_group_of(plain->hosts.front());
  // The plain choice's first host flaps: the job goes to the other group.
  health.host_link[plain->hosts.front()] = PartHealth::Failing;
  HealthAvoidance what;
  auto a = place_keeping_off_unhealthy(*tree, ctx, two, health, &what);
  ASSERT_TRUE(a);
  EXPECT_TRUE(what.kept_off);
  for (int h : a->hosts) EXPECT_NE(c.index.leaf_group_of(h), g);
  // A one-host job still lands on the flapping host when the policy picks it: no link crossed.
  auto single = place_keeping_off_unhealthy(*tree, ctx, one, health, &what);
  ASSERT_TRUE(single);
  EXPECT_EQ(single->hosts, tree->place(ctx, one)->hosts);
  // The other group's hosts flap too: one healthy host is left, and the job waits.
  for (int h : a->hosts) health.host_link[h] = PartHealth::Failing;
  EXPECT_FALSE(place_keeping_off_unhealthy(*tree, ctx, two, health, &what));
  EXPECT_TRUE(what.waits_for_healthy);
  // Degraded instead: taken, nothing else fitting.
  for (auto& h : health.host_link) h = h == PartHealth::Failing ? PartHealth::Degraded : h;
  a = place_keeping_off_unhealthy(*tree, ctx, two, health, &what);
  ASSERT_TRUE(a);
  EXPECT_TRUE(what.took_degraded);
  // A split over a group whose uplinks flap is failing too; inside it, nothing is crossed.
  health.host_link.assign(4, PartHealth::Healthy);
  health.uplinks[0] = PartHealth::Failing;
  EXPECT_EQ(worst_crossed(c.index, Allocation{{0, 1}, {8, 8}}, health, CommPattern{}), PartHealth::Healthy);
  EXPECT_EQ(worst_crossed(c.index, Allocation{{0, 2}, {8, 8}}, health, CommPattern{}), PartHealth::Failing);
  EXPECT_EQ(worst_crossed(c.index, Allocation{{0}, {8}}, health, CommPattern{}), PartHealth::Healthy);
}

TEST(HealthAvoidance, CrossedPartsByJobShape) {
  // Hosts 0-1 under one leaf group, 2-3 under the other (TwoGroups).
  TwoGroups c;
  const auto one_gpu = crossed_parts(c.index, Allocation{{0}, {1}}, CommPattern{});
  EXPECT_FALSE(one_gpu.host_links || one_gpu.nvlink || one_gpu.uplinks) << "1 GPU: nothing crossed";
  const auto one_host = crossed_parts(c.index, Allocation{{0}, {4}}, CommPattern{});
  EXPECT_TRUE(one_host.nvlink);
  EXPECT_FALSE(one_host.host_links || one_host.uplinks);
  const auto one_group = crossed_parts(c.index, Allocation{{0, 1}, {1, 1}}, CommPattern{});
  EXPECT_TRUE(one_group.host_links && one_group.nvlink);
  EXPECT_FALSE(one_group.uplinks);
  EXPECT_TRUE(crossed_parts(c.index, Allocation{{0, 2}, {1, 1}}, CommPattern{}).uplinks);

  // worst_crossed follows it: a 1-GPU job on a host whose NVLink and HCA link fail crosses
  // neither, a 4-GPU one crosses its NVLink only.
  FabricHealthView health{
      .host_link = {PartHealth::Failing, PartHealth::Healthy, PartHealth::Healthy, PartHealth::Healthy},
      .uplinks = {PartHealth::Healthy, PartHealth::Healthy},
      .nvlink = {PartHealth::Degraded, PartHealth::Healthy, PartHealth::Healthy, PartHealth::Healthy}};
  EXPECT_EQ(worst_crossed(c.index, Allocation{{0}, {1}}, health, CommPattern{}), PartHealth::Healthy);
  EXPECT_EQ(worst_crossed(c.index, Allocation{{0}, {4}}, health, CommPattern{}), PartHealth::Degraded);
  EXPECT_EQ(worst_crossed(c.index, Allocation{{0, 1}, {4, 4}}, health, CommPattern{}), PartHealth::Failing);
}

TEST(HealthAvoidance, ADegradedNvlinkCountsOnlyForTheJobsItPaces) {
  // One leaf group of 4 hosts, domains {0, 1} and {2, 3}; host 0's NVLink degraded, host 3's failing.
  Fabric fab = make_fabric(FixtureSpec{.leaf_groups = 1, .hosts_per_leaf = 4});
  set_nvlink_domains(fab, {NvlinkDomain{"nvl0", {0, 1}}, NvlinkDomain{"nvl1", {2, 3}}});
  const LocalityIndex index(fab);
  const FabricHealthView health{
      .host_link = {},
      .uplinks = {},
      .nvlink = {PartHealth::Degraded, PartHealth::Healthy, PartHealth::Healthy, PartHealth::Failing}};
  const CommPattern ring{};
  const CommPattern tp4 = parse_comm_pattern("tp=4,dp=6");
  // Inside one domain NVLink paces the job, whatever its pattern.
  EXPECT_EQ(worst_crossed(index, Allocation{{0, 1}, {8, 8}}, health, ring), PartHealth::Degraded);
  // Across domains: ring traffic is paced by the InfiniBand, tensor parallel groups by NVLink.
  EXPECT_FALSE(crossed_parts(index, Allocation{{0, 1, 2}, {8, 8, 8}}, ring).nvlink_paced);
  EXPECT_EQ(worst_crossed(index, Allocation{{0, 1, 2}, {8, 8, 8}}, health, ring), PartHealth::Healthy);
  EXPECT_EQ(worst_crossed(index, Allocation{{0, 1, 2}, {8, 8, 8}}, health, tp4), PartHealth::Degraded);
  // A failing NVLink drops every job whose GPUs talk over it.
  EXPECT_EQ(worst_crossed(index, Allocation{{1, 2, 3}, {8, 8, 8}}, health, ring), PartHealth::Failing);

  // A 3-host ring job is placed as if host 0 were healthy (tree's pick, hosts 0-2); a tp=4
  // one is kept off host 0 (hosts 1-3 hold it, but host 3 fails: it waits for a healthy set).
  const GpuState gpus = GpuState::uniform(4, 8);
  const FragModel frag{WorkloadMix({JobClass{3, 8, 24}}), 8, 4};
  const PlacementContext ctx{index, gpus, frag};
  auto tree = make_policy("tree");
  HealthAvoidance what;
  const auto a = place_keeping_off_unhealthy(
      *tree, ctx, JobRequest{.min_nodes = 3, .gpus_per_node = 8, .pattern = ring}, health, &what);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts, (std::vector<int>{0, 1, 2}));
  EXPECT_FALSE(what.kept_off || what.took_degraded);
  const auto b = place_keeping_off_unhealthy(
      *tree, ctx, JobRequest{.min_nodes = 3, .gpus_per_node = 8, .pattern = tp4}, health, &what);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->hosts, (std::vector<int>{0, 1, 2})) << "no set without host 0 or host 3: degraded taken";
  EXPECT_TRUE(what.took_degraded);

  // A 2-host ring job one domain could hold: the masks first count degraded NVLink (it would
  // stay in a domain), find nothing off host 0's degraded HCA link and hosts 1 and 3's
  // degraded NVLink, then try without counting it: hosts 1-2 span the two domains, where
  // ring traffic is InfiniBand's, and cross nothing unhealthy.
  const FabricHealthView mixed{
      .host_link = {PartHealth::Degraded, PartHealth::Healthy, PartHealth::Healthy, PartHealth::Healthy},
      .uplinks = {},
      .nvlink = {PartHealth::Healthy, PartHealth::Degraded, PartHealth::Healthy, PartHealth::Degraded}};
  const auto c = place_keeping_off_unhealthy(
      *tree, ctx, JobRequest{.min_nodes = 2, .gpus_per_node = 8, .pattern = ring}, mixed, &what);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->hosts, (std::vector<int>{1, 2}));
  EXPECT_TRUE(what.kept_off);
  EXPECT_FALSE(what.took_degraded);
}

TEST(HealthAvoidance, AOneHostJobThatMustSpreadOffAFailingNvlinkKeepsOffFailingHcasToo) {
  // 8 GPUs on as few hosts as hold them. Host 0 (8 free) is the one-host choice, and its
  // NVLink fails; hosts 1-3 have 4 free each, so the job spreads over two of them, and host
  // 2's HCA link flaps. Off host 0 alone the policy's pick takes host 2 (checked below):
  // the rule must then keep it off host 2 too, not give up (health=waits).
  TwoGroups c;
  c.gpus.free = {8, 4, 4, 4};
  auto tree = make_policy("tree");
  const JobRequest eight{.min_nodes = 1, .total_gpus = 8, .pattern = CommPattern{}};
  FabricHealthView health;
  health.host_link = {PartHealth::Healthy, PartHealth::Healthy, PartHealth::Failing, PartHealth::Healthy};
  health.nvlink = {PartHealth::Failing, PartHealth::Healthy, PartHealth::Healthy, PartHealth::Healthy};
  const PlacementContext ctx{c.index, c.gpus, c.frag};
  ASSERT_EQ(tree->place(ctx, eight)->hosts, std::vector<int>{0});
  const std::vector<std::uint8_t> off_host0 = {0, 1, 1, 1};
  const auto spread = tree->place(PlacementContext{c.index, c.gpus, c.frag, off_host0}, eight);
  ASSERT_TRUE(spread);
  ASSERT_NE(std::ranges::find(spread->hosts, 2), spread->hosts.end())
      << "the case needs the pick to take host 2";
  HealthAvoidance what;
  const auto a = place_keeping_off_unhealthy(*tree, ctx, eight, health, &what);
  ASSERT_TRUE(a) << "waits_for_healthy=" << what.waits_for_healthy;
  EXPECT_EQ(a->hosts, (std::vector<int>{1, 3}));
  EXPECT_TRUE(what.kept_off);
}

TEST(ReplayFaults, AFlappingHostLinkByHand) {
  // One 2-host job of 10,000 s on 2 groups of 2 hosts. Host 0's link flaps from t = 100 for
  // 7,200 s, dropping every 1,800 s: at 100, 1,900, 3,700 and 5,500; a sweep sees it 300 s
  // after it begins. Checkpoints every 3,600 s of work, so no run reaches one.
  TwoGroups c;
  const std::vector<TraceJob> jobs = {
      {.id = "A", .submit_s = 0, .duration_s = 10000, .nodes = 2, .gpus_per_node = 8}};
  ReplayOptions options;
  options.faults.flap_every_s = 1800;
  options.faults.detect_s = 300;
  options.faults.checkpoint_s = 3600;
  options.fault_episodes = {{FaultKind::Flap, FaultTarget::HostLink, 0, 100, 7300}};
  const FragModel frag(workload_mix_of(jobs), 8, 2);
  auto tree = make_policy("tree");
  auto fabricfit = make_policy("fabricfit");
  const auto t = replay_trace(c.index, jobs, *tree, frag, options);
  const auto f = replay_trace(c.index, jobs, *fabricfit, frag, options);
  // tree puts it back on hosts 0-1 each time: it fails at all four drops and runs whole
  // from 5,500: ends at 15,500; it redid 100 + 3 x 1,800 s of 16 GPUs.
  EXPECT_EQ(t.faults.jobs_failed, 4);
  EXPECT_DOUBLE_EQ(t.makespan_s, 15500);
  EXPECT_NEAR(t.faults.gpu_hours_redone, 16 * 5500.0 / 3600, 1e-9);
  EXPECT_NEAR(t.classes[0].gpu_hours, 16 * 15500.0 / 3600, 1e-9);  // every run counts
  // fabricfit restarts it at 100 before the sweep has seen the link (on hosts 0-1 again),
  // then at 1,900 off host 0: two failures, ends at 11,900.
  EXPECT_EQ(f.faults.jobs_failed, 2);
  EXPECT_DOUBLE_EQ(f.makespan_s, 11900);
  EXPECT_NEAR(f.faults.gpu_hours_redone, 16 * 1900.0 / 3600, 1e-9);
  EXPECT_EQ(f.faults.kept_off, 1);
  EXPECT_EQ(f.classes[0].jobs, 1);
}

TEST(ReplayFaults, AFailingNvlinkByHandBlindDrainedAndKeptOff) {
  // Two one-host jobs of 10,000 s at t = 0 on 2 groups of 2 hosts of 8 GPUs: A with 2 GPUs,
  // B with 1, both on host 0 (best fit). Host 0's NVLink fails from t = 100 for 7,200 s,
  // dropping at 100, 1,900, 3,700 and 5,500; a sweep sees it 300 s after it begins. A's two
  // GPUs talk over it; B's one GPU talks to none.
  TwoGroups c;
  auto tree = make_policy("tree");
  const PlacementContext ctx{c.index, c.gpus, c.frag};
  ASSERT_EQ(tree->place(ctx, JobRequest{.min_nodes = 1, .gpus_per_node = 2, .pattern = CommPattern{}})->hosts,
            std::vector<int>{0});
  const std::vector<TraceJob> jobs = {
      {.id = "A", .submit_s = 0, .duration_s = 10000, .nodes = 1, .gpus_per_node = 2},
      {.id = "B", .submit_s = 0, .duration_s = 10000, .nodes = 1, .gpus_per_node = 1}};
  ReplayOptions options;
  options.faults.flap_every_s = 1800;
  options.faults.detect_s = 300;
  options.faults.checkpoint_s = 3600;
  options.fault_episodes = {{FaultKind::Flap, FaultTarget::Nvlink, 0, 100, 7300}};
  options.keep_runs = true;
  const FragModel frag(workload_mix_of(jobs), 8, 2);
  auto fabricfit = make_policy("fabricfit");
  // Blind, tree puts A back on host 0 each time: four failures, A ends at 15,500; B never fails.
  const auto t = replay_trace(c.index, jobs, *tree, frag, options);
  EXPECT_EQ(t.faults.jobs_failed, 4);
  EXPECT_DOUBLE_EQ(t.makespan_s, 15500);
  // fabricfit restarts A at 100 before the sweep (host 0 again), and at 1,900 off it: ends
  // at 11,900. B stays on host 0 throughout.
  const auto f = replay_trace(c.index, jobs, *fabricfit, frag, options);
  EXPECT_EQ(f.faults.jobs_failed, 2);
  EXPECT_DOUBLE_EQ(f.makespan_s, 11900);
  EXPECT_EQ(f.faults.kept_off, 1);
  // Drained once seen, tree does as well: the host is out for every job from 400 to 7,600.
  options.drain_failing = true;
  const auto d = replay_trace(c.index, jobs, *tree, frag, options);
  EXPECT_EQ(d.faults.jobs_failed, 2);
  EXPECT_DOUBLE_EQ(d.makespan_s, 11900);
}

TEST(FaultPlan, NvlinkFaultsOnlyOnHostsOfADomainAndOnlyWhenAsked) {
  Fabric f = make_fabric(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4});
  set_nvlink_domains(f, {NvlinkDomain{"nvl0", {0, 1, 2, 3}}});
  const LocalityIndex index(f);
  FaultRates r = parse_fault_spec("none,nvlink-flap=0.5");
  EXPECT_TRUE(r.any());
  EXPECT_NE(r.to_string().find(",nvlink-flap=0.5"), std::string::npos);
  EXPECT_EQ(parse_fault_spec("stress").to_string().find("nvlink"), std::string::npos) << "in no preset";
  const auto a = plan_faults(index, r, 0, 100 * 86400.0, 3);
  EXPECT_GT(a.size(), 100u);  // 4 hosts x 0.5 a day x 100 days: 200 expected
  for (const FaultEpisode& e : a) {
    EXPECT_EQ(e.target, FaultTarget::Nvlink);
    EXPECT_LT(e.where, 4) << "hosts 4-7 are in no NVLink domain";
  }
  r.host_flap = 0.1;  // another kind's stream: the NVLink episodes stay as they were
  std::size_t nvlink = 0;
  for (const FaultEpisode& e : plan_faults(index, r, 0, 100 * 86400.0, 3))
    nvlink += e.target == FaultTarget::Nvlink;
  EXPECT_EQ(nvlink, a.size());
}

TEST(ReplayFaults, AJobAFaultSentBackWaitsForTheFabricToClear) {
  // One 4-host job of 10,000 s on 2 groups of 2 hosts: it spans both groups. Group 0's
  // uplinks flap from t = 100 to 20,000 (sweeps see it at once): the job fails at 100.
  // fabricfit never places a multi-host job across a failing part, and nothing else runs:
  // the job waits, alone in the queue and past the end its first run had, for the clear at
  // 20,000, then runs whole (no checkpoint reached): ends at 30,000. The replay must not
  // stop while it waits.
  TwoGroups c;
  const std::vector<TraceJob> jobs = {
      {.id = "A", .submit_s = 0, .duration_s = 10000, .nodes = 4, .gpus_per_node = 8}};
  ReplayOptions options;
  options.faults.flap_every_s = 1800;
  options.faults.detect_s = 0;
  options.faults.checkpoint_s = 3600;
  options.fault_episodes = {{FaultKind::Flap, FaultTarget::Uplink, 0, 100, 20000}};
  const FragModel frag(workload_mix_of(jobs), 8, 2);
  auto fabricfit = make_policy("fabricfit");
  const auto f = replay_trace(c.index, jobs, *fabricfit, frag, options);
  EXPECT_EQ(f.faults.jobs_failed, 1);
  EXPECT_EQ(f.unplaceable, 0);
  EXPECT_EQ(f.classes[0].jobs, 1);
  EXPECT_DOUBLE_EQ(f.makespan_s, 30000);
  EXPECT_GT(f.faults.waited_for_healthy, 0);
}

}  // namespace

namespace {

// A degraded NVLink (`nvlink-slow`): a job inside one NVLink domain whose GPUs talk over
// it runs at the degraded GPU's pace while the episode lasts: its time in collectives
// (share f) takes 1 / keeps as long. One leaf group of 4 hosts of 8 GPUs, domains {0, 1}
// and {2, 3}; host 0's NVLink keeps half its bandwidth from t = 100 to 600.
TEST(ReplayFaults, ADegradedNvlinkSlowsTheJobsInsideItsDomainThatTalkOverIt) {
  Fabric fab = make_fabric(FixtureSpec{.leaf_groups = 1, .hosts_per_leaf = 4});
  set_nvlink_domains(fab, {NvlinkDomain{"nvl0", {0, 1}}, NvlinkDomain{"nvl1", {2, 3}}});
  const LocalityIndex index(fab);
  ReplayOptions options;
  options.faults.slow_keeps = 0.5;
  options.faults.detect_s = 0;
  options.fault_episodes = {{FaultKind::Slow, FaultTarget::Nvlink, 0, 100, 600}};
  options.keep_runs = true;
  auto tree = make_policy("tree");
  const auto end_of = [&](const std::vector<TraceJob>& jobs, const std::string& id) {
    const FragModel frag(workload_mix_of(jobs), 8, 4);
    const auto r = replay_trace(index, jobs, *tree, frag, options);
    for (const JobRun& run : r.runs)
      if (jobs[run.job].id == id) return std::pair{run.end_s, run.hosts};
    ADD_FAILURE() << id << " did not run";
    return std::pair{0.0, std::vector<int>{}};
  };
  // 2 hosts in nvl0, half its time in collectives: 100 s at full pace, 500 s at 1.5x the
  // time (333.3 s of work), the remaining 566.7 s at full pace again.
  const auto [two, hosts] =
      end_of({{.id = "A", .duration_s = 1000, .nodes = 2, .gpus_per_node = 8, .comm_share = 0.5}}, "A");
  ASSERT_EQ(hosts, (std::vector<int>{0, 1}));
  EXPECT_NEAR(two, 100 + 500 + (1000 - 100 - 500 / 1.5), 1e-6);
  // One host, 2 GPUs talking over host 0's NVLink: slowed alike; 1 GPU: not at all.
  EXPECT_NEAR(
      end_of({{.id = "B", .duration_s = 1000, .nodes = 1, .gpus_per_node = 2, .comm_share = 0.5}}, "B").first,
      100 + 500 + (1000 - 100 - 500 / 1.5), 1e-6);
  EXPECT_DOUBLE_EQ(
      end_of({{.id = "C", .duration_s = 1000, .nodes = 1, .gpus_per_node = 1, .comm_share = 0.5}}, "C").first,
      1000);
  // Across the two domains: paced by the InfiniBand between them, its NVLink not priced.
  const auto [wide, wide_hosts] =
      end_of({{.id = "W", .duration_s = 1000, .nodes = 3, .gpus_per_node = 8, .comm_share = 0.5}}, "W");
  ASSERT_EQ(wide_hosts.size(), 3u);
  EXPECT_DOUBLE_EQ(wide, 1000);
  // Once a sweep has seen it (at 100), fabricfit keeps a job that talks over NVLink off
  // host 0 while another domain holds it, and runs it at full pace there.
  const std::vector<TraceJob> later = {
      {.id = "L", .submit_s = 200, .duration_s = 1000, .nodes = 2, .gpus_per_node = 8, .comm_share = 0.5}};
  const FragModel frag(workload_mix_of(later), 8, 4);
  auto fabricfit = make_policy("fabricfit");
  const auto kept = replay_trace(index, later, *fabricfit, frag, options);
  EXPECT_EQ(kept.faults.kept_off, 1);
  ASSERT_EQ(kept.runs.size(), 1u);
  EXPECT_EQ(kept.runs[0].hosts, (std::vector<int>{2, 3}));
  EXPECT_DOUBLE_EQ(kept.runs[0].end_s, 1200);
  const auto blind = replay_trace(index, later, *tree, frag, options);
  EXPECT_EQ(blind.runs[0].hosts, (std::vector<int>{0, 1}));
  EXPECT_NEAR(blind.runs[0].end_s, 200 + 400 + (1000 - 400 / 1.5), 1e-6);
  // The spec: nvlink-slow=R, printed only when set, in no preset.
  const FaultRates r = parse_fault_spec("none,nvlink-slow=0.25");
  EXPECT_TRUE(r.any());
  EXPECT_NE(r.to_string().find(",nvlink-slow=0.25"), std::string::npos);
  EXPECT_EQ(parse_fault_spec("stress").to_string().find("nvlink"), std::string::npos);
  for (const FaultEpisode& e : plan_faults(index, r, 0, 100 * 86400.0, 3)) {
    EXPECT_EQ(e.kind, FaultKind::Slow);
    EXPECT_EQ(e.target, FaultTarget::Nvlink);
  }
}

}  // namespace

namespace {

// Drained hosts and backfill reservations (`--drain-failing --backfill reserve`): the
// reservation the first blocked job plans is made on hosts it may use, never on a drained
// one. Two leaf groups of 2 hosts (0-1, 2-3), 8 GPUs each; host 1's HCA link flaps for the
// whole run (seen at once) and is drained. d (500 s) and a (1,000 s) take a healthy host
// each (0 and 2); b (2 hosts) cannot start beside the drained host and plans for when d
// ends: d's host and the free one (3). c (one host, 2,000 s) would still run then, so it
// may not take host 3 and waits for a's. Planned blind to the drain, tree's reservation
// would be hosts 0 and 1 (one group): c would take host 3 at once and b wait for a (1,000).
// tree is the run that can catch that; fabricfit keeps off the failing host by its own
// health rule too, and is checked for the same outcome.
TEST(ReplayFaults, ABackfillReservationIsNeverPlannedOnADrainedHost) {
  TwoGroups c;
  const std::vector<TraceJob> jobs = {
      {.id = "d", .submit_s = 0, .duration_s = 500, .nodes = 1, .gpus_per_node = 8},
      {.id = "a", .submit_s = 0, .duration_s = 1000, .nodes = 1, .gpus_per_node = 8},
      {.id = "b", .submit_s = 10, .duration_s = 1000, .nodes = 2, .gpus_per_node = 8},
      {.id = "c", .submit_s = 20, .duration_s = 2000, .nodes = 1, .gpus_per_node = 8}};
  ReplayOptions options;
  options.faults.flap_every_s = 1800;
  options.faults.detect_s = 0;
  options.fault_episodes = {{FaultKind::Flap, FaultTarget::HostLink, 1, 0, 100000}};
  options.drain_failing = true;
  options.reserve_first_blocked = true;
  options.keep_runs = true;
  const FragModel frag(workload_mix_of(jobs), 8, 2);
  for (const char* name : {"tree", "fabricfit"}) {
    SCOPED_TRACE(name);
    auto policy = make_policy(name);
    const auto r = replay_trace(c.index, jobs, *policy, frag, options);
    ASSERT_EQ(r.runs.size(), 4u);
    const auto run = [&](int job) {
      const auto it = std::ranges::find(r.runs, job, &JobRun::job);
      EXPECT_NE(it, r.runs.end()) << jobs[job].id << " never ran";
      return it == r.runs.end() ? JobRun{} : *it;
    };
    for (const JobRun& x : r.runs) {
      EXPECT_EQ(std::ranges::count(x.hosts, 1), 0) << jobs[x.job].id << " ran on the drained host";
    }
    // The geometry the test needs (a plan blind to the drain would differ): d on host 0, a on 2.
    ASSERT_EQ(run(0).hosts, std::vector<int>{0});
    ASSERT_EQ(run(1).hosts, std::vector<int>{2});
    const JobRun b = run(2);
    EXPECT_DOUBLE_EQ(b.start_s, 500) << "b starts when d ends, on the hosts it reserved";
    EXPECT_EQ(std::set<int>(b.hosts.begin(), b.hosts.end()), (std::set<int>{0, 3}));
    EXPECT_DOUBLE_EQ(run(3).start_s, 1000) << "c did not take b's reserved host; it waited for a's";
    EXPECT_EQ(run(3).hosts, std::vector<int>{2});
    EXPECT_EQ(r.faults.jobs_failed, 0);
  }
}

}  // namespace
