// SPDX-License-Identifier: GPL-2.0-or-later
// Decision latency of the placement engine (fabricfit) and of the tree baseline, in
// process, at 1k/4k/16k/32k hosts with a realistic free-host map and request mix.
// Every decision is timed on its own, by the thread's CPU clock (what the decision costs;
// on a shared machine wall time adds whatever preemption happened to hit it) and by the
// wall clock. Counters: median and 99th percentile in microseconds, CPU (p50_us, p99_us)
// and wall (wall_p50_us, wall_p99_us). After the runs, the growth of the CPU p99 from 1k
// to 32k hosts is compared with n log n. wait_advice_latency times the adaptive locality
// wait's question that slurmctld adds to an evaluation whose placement is split (the
// run-time model beside 32 running split jobs, ECMP and static routes), and is reported
// as a ratio to fabricfit's own decision at the same size, run in the same process;
// record_latency times the placement record slurmctld's info line and AdminComment carry
// (score, leaf groups, and the fragmentation before and after), built for each allocation,
// as a ratio to the decision too.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <random>

#include <time.h>

#include "fabric_fixture.hpp"
#include "placement/runtime/runtime_model.hpp"
#include "placement/selection/baselines.hpp"
#include "placement/selection/selector.hpp"
#include "placement/slurm/fabric_status.hpp"
#include "placement/traffic_matrix.hpp"
#include "placement/waiting/wait_decision.hpp"

namespace fabricfit {
namespace {

constexpr int kHostsPerLeaf = 32;  // 64-port switches, 1:1
constexpr int kLeavesPerPod = 32;  // 1024 hosts per pod

// A cluster at about 75 % of its GPUs: whole leaf groups busy with big jobs, others
// mixed with whole-host and shared jobs, and some free. Seeded: the same map every run.
struct Cluster {
  explicit Cluster(int hosts) : world(spec(hosts), WorkloadMix::standard()) {
    std::mt19937 rng(static_cast<unsigned>(hosts));
    for (int l = 0; l < world.index.leaf_group_count(); ++l) {
      const int kind = static_cast<int>(rng() % 10);  // 0-3 busy, 4-8 mixed, 9 free
      for (int h : world.index.hosts_of(l)) {
        const int r = static_cast<int>(rng() % 100);
        if (kind <= 3) {
          world.busy(h, r < 95 ? 8 : 0);
        } else if (kind <= 8) {
          world.busy(h, r < 50 ? 8 : r < 75 ? 1 + static_cast<int>(rng() % 7) : 0);
        }
      }
    }
  }
  static testing::FixtureSpec spec(int hosts) {
    const int groups = hosts / kHostsPerLeaf;
    if (groups <= kLeavesPerPod) return {.leaf_groups = groups, .hosts_per_leaf = kHostsPerLeaf};
    return {.pods = groups / kLeavesPerPod, .leaf_groups = kLeavesPerPod, .hosts_per_leaf = kHostsPerLeaf};
  }
  testing::World world;
};

// The request mix: mostly small and whole-host jobs, some multi-host ones up to 64 hosts.
std::vector<JobRequest> request_mix() {
  struct Size {
    int nodes, gpus;
    const char* pattern;
    int count;
  };
  const Size sizes[] = {{1, 1, "none", 8}, {1, 4, "none", 3},     {1, 8, "none", 5},  {2, 8, "ring", 3},
                        {4, 8, "ring", 2}, {8, 8, "alltoall", 1}, {16, 8, "ring", 1}, {64, 8, "tree", 1}};
  std::vector<JobRequest> out;
  for (const Size& s : sizes) {
    for (int i = 0; i < s.count; ++i) {
      JobRequest r;
      r.min_nodes = s.nodes;
      r.gpus_per_node = s.gpus;
      r.pattern = parse_comm_pattern(s.pattern);
      out.push_back(r);
    }
  }
  std::shuffle(out.begin(), out.end(), std::mt19937(7));
  return out;
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The per_cent-th percentile of v (sorted here): the element at index size * per_cent / 100.
double percentile(std::vector<double>& v, int per_cent) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, v.size() * static_cast<std::size_t>(per_cent) / 100)];
}

std::map<std::pair<std::string, int>, double>& p99_results() {
  static std::map<std::pair<std::string, int>, double> m;
  return m;
}
std::map<std::pair<std::string, int>, double>& p50_results() {
  static std::map<std::pair<std::string, int>, double> m;
  return m;
}
// The locality wait's p50 by routing and size.
std::map<std::pair<std::string, int>, double>& wait_p50_results() {
  static std::map<std::pair<std::string, int>, double> m;
  return m;
}

