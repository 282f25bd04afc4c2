// SPDX-License-Identifier: GPL-2.0-or-later
// Trace readers, the pattern rule, host lists and a replay small enough to check by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/hostlist_expand.hpp"
#include "fabric_fixture.hpp"
#include "message_of.hpp"
#include "replay/pattern_rule.hpp"
#include "replay/replay.hpp"
#include "replay/replay_metrics.hpp"
#include "replay/replay_report.hpp"
#include "replay/trace_reader.hpp"
#include "site/site_config.hpp"

using namespace fabricfit;
using fabricfit::testing::FixtureSpec;
using fabricfit::testing::make_fabric;

namespace {

std::string error_of(const std::string& text, TraceFormat format) {
  return fabricfit::testing::message_of<TraceError>([&] { (void)parse_trace(text, "t.csv", format, 8); }, "");
}

TEST(TraceReader, ElasticFlowMapsGpusToHosts) {
  const auto t = parse_trace(
      "job_id,submission_time,duration,num_gpu\n"
      "a,20,100,16\n"
      "b,10,50,1\n"
      "c,30,60,8\n",
      "t.csv", TraceFormat::ElasticFlow, 8);
  ASSERT_EQ(t.jobs.size(), 3u);
  EXPECT_EQ(t.jobs[0].id, "b");  // in submission order
  EXPECT_EQ(t.jobs[0].nodes, 1);
  EXPECT_EQ(t.jobs[0].gpus_per_node, 1);
  EXPECT_EQ(t.jobs[1].nodes, 2);
  EXPECT_EQ(t.jobs[1].gpus_per_node, 8);
  EXPECT_DOUBLE_EQ(t.jobs[1].duration_s, 100);
  EXPECT_EQ(t.jobs[2].gpus(), 8);
}

TEST(TraceReader, ErrorsNameFileLineAndReason) {
  EXPECT_EQ(error_of("job_id,submission_time,duration,num_gpu\na,1,2,x\n", TraceFormat::ElasticFlow),
            "t.csv:2: num_gpu 'x' is not a number");
  EXPECT_EQ(error_of("job_id,submission_time,duration,num_gpu\na,1,2\n", TraceFormat::ElasticFlow),
            "t.csv:2: 3 fields, the header has 4");
  EXPECT_EQ(error_of("job_id,submission_time,num_gpu\n", TraceFormat::ElasticFlow),
            "t.csv:1: header has no 'duration' column");
  EXPECT_EQ(error_of("job_id,submission_time,duration,num_gpu\n\na,1,-2,1\n", TraceFormat::ElasticFlow),
            "t.csv:3: duration -2 is negative");
  EXPECT_EQ(error_of("job_id,submission_time,duration,num_gpu\na,1,2,20\n", TraceFormat::ElasticFlow),
            "t.csv:2: 20 GPUs do not spread evenly over 3 hosts of 8 GPUs");
  EXPECT_EQ(error_of("", TraceFormat::Kalos), "t.csv:0: empty file, expected a CSV header");
}

TEST(TraceReader, KalosWorkersAndIterations) {
  const std::string header =
      "job_id,arrival_time,num_iteration,iteration_computing_time,iteration_networking_time,gpu_workers,ps,"
      "gpu_per_worker,cpu_per_gpu_worker,cpu_per_ps_worker,tensorsizes,profiled_network\n";
  const auto t = parse_trace(header + "7,5.0,100,0.5,0.75,16,0,8.0,15.0,15.0,10.0,500\n", "t.csv",
                             TraceFormat::Kalos, 8);
  ASSERT_EQ(t.jobs.size(), 1u);
  EXPECT_EQ(t.jobs[0].nodes, 16);
  EXPECT_EQ(t.jobs[0].gpus_per_node, 8);
  EXPECT_DOUBLE_EQ(t.jobs[0].duration_s, 50.0);
  EXPECT_TRUE(t.jobs[0].pretraining);
  EXPECT_DOUBLE_EQ(t.jobs[0].comm_share, 0.6);  // 0.75 / (0.5 + 0.75)
  EXPECT_EQ(error_of(header + "7,5.0,100,0.5,0.25,1,0,2.5,15.0,15.0,10.0,500\n", TraceFormat::Kalos),
            "t.csv:2: gpu_per_worker 2.5 is not a whole number of GPUs");
}

TEST(TraceReader, OpenbSkipsCpuPodsAndPodsThatNeverRan) {
  const auto t = parse_trace(
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,"
      "scheduled_time\n"
      "p0,1000,1,0,0,,LS,Running,0,10,0\n"
      "p1,1000,1,1,460,,LS,Running,5,25,5\n"
      "p2,1000,1,2,1000,,LS,Pending,6,30,\n"
      "p3,1000,1,8,1000,,LS,Failed,7,9,7\n",
      "t.csv", TraceFormat::OpenB, 8);
  ASSERT_EQ(t.jobs.size(), 2u);
  EXPECT_EQ(t.skipped.no_gpu, 1);
  EXPECT_EQ(t.skipped.never_ran, 1);
  EXPECT_EQ(t.jobs[0].gpus(), 1);  // a fractional GPU counts as one
  EXPECT_DOUBLE_EQ(t.jobs[0].duration_s, 20);
  EXPECT_EQ(t.jobs[1].gpus(), 8);
}

TEST(PatternRule, ParsesAndAssigns) {
  const auto r = parse_pattern_rule("multi=tree,alltoall=1,alltoall_min_nodes=4,volume=2");
  TraceJob small{.id = "s", .nodes = 1, .gpus_per_node = 8};
  TraceJob two{.id = "t", .nodes = 2, .gpus_per_node = 8};
  TraceJob four{.id = "f", .duration_s = 10, .nodes = 4, .gpus_per_node = 8};
  EXPECT_EQ(r.pattern_for(small).kind, PatternKind::None);
  EXPECT_EQ(r.pattern_for(two).kind, PatternKind::Tree);
  EXPECT_EQ(r.pattern_for(four).kind, PatternKind::AllToAll);  // share 1: all of them
  EXPECT_DOUBLE_EQ(r.volume_gb(four), 20);
  EXPECT_EQ(parse_pattern_rule(r.to_string()).to_string(), r.to_string());
  EXPECT_THROW((void)parse_pattern_rule("multi=tp=2"), RuleError);
  EXPECT_THROW((void)parse_pattern_rule("alltoall=2"), RuleError);
  EXPECT_THROW((void)parse_pattern_rule("speed=1"), RuleError);
}

TEST(PatternRule, AllToAllShareIsRepeatableAndAboutRight) {
  const auto r = parse_pattern_rule("alltoall=0.25");
  int hits = 0;
  for (int i = 0; i < 4000; ++i) {
    TraceJob j{.id = "job-" + std::to_string(i), .nodes = 4, .gpus_per_node = 8};
    const bool a = r.pattern_for(j).kind == PatternKind::AllToAll;
    EXPECT_EQ(a, r.pattern_for(j).kind == PatternKind::AllToAll);
    hits += a ? 1 : 0;
  }
  EXPECT_NEAR(hits / 4000.0, 0.25, 0.03);
}

TEST(Hostlist, Expands) {
  EXPECT_EQ(expand_hostlist("gpu[001-003,007],login1"),
            (std::vector<std::string>{"gpu001", "gpu002", "gpu003", "gpu007", "login1"}));
  EXPECT_EQ(expand_hostlist("r[1-2]n[08-09]"),
            (std::vector<std::string>{"r1n08", "r1n09", "r2n08", "r2n09"}));
  for (const char* bad : {"", "gpu[1-", "gpu]", "gpu[3-1]", "gpu[a]", "a,,b"}) {
    EXPECT_THROW((void)expand_hostlist(bad), HostlistError) << bad;
  }
}

// 2 leaf groups x 2 hosts x 8 GPUs. j1: 8 GPUs at 0 for 100 s; j2: 16 GPUs at 0 for 100 s;
// j3: 16 GPUs at 10 for 50 s, which waits for j1 and j2 (starts at 100, ends at 150).
std::vector<TraceJob> tiny_trace() {
  return {{.id = "j1", .submit_s = 0, .duration_s = 100, .nodes = 1, .gpus_per_node = 8},
          {.id = "j2", .submit_s = 0, .duration_s = 100, .nodes = 2, .gpus_per_node = 8},
          {.id = "j3", .submit_s = 10, .duration_s = 50, .nodes = 2, .gpus_per_node = 8}};
}

// The NVLink cliff (RuntimeModelOptions::domain_cliff): one leaf group of 4 hosts, so no
// traffic leaves it and only the domain edge can slow a job; domains nvl0 = hosts 0-1,
// nvl1 = hosts 2-3. j0 (one host) runs first; firstfit puts it on host 0 and the 2-host j1
// (a quarter of its time communicating) on hosts 1 + 2, over the edge: s = 1 + 0.25 x 35.
TEST(Replay, AJobOneDomainHoldsPaysTheCliffWhenSpreadOverTwo) {
  Fabric f = make_fabric(FixtureSpec{.leaf_groups = 1, .hosts_per_leaf = 4});
  set_nvlink_domains(f, {{"nvl0", {0, 1}}, {"nvl1", {2, 3}}});
  const LocalityIndex index(f);
  const std::vector<TraceJob> jobs{
      {.id = "j0", .submit_s = 0, .duration_s = 50, .nodes = 1, .gpus_per_node = 8},
      {.id = "j1", .submit_s = 0, .duration_s = 100, .nodes = 2, .gpus_per_node = 8, .comm_share = 0.25}};
  const FragModel frag(workload_mix_of(jobs), 8, 2);
  ReplayOptions options;
  auto firstfit = make_policy("firstfit");
  const auto spread = replay_trace(index, jobs, *firstfit, frag, options);
  EXPECT_EQ(spread.domain_jobs, 1);
  EXPECT_EQ(spread.domain_split_jobs, 1);
  EXPECT_DOUBLE_EQ(spread.domain_split_share, 1.0);
  EXPECT_DOUBLE_EQ(spread.makespan_s, 100 * (1 + 0.25 * 35));
  // fabricfit keeps j1 inside a domain: it runs its trace duration.
  auto fabricfit = make_policy("fabricfit");
  const auto inside = replay_trace(index, jobs, *fabricfit, frag, options);
  EXPECT_EQ(inside.domain_jobs, 1);
  EXPECT_EQ(inside.domain_split_jobs, 0);
  EXPECT_DOUBLE_EQ(inside.makespan_s, 100);
  // R = 1: no cliff; and a fabric without domains has none either.
  options.model.domain_cliff = 1;
  EXPECT_DOUBLE_EQ(replay_trace(index, jobs, *firstfit, frag, options).makespan_s, 100);
  options.model.domain_cliff = 36;
  const Fabric plain = make_fabric(FixtureSpec{.leaf_groups = 1, .hosts_per_leaf = 4});
  const LocalityIndex plain_index(plain);
  const auto none = replay_trace(plain_index, jobs, *firstfit, frag, options);
  EXPECT_EQ(none.domain_jobs, 0);
  EXPECT_DOUBLE_EQ(none.makespan_s, 100);
  // Hosts 2-3 in no domain: j1 on both of them is not spread (firstfit: j0 on host 0, j0b
  // on host 1).
  Fabric half = make_fabric(FixtureSpec{.leaf_groups = 1, .hosts_per_leaf = 4});
  set_nvlink_domains(half, {{"nvl0", {0, 1}}});
  const LocalityIndex half_index(half);
  std::vector<TraceJob> three = jobs;
  three.insert(three.begin() + 1,
               {.id = "j0b", .submit_s = 0, .duration_s = 50, .nodes = 1, .gpus_per_node = 8});
  const auto outside = replay_trace(half_index, three, *firstfit, frag, options);
  EXPECT_EQ(outside.domain_jobs, 1);
  EXPECT_EQ(outside.domain_split_jobs, 0);
  EXPECT_DOUBLE_EQ(outside.makespan_s, 100);
}

// The jobs wider than the largest domain (ReplayResult::multi_domain): domains of 2 hosts,
// a 3-host job must span two and is counted there; the 2-host job is not; no domains, no count.
TEST(Replay, JobsWiderThanADomainAreCountedApart) {
  Fabric f = make_fabric(FixtureSpec{.leaf_groups = 1, .hosts_per_leaf = 4});
  set_nvlink_domains(f, {{"nvl0", {0, 1}}, {"nvl1", {2, 3}}});
  const LocalityIndex index(f);
  const std::vector<TraceJob> jobs{
      {.id = "w", .submit_s = 0, .duration_s = 100, .nodes = 3, .gpus_per_node = 8},
      {.id = "n", .submit_s = 0, .duration_s = 40, .nodes = 2, .gpus_per_node = 8}};
  const FragModel frag(workload_mix_of(jobs), 8, 4);
  auto fabricfit = make_policy("fabricfit");
  const auto r = replay_trace(index, jobs, *fabricfit, frag, ReplayOptions{});
  EXPECT_EQ(r.multi_domain.jobs, 1);
  EXPECT_DOUBLE_EQ(r.multi_domain.jct_mean_s, 100);  // w first; n waits for it
  EXPECT_DOUBLE_EQ(r.multi_domain.gpu_hours, 3 * 8 * 100 / 3600.0);
  EXPECT_EQ(r.classes[0].jobs, 2);
  EXPECT_EQ(r.in_domain.jobs, 1);  // n, 2 hosts: one domain holds it
  EXPECT_DOUBLE_EQ(r.in_domain.jct_mean_s, 140);
  EXPECT_DOUBLE_EQ(r.in_domain.wait_p95_s, 100);
  // Free whole hosts in whole free domains: for 100 s one free host, its domain broken by w;
  // for 40 s n holds one domain and the other is whole: 2 x 40 of 1 x 100 + 2 x 40.
  EXPECT_NEAR(r.domain_whole_free_share, 80.0 / 180.0, 1e-9);
  // The same by free hosts (buckets of 2, a domain's hosts): 100 s at 1 free (bucket 0, none
  // in a whole domain), 40 s at 2 free (bucket 1, both in one).
  EXPECT_EQ(r.share_bucket_hosts, 2);
  ASSERT_EQ(r.share_bucket_s.size(), 2U);
  EXPECT_DOUBLE_EQ(r.share_bucket_s[0], 100);
  EXPECT_DOUBLE_EQ(r.share_bucket_s[1], 40);
  EXPECT_DOUBLE_EQ(r.share_bucket_free_hosts[0], 100);
  EXPECT_DOUBLE_EQ(r.share_bucket_domain_hosts[0], 0);
  EXPECT_DOUBLE_EQ(r.share_bucket_free_hosts[1], 80);
  EXPECT_DOUBLE_EQ(r.share_bucket_domain_hosts[1], 80);
  // Half-domain jobs (one host here) the free hosts held: 1 for 100 s, 2 for 40 s.
  EXPECT_DOUBLE_EQ(r.share_bucket_half_jobs[0], 100);
  EXPECT_DOUBLE_EQ(r.share_bucket_half_jobs[1], 80);
  const LocalityIndex plain(make_fabric(FixtureSpec{.leaf_groups = 1, .hosts_per_leaf = 4}));
  EXPECT_EQ(replay_trace(plain, jobs, *fabricfit, frag, ReplayOptions{}).multi_domain.jobs, 0);
  EXPECT_EQ(replay_trace(plain, jobs, *fabricfit, frag, ReplayOptions{}).in_domain.jobs, 0);
}

TEST(Replay, TinyTraceByHand) {
  const Fabric f = make_fabric(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 2});
  const LocalityIndex index(f);
  const auto jobs = tiny_trace();
  // Mix by GPU demand: 8 GPUs of 1x8, 32 of 2x8.
  const WorkloadMix mix = workload_mix_of(jobs);
  EXPECT_EQ(mix.to_string(), "8:0.2,2x8:0.8");
  const FragModel frag(mix, 8, 2);
  ReplayOptions options;

