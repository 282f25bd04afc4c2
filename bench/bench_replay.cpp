// SPDX-License-Identifier: GPL-2.0-or-later
// The replay with its run-time model: 10,000 jobs on 1,024 hosts (32 leaf groups of 32,
// 2:1 uplinks, peak demand, static routes and half the multi-host jobs all-to-all, so that
// shared bundles slow jobs down and the progress engine works), at about 80 % offered load,
// under fabricfit (with the adaptive wait) and tree. Target: a
// replay in under 10 s (issue 11); Google Benchmark reports the median of 3 runs.
#include <benchmark/benchmark.h>

#include <random>

#include "fabric_fixture.hpp"
#include "replay/replay.hpp"

namespace fabricfit {
namespace {

constexpr int kJobs = 10000;

std::vector<TraceJob> synthetic_trace(int cluster_gpus) {
  // Sizes (GPUs) and their shares of the jobs: mostly one-host jobs, some up to 32 hosts.
  struct Size {
    int nodes, gpus_per_node;
    double share;
  };
  const Size sizes[] = {{1, 1, 0.45}, {1, 4, 0.1},  {1, 8, 0.2},   {2, 8, 0.1},
                        {4, 8, 0.08}, {8, 8, 0.04}, {16, 8, 0.02}, {32, 8, 0.01}};
  std::mt19937_64 rng(11);
  std::exponential_distribution<double> duration(1.0 / 3600);
  std::vector<TraceJob> jobs;
  double work = 0;
  for (int i = 0; i < kJobs; ++i) {
    double u = std::uniform_real_distribution<double>(0, 1)(rng), acc = 0;
    Size s = sizes[0];
    for (const Size& x : sizes) {
      acc += x.share;
      if (u <= acc) {
        s = x;
        break;
      }
    }
    TraceJob j{.id = std::to_string(i),
               .duration_s = 60 + duration(rng),
               .nodes = s.nodes,
               .gpus_per_node = s.gpus_per_node};
    work += j.duration_s * j.gpus();
    jobs.push_back(j);
  }
  // Arrivals evenly spread so that the offered load is 0.8.
  const double span = work / (0.8 * cluster_gpus);
  for (int i = 0; i < kJobs; ++i) jobs[i].submit_s = span * i / kJobs;
  return jobs;
}

void BM_Replay(benchmark::State& state, const char* policy_name) {
  const Fabric f = testing::make_fabric({.leaf_groups = 32, .hosts_per_leaf = 32, .uplinks = 16});
  const LocalityIndex index(f);
  const auto jobs = synthetic_trace(index.host_count() * 8);
  const FragModel frag(workload_mix_of(jobs), 8, index.largest_leaf_group());
  ReplayOptions options;
  options.wait.cap_s = 4 * 3600;
  // Phases aligned and pinned routes: jobs contend, so the progress engine re-levels and
  // reschedules (the case that costs most).
  options.model.demand = DemandMode::Peak;
  options.model.routing = UplinkRouting::Static;
  options.rule = parse_pattern_rule("multi=ring,alltoall=0.5");
  ReplayResult r;
  for (auto _ : state) {
    auto policy = make_policy(policy_name);
    r = replay_trace(index, jobs, *policy, frag, options);
    benchmark::DoNotOptimize(r);
  }
  state.counters["jobs"] = r.jobs;
  state.counters["slowed_share"] = r.slowed_jobs_share;
  state.counters["waits"] = r.locality_waits;
}

BENCHMARK_CAPTURE(BM_Replay, fabricfit, "fabricfit")->Unit(benchmark::kSecond)->Iterations(1)->Repetitions(3);
BENCHMARK_CAPTURE(BM_Replay, tree, "tree")->Unit(benchmark::kSecond)->Iterations(1)->Repetitions(3);

}  // namespace
}  // namespace fabricfit

BENCHMARK_MAIN();