// The placement record's p50 by size.
std::map<int, double>& record_p50_results() {
  static std::map<int, double> m;
  return m;
}

template <typename Policy>
void decision_latency(benchmark::State& state) {
  const int hosts = static_cast<int>(state.range(0));
  static std::map<int, std::unique_ptr<Cluster>> clusters;  // built once per size
  auto& cluster = clusters[hosts];
  if (!cluster) cluster = std::make_unique<Cluster>(hosts);
  const auto requests = request_mix();
  Policy policy;
  const PlacementContext ctx = cluster->world.ctx();
  std::vector<double> cpu_us, wall_us;
  std::size_t next = 0;
  for (auto _ : state) {
    const JobRequest& r = requests[next++ % requests.size()];
    const double c0 = thread_cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    auto a = policy.place(ctx, r);
    const auto t1 = std::chrono::steady_clock::now();
    const double c1 = thread_cpu_seconds();
    benchmark::DoNotOptimize(a);
    state.SetIterationTime(c1 - c0);
    cpu_us.push_back((c1 - c0) * 1e6);
    wall_us.push_back(std::chrono::duration<double>(t1 - t0).count() * 1e6);
  }
  state.counters["p50_us"] = percentile(cpu_us, 50);
  state.counters["p99_us"] = percentile(cpu_us, 99);
  state.counters["wall_p50_us"] = percentile(wall_us, 50);
  state.counters["wall_p99_us"] = percentile(wall_us, 99);
  state.counters["hosts"] = hosts;
  p99_results()[{policy.name(), hosts}] = percentile(cpu_us, 99);
  p50_results()[{policy.name(), hosts}] = percentile(cpu_us, 50);
}

BENCHMARK_TEMPLATE(decision_latency, FabricfitSelector)
    ->Arg(1024)
    ->Arg(4096)
    ->Arg(16384)
    ->Arg(32768)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(1.0);
// The locality wait's question for a split placement: 2-16 hosts of the request mix,
// half in one leaf group and half in the next, beside 32 running split rings of 4 hosts.
void wait_advice_latency(benchmark::State& state) {
  const int hosts = static_cast<int>(state.range(0));
  const auto routing = state.range(1) != 0 ? UplinkRouting::Static : UplinkRouting::Ecmp;
  static std::map<int, std::unique_ptr<Cluster>> clusters;
  auto& cluster = clusters[hosts];
  if (!cluster) cluster = std::make_unique<Cluster>(hosts);
  const LocalityIndex& index = cluster->world.index;
  const UplinkBundles bundles(index, routing, &cluster->world.fabric);
  BandwidthSharing running(bundles);
  std::mt19937 rng(11);
  std::vector<int> changed;
  const int groups = index.leaf_group_count();
  const auto split = [&](int n, int first_group) {
    Allocation a;
    for (int i = 0; i < n; ++i) {
      const auto& members = index.hosts_of((first_group + (i < n / 2 ? 0 : 1)) % groups);
      a.hosts.push_back(members[static_cast<std::size_t>(i) % members.size()]);
      a.gpus.push_back(8);
    }
    return a;
  };
  for (int j = 0; j < 32; ++j) {
    const Allocation a = split(4, static_cast<int>(rng() % static_cast<unsigned>(groups)));
    running.add(j, bundles.demand(TrafficMatrix::build(parse_comm_pattern("ring"), a.gpus), a.hosts),
                changed);
  }
  std::vector<double> free_at(static_cast<std::size_t>(index.host_count()), 0.0);
  for (int h = 0; h < index.host_count(); ++h) {
    if (cluster->world.gpus.free[h] < cluster->world.gpus.total[h]) free_at[h] = 60.0 + (rng() % 3600);
  }
  const std::vector<std::uint8_t> allowed(static_cast<std::size_t>(index.host_count()), 1);
  std::vector<JobRequest> requests;
  for (const JobRequest& r : request_mix()) {
    if (r.min_nodes >= 2 && r.min_nodes <= 16) requests.push_back(r);
  }
  const WaitFacts facts{.now = 0, .eligible = 0, .time_limit_s = 3600, .comm_share = 0.3, .cap_s = 3600};
  std::vector<double> cpu_us;
  std::size_t next = 0;
  for (auto _ : state) {
    const JobRequest& r = requests[next % requests.size()];
    const Allocation now = split(r.min_nodes, static_cast<int>(next++ % static_cast<std::size_t>(groups)));
    const double c0 = thread_cpu_seconds();
    auto d = decide_locality_wait(index, bundles, cluster->world.gpus, free_at, allowed, r.pattern,
                                  r.gpus_per_node, now, facts, &running);
    const double c1 = thread_cpu_seconds();
    benchmark::DoNotOptimize(d);
    state.SetIterationTime(c1 - c0);
    cpu_us.push_back((c1 - c0) * 1e6);
  }
  const double p50 = percentile(cpu_us, 50);
  state.counters["p50_us"] = p50;
  state.counters["p99_us"] = percentile(cpu_us, 99);
  state.counters["hosts"] = hosts;
  wait_p50_results()[{to_string(routing), hosts}] = p50;
}