  // tree: j1 on gpu001 (leaf-01, the first of two equally tight groups), j2 on leaf-02,
  // j3 at 100 on leaf-01. Until 100 the one free host (gpu002) cannot take a 2-host job
  // in its group: 0.8 x 8 of 8 free GPUs unusable; then nothing is. frag_mean = 0.8 x 100/150.
  auto tree = make_policy("tree");
  const auto t = replay_trace(index, jobs, *tree, frag, options);
  EXPECT_EQ(t.jobs, 3);
  EXPECT_DOUBLE_EQ(t.wait_mean_s, 30.0);  // (0 + 0 + 90) / 3
  EXPECT_DOUBLE_EQ(t.wait_mean_multi_s, 45.0);
  EXPECT_DOUBLE_EQ(t.makespan_s, 150.0);
  EXPECT_EQ(t.one_group_jobs, 2);
  EXPECT_EQ(t.split_jobs, 0);
  EXPECT_DOUBLE_EQ(t.cross_spine_gb, 0.0);
  EXPECT_NEAR(t.frag_mean, 0.8 * 100 / 150, 1e-12);

  // firstfit: j2 on gpu002 + gpu003, split: a ring of 16 ranks crosses twice, 2 x 15/8 per
  // unit, x 1 GB/s x 100 s.
  auto firstfit = make_policy("firstfit");
  const auto ff = replay_trace(index, jobs, *firstfit, frag, options);
  EXPECT_EQ(ff.split_jobs, 1);
  EXPECT_DOUBLE_EQ(ff.split_share, 0.5);
  EXPECT_DOUBLE_EQ(ff.cross_spine_gb, 375.0);

  // fabricfit places j2 in one group too.
  auto fabricfit = make_policy("fabricfit");
  const auto fit = replay_trace(index, jobs, *fabricfit, frag, options);
  EXPECT_EQ(fit.split_jobs, 0);
  EXPECT_DOUBLE_EQ(fit.wait_mean_s, 30.0);
}

// `fabricfit replay` plays the plugin a site installs unless told otherwise (issue 28): the
// adaptive wait of a fabricfit.conf that says nothing, LocalityWaitMax=3600 and
// LocalityWaitEstimate=limit, not a cap of 0 (a fabricfit that never waits).
TEST(Replay, DefaultWaitIsThePluginsDefault) {
  const LocalityWaitSettings wait = plugin_default_wait();
  const SiteConfig empty = parse_site_config("", "empty fabricfit.conf");
  EXPECT_EQ(wait.cap_s, 3600);
  EXPECT_EQ(wait.cap_s, empty.locality_wait_max_s);
  EXPECT_EQ(wait.estimate, RunEstimate::TimeLimit);
  EXPECT_FALSE(empty.locality_wait_history_estimate);
  // Only the plugin's settings: the replay's own stand-ins for time limits stay as they were.
  EXPECT_EQ(wait.overestimate, LocalityWaitSettings{}.overestimate);
  EXPECT_EQ(wait.round_limits, LocalityWaitSettings{}.round_limits);
}