// The record of each decision of the request mix, against the state it was made in.
void record_latency(benchmark::State& state) {
  const int hosts = static_cast<int>(state.range(0));
  Cluster cluster(hosts);
  const PlacementContext ctx = cluster.world.ctx();
  FabricfitSelector policy;
  std::vector<std::pair<Allocation, CommPattern>> placed;
  for (const JobRequest& r : request_mix()) {
    if (auto a = policy.place(ctx, r)) placed.emplace_back(std::move(*a), r.pattern);
  }
  if (placed.empty()) {
    state.SkipWithError("no request of the mix fits");
    return;
  }
  std::vector<double> cpu_us;
  std::size_t next = 0;
  for (auto _ : state) {
    const auto& [a, pattern] = placed[next++ % placed.size()];
    const double c0 = thread_cpu_seconds();
    auto text = placement_record(cluster.world.index, &cluster.world.frag, &cluster.world.gpus, a.hosts,
                                 a.gpus, pattern, "");
    const double c1 = thread_cpu_seconds();
    benchmark::DoNotOptimize(text);
    state.SetIterationTime(c1 - c0);
    cpu_us.push_back((c1 - c0) * 1e6);
  }
  const double p50 = percentile(cpu_us, 50);
  state.counters["p50_us"] = p50;
  state.counters["hosts"] = hosts;
  record_p50_results()[hosts] = p50;
}

BENCHMARK_TEMPLATE(decision_latency, TreePolicy)
    ->Arg(1024)
    ->Arg(4096)
    ->Arg(16384)
    ->Arg(32768)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(1.0);

BENCHMARK(record_latency)->Arg(1024)->Arg(4096)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(1.0);

BENCHMARK(wait_advice_latency)
    ->Args({1024, 0})
    ->Args({1024, 1})
    ->Args({4096, 0})
    ->Args({4096, 1})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(1.0);

}  // namespace
}  // namespace fabricfit

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  // Growth: p99 at n over p99 at 1k, against n log n over 1k log 1k.
  const auto& r = fabricfit::p99_results();
  for (const char* policy : {"fabricfit", "tree"}) {
    const auto base = r.find({policy, 1024});
    if (base == r.end()) continue;
    fmt::print("{:<9} CPU p99 growth from 1k hosts:", policy);
    for (const auto& [key, p99] : r) {
      if (key.first != policy) continue;
      const double n = key.second;
      const double nlogn = n * std::log2(n) / (1024.0 * 10.0);
      fmt::print("  {}k {:.1f}x (n log n {:.1f}x)", key.second / 1024, p99 / base->second, nlogn);
    }
    fmt::print("\n");
  }
  // The locality wait's question against fabricfit's decision (p50 over p50, same process).
  for (const auto& [key, p50] : fabricfit::wait_p50_results()) {
    const auto place = fabricfit::p50_results().find({"fabricfit", key.second});
    if (place == fabricfit::p50_results().end()) continue;
    fmt::print(
        "locality wait ({}) at {}k hosts: p50 {:.1f} us, {:.2f}x fabricfit's decision (p50 {:.1f} us)\n",
        key.first, key.second / 1024, p50, p50 / place->second, place->second);
  }
  for (const auto& [hosts, p50] : fabricfit::record_p50_results()) {
    const auto place = fabricfit::p50_results().find({"fabricfit", hosts});
    if (place == fabricfit::p50_results().end()) continue;
    fmt::print("placement record at {}k hosts: p50 {:.1f} us, {:.2f}x fabricfit's decision (p50 {:.1f} us)\n",
               hosts / 1024, p50, p50 / place->second, place->second);
  }
  return 0;
}