TEST(Replay, FixedSwitchWaitHoldsASplitJobBack) {
  // 2 groups x 3 hosts. At 0, A (2 hosts, 100 s) and B (2 hosts, 300 s) take two hosts of
  // each group. C (2 hosts) arrives at 1: it fits only split, until A leaves at 100.
  const Fabric f = make_fabric(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 3});
  const LocalityIndex index(f);
  const std::vector<TraceJob> jobs = {
      {.id = "A", .submit_s = 0, .duration_s = 100, .nodes = 2, .gpus_per_node = 8},
      {.id = "B", .submit_s = 0, .duration_s = 300, .nodes = 2, .gpus_per_node = 8},
      {.id = "C", .submit_s = 1, .duration_s = 10, .nodes = 2, .gpus_per_node = 8}};
  const FragModel frag(workload_mix_of(jobs), 8, 3);
  struct Case {
    double wait;
    int split;
    double c_waited;
  };
  for (const Case& c : {Case{0, 1, 0}, Case{200, 0, 99}, Case{50, 1, 50}}) {
    // Only tree-switches waits a fixed time; fabricfit's wait is adaptive (test_locality_wait).
    for (const char* name : {"tree-switches"}) {
      ReplayOptions options;
      options.retry_after_s = c.wait;
      PolicyOptions po;
      po.locality_wait_s = c.wait;
      auto policy = make_policy(name, po);
      const auto r = replay_trace(index, jobs, *policy, frag, options);
      EXPECT_EQ(r.jobs, 3) << name << " wait " << c.wait;
      EXPECT_EQ(r.split_jobs, c.split) << name << " wait " << c.wait;
      EXPECT_DOUBLE_EQ(r.wait_mean_s, c.c_waited / 3) << name << " wait " << c.wait;
    }
  }
}

TEST(Replay, OfferedLoadAndCompression) {
  const auto jobs = tiny_trace();
  // 8 x 100 + 16 x 100 + 16 x 50 = 3200 GPU-s over a 10 s arrival span on 32 GPUs.
  EXPECT_DOUBLE_EQ(offered_load(jobs, 32), 10.0);
  const auto squeezed = compress_arrivals(jobs, 2);
  EXPECT_DOUBLE_EQ(squeezed[2].submit_s, 5.0);
  EXPECT_DOUBLE_EQ(offered_load(squeezed, 32), 20.0);
}

// Policies share their seeds' draws, so a ratio between them is taken seed by seed: the JSON
// keeps each seed's figures beside the mean and interval.
// The interval takes Student's t for the seeds' count: 2.093 for 20 seeds, 1.984 for 100
// (the normal 1.96 beyond 30 seeds drew it about 1 % too narrow).
TEST(ReplayReport, IntervalsUseStudentsTForAnyNumberOfSeeds) {
  const Interval three = interval_of({1, 2, 3});
  EXPECT_DOUBLE_EQ(three.mean, 2);
  EXPECT_NEAR(three.hi - three.mean, 4.3027 / std::sqrt(3.0), 1e-4);
  std::vector<double> hundred;
  for (int i = 0; i < 100; ++i) hundred.push_back(i % 2 == 0 ? 0.0 : 2.0);
  const Interval wide = interval_of(hundred);
  const double sd = std::sqrt(100.0 / 99.0);
  EXPECT_NEAR(wide.hi - wide.mean, 1.9842 * sd / 10, 1e-4);
  EXPECT_NEAR(wide.mean - wide.lo, 1.9842 * sd / 10, 1e-4);
  EXPECT_EQ(interval_of({5}).lo, 5);
}

TEST(ReplayReport, JsonKeepsEverySeedsFigures) {
  ReplayReport report;
  report.seeds = {1, 2};
  ReplayResult a, b;
  a.policy = b.policy = "tree";
  a.seed = 1;
  b.seed = 2;
  a.classes[0].jobs = b.classes[0].jobs = 3;
  a.classes[0].jct_mean_s = 100;
  b.classes[0].jct_mean_s = 200;
  a.idle_while_fit_gpu_hours = 3;
  b.idle_while_fit_gpu_hours = 5;
  a.domain_half_jobs_mean = 4;
  b.domain_whole_free_mean = 2.5;
  b.domain_whole_free_share = 0.75;
  report.results = {{a, b}};
  const auto j = report_json(report);
  const auto& tree = j.at("results").at(0);
  EXPECT_DOUBLE_EQ(tree.at("classes").at("all").at("jct_mean_s").at("mean").get<double>(), 150.0);
  // t(0.975, 1 df) = 12.7062; the standard error of {100, 200} is 50.
  EXPECT_NEAR(tree.at("classes").at("all").at("jct_mean_s").at("lo").get<double>(), 150.0 - 12.7062 * 50,
              0.01);
  ASSERT_EQ(tree.at("per_seed").size(), 2U);
  EXPECT_EQ(tree.at("per_seed").at(1).at("seed").get<int>(), 2);
  EXPECT_DOUBLE_EQ(tree.at("per_seed").at(1).at("figures").at("all.jct_mean_s").get<double>(), 200.0);
  EXPECT_DOUBLE_EQ(tree.at("per_seed").at(0).at("figures").at("idle_while_fit_gpu_hours").get<double>(), 3.0);
  // No job wider than a domain ran: no multi-domain figures; block's objective always.
  EXPECT_FALSE(tree.at("per_seed").at(0).at("figures").contains("multi_domain.jct_mean_s"));
  EXPECT_DOUBLE_EQ(
      tree.at("per_seed").at(1).at("figures").at("diagnostics.domain_whole_free_mean").get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(
      tree.at("per_seed").at(0).at("figures").at("diagnostics.domain_half_jobs_mean").get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(
      tree.at("per_seed").at(1).at("figures").at("diagnostics.domain_whole_free_share").get<double>(), 0.75);

  // Jobs wider than a domain ran on the second seed only: its figures name them.
  b.multi_domain.jobs = 2;
  b.multi_domain.jct_mean_s = 300;
  b.multi_domain.gpu_hours = 7;
  report.results = {{a, b}};
  const auto wide = report_json(report).at("results").at(0).at("per_seed");
  EXPECT_DOUBLE_EQ(wide.at(1).at("figures").at("multi_domain.jct_mean_s").get<double>(), 300.0);
  EXPECT_DOUBLE_EQ(wide.at(1).at("figures").at("multi_domain.gpu_hours").get<double>(), 7.0);
  EXPECT_FALSE(wide.at(0).at("figures").contains("multi_domain.gpu_hours"));
  // Their mean over the seeds is over the seeds that had them: seed 1 had no completion time,
  // not one of 0 s. Counts and GPU-hours are sums a seed without them adds 0 to.
  const auto md = report_json(report).at("results").at(0).at("multi_domain");
  EXPECT_DOUBLE_EQ(md.at("jct_mean_s").at("mean").get<double>(), 300.0);
  EXPECT_DOUBLE_EQ(md.at("jobs").at("mean").get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(md.at("gpu_hours").at("mean").get<double>(), 3.5);
  // The same for the width classes: a class only seed 2 ran.
  a.classes[3] = {};
  b.classes[3].jobs = 4;
  b.classes[3].jct_mean_s = 80;
  report.results = {{a, b}};
  const auto wider = report_json(report).at("results").at(0).at("classes").at(kJobClassNames[3]);
  EXPECT_DOUBLE_EQ(wider.at("jct_mean_s").at("mean").get<double>(), 80.0);
  EXPECT_DOUBLE_EQ(wider.at("jct_mean_s").at("lo").get<double>(), 80.0) << "one seed had them: no spread";

  // The share by free hosts: integrals summed over the seeds, bucket by bucket.
  a.share_bucket_hosts = b.share_bucket_hosts = 18;
  a.share_bucket_s = {10, 20};
  a.share_bucket_free_hosts = {5, 400};
  a.share_bucket_domain_hosts = {0, 360};
  b.share_bucket_s = {1, 2, 3};
  b.share_bucket_free_hosts = {1, 40, 120};
  b.share_bucket_domain_hosts = {0, 36, 108};
  a.share_bucket_half_jobs = {20, 60};
  b.share_bucket_half_jobs = {0, 4};  // its third bucket held none
  report.results = {{a, b}};
  const auto by_free =
      report_json(report).at("results").at(0).at("diagnostics").at("domain_share_by_free_hosts");
  EXPECT_EQ(by_free.at("bucket_hosts").get<int>(), 18);
  EXPECT_EQ(by_free.at("seconds").get<std::vector<double>>(), (std::vector<double>{11, 22, 3}));
  EXPECT_EQ(by_free.at("free_host_seconds").get<std::vector<double>>(), (std::vector<double>{6, 440, 120}));
  EXPECT_EQ(by_free.at("domain_host_seconds").get<std::vector<double>>(), (std::vector<double>{0, 396, 108}));
  EXPECT_EQ(by_free.at("half_domain_job_seconds").get<std::vector<double>>(),
            (std::vector<double>{20, 64, 0}));

  // One seed: plain numbers and no per-seed list.
  report.seeds = {1};
  report.results = {{a}};
  const auto one = report_json(report).at("results").at(0);
  EXPECT_FALSE(one.contains("per_seed"));
  EXPECT_DOUBLE_EQ(one.at("classes").at("all").at("jct_mean_s").get<double>(), 100.0);
}

}  // namespace
