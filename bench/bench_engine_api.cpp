// SPDX-License-Identifier: GPL-2.0-or-later
// What topology/fabricfit's evaluation asks of the engine, through the C API as the plugin
// calls it (src/plugin/topology_eval.c): ff_job_request (with the job's pattern) and
// ff_engine_place, on the lab stream's fabric (64 hosts: 8 leaf groups of 8, 2 spines,
// 2:1 uplinks) about 70 % busy. "hot" runs the calls back to back; "cold" first writes a
// buffer larger than the last-level cache, as slurmctld does between two evaluations;
// "cold:2" then warms the code with the same calls on another engine (data cold, code warm)
// (docs/performance.md: the same calls cost 3-4x more inside slurmctld than back to back).
// Times are by the thread CPU clock, the eviction left out; p50 and p99 per evaluation.
#include <benchmark/benchmark.h>

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "capi/fabricfit_api.h"
#include "topology/fabric_builder.hpp"
#include "topology/generate/clos_generator.hpp"
#include "topology/readers/ibnetdiscover_reader.hpp"
#include "topology/snapshot.hpp"

namespace fs = std::filesystem;

namespace {

double thread_cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) * 1e-3;
}

double percentile(std::vector<double> v, int per_cent) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, v.size() * static_cast<std::size_t>(per_cent) / 100)];
}

// A job as slurmctld hands it over: its TRES strings and node counts.
struct Job {
  std::string tres_per_node;
  unsigned nodes;
  const char* pattern;  // the SPANK option, or nullptr
};

struct LabEngine {
  LabEngine() {
    const fs::path dir = fs::temp_directory_path() / ("ff-bench-api-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path snap = dir / "fabric.snap";
    fabricfit::ClosSpec spec;
    spec.leaves = 8;
    spec.hosts_per_leaf = 8;
    spec.spines = 2;
    spec.uplinks = 4;
    const auto raw = fabricfit::read_ibnetdiscover_text(fabricfit::generate_ibnetdiscover(spec), "generated");
    fabricfit::save_snapshot(snap, fabricfit::build_fabric(raw, fabricfit::ModelOptions{}),
                             fabricfit::SnapshotInfo{});
    char err[512] = "";
    if (ff_engine_load(snap.c_str(), &engine, err, sizeof err) != FF_OK) throw std::runtime_error(err);
    fs::remove_all(dir);
    hosts = ff_engine_host_count(engine);
    total.assign(hosts, 8);
    free.assign(hosts, 8);
    allowed.assign(hosts, 0);
    chosen.assign(hosts, -1);
    // About 70 % busy: a third of the hosts whole-busy, a third partly used; Slurm offers
    // the hosts with a free GPU.
    std::mt19937 rng(11);
    for (int h = 0; h < hosts; ++h) {
      const int r = static_cast<int>(rng() % 3);
      free[h] = r == 0 ? 0 : r == 1 ? static_cast<int>(rng() % 8) : 8;
      allowed[h] = free[h] > 0 ? 1 : 0;
    }
  }
  ~LabEngine() { ff_engine_free(engine); }
  LabEngine(const LabEngine&) = delete;
  LabEngine& operator=(const LabEngine&) = delete;

  ff_engine_t* engine = nullptr;
  int hosts = 0;
  std::vector<int> total, free, chosen;
  std::vector<unsigned char> allowed;
};

// The lab stream's jobs: mostly one host of 1-8 GPUs, a fifth 2-4 whole hosts.
std::vector<Job> jobs() {
  return {{"gres/gpu:1", 1, nullptr}, {"gres/gpu:8", 2, "ring"},     {"gres/gpu:2", 1, nullptr},
          {"gres/gpu:4", 1, nullptr}, {"gres/gpu:8", 4, "alltoall"}, {"gres/gpu:1", 1, nullptr},
          {"gres/gpu:8", 1, nullptr}, {"gres/gpu:2", 1, nullptr},    {"gres/gpu:8", 3, "ring"},
          {"gres/gpu:4", 1, nullptr}};
}

// Writes 64 MiB: past any last-level cache of the machines this runs on.
void evict() {
  static std::vector<std::uint64_t> junk(8u << 20);
  static std::uint64_t round = 0;
  ++round;
  for (auto& x : junk) x += round;
  benchmark::DoNotOptimize(junk.data());
}

// The plugin's calls for one job on lab's engine: FF_OK or FF_ENOFIT, else an error in err.
int evaluate(LabEngine& lab, const Job& job, const ff_settings_t& settings, char* err, size_t err_len) {
  ff_job_facts_t facts{};
  facts.tres_per_node = job.tres_per_node.c_str();
  facts.min_nodes = facts.max_nodes = facts.req_nodes = job.nodes;
  facts.comm_pattern = job.pattern;
  ff_request_t request{};
  char summary[512];
  summary[0] = '\0';
  const int rc = ff_job_request(&facts, &settings, &request, err, err_len);
  if (rc != FF_OK) return rc;
  unsigned n = 0;
  return ff_engine_place(lab.engine, &request, lab.allowed.data(), lab.free.data(), lab.total.data(),
                         lab.chosen.data(), &n, summary, sizeof summary, err, err_len);
}

void evaluation(benchmark::State& state) {
  static LabEngine lab, other;
  const bool cold = state.range(0) != 0;
  const bool code_warm = state.range(0) == 2;
  const auto mix = jobs();
  ff_settings_t settings{};
  settings.default_pattern = ff_pattern_t{FF_PATTERN_RING, 1, 1, 1};
  std::vector<double> us;
  std::size_t next = 0;
  char err[512] = "";
  for (auto _ : state) {
    const Job& job = mix[next++ % mix.size()];
    if (cold) evict();
    // The same calls on another engine: the code is warm again, this engine's data not.
    if (code_warm) benchmark::DoNotOptimize(evaluate(other, job, settings, err, sizeof err));
    const double t0 = thread_cpu_us();
    const int rc = evaluate(lab, job, settings, err, sizeof err);
    const double t1 = thread_cpu_us();
    if (rc != FF_OK && rc != FF_ENOFIT) state.SkipWithError(err);
    state.SetIterationTime((t1 - t0) * 1e-6);
    us.push_back(t1 - t0);
  }
  state.counters["p50_us"] = percentile(us, 50);
  state.counters["p99_us"] = percentile(us, 99);
}

// Hot: as many as a second takes. Cold and code-warm: each eviction writes 64 MiB (about
// 10 ms), so a fixed count.
BENCHMARK(evaluation)->ArgName("cold")->Arg(0)->UseManualTime()->Unit(benchmark::kMicrosecond)->MinTime(1.0);
BENCHMARK(evaluation)
    ->ArgName("cold")
    ->Arg(1)
    ->Arg(2)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond)
    ->Iterations(1500);

// A split job's placement beside running split jobs (arg 1) against the same placement
// with none registered (arg 0), under static routes: what steering (selector.cpp,
// selector_cables.cpp) adds to an evaluation. Rings run between busy hosts of neighbouring
// leaf groups; the jobs are 6-8 whole hosts, which this state has to split.
// "steered" is the share of evaluations that looked at the running traffic.
void split_placement(benchmark::State& state) {
  static LabEngine lab;
  const bool beside = state.range(0) != 0;
  char err[512] = "";
  if (ff_engine_use_routing(lab.engine, 1, err, sizeof err) != FF_OK) state.SkipWithError(err);
  if (beside) {
    std::vector<std::vector<int>> busy(8);
    for (int h = 0; h < lab.hosts; ++h) {
      const int g = ff_engine_host_leaf_group(lab.engine, h);
      if (lab.free[h] == 0 && g >= 0 && g < 8) busy[g].push_back(h);
    }
    const ff_request_t ring{2, 2, 8, 0, 0, ff_pattern_t{FF_PATTERN_RING, 1, 1, 1}};
    for (int g = 0; g < 8; ++g) {
      const auto& a = busy[g];
      const auto& b = busy[(g + 1) % 8];
      if (a.empty() || b.size() < 2) continue;
      const int hosts[] = {a[0], b[1]};
      if (ff_engine_running_add(lab.engine, static_cast<std::uint32_t>(g + 1), &ring, hosts, 2, err,
                                sizeof err) != FF_OK)
        state.SkipWithError(err);
    }
  } else {
    for (std::uint32_t id = 1; id <= 8; ++id) (void)ff_engine_running_remove(lab.engine, id, err, sizeof err);
  }
  state.counters["running"] = ff_engine_running_jobs(lab.engine, nullptr, 0);
  const std::vector<Job> mix{
      {"gres/gpu:8", 6, "ring"}, {"gres/gpu:8", 7, "alltoall"}, {"gres/gpu:8", 8, "ring"}};
  ff_settings_t settings{};
  settings.default_pattern = ff_pattern_t{FF_PATTERN_RING, 1, 1, 1};
  std::vector<double> us;
  std::size_t next = 0, steered = 0, placed = 0;
  for (auto _ : state) {
    const Job& job = mix[next++ % mix.size()];
    ff_job_facts_t facts{};
    facts.tres_per_node = job.tres_per_node.c_str();
    facts.min_nodes = facts.max_nodes = facts.req_nodes = job.nodes;
    facts.comm_pattern = job.pattern;
    ff_request_t request{};
    char summary[512] = "";
    if (ff_job_request(&facts, &settings, &request, err, sizeof err) != FF_OK) state.SkipWithError(err);
    unsigned n = 0;
    const double t0 = thread_cpu_us();
    const int rc =
        ff_engine_place(lab.engine, &request, lab.allowed.data(), lab.free.data(), lab.total.data(),
                        lab.chosen.data(), &n, summary, sizeof summary, err, sizeof err);
    const double t1 = thread_cpu_us();
    if (rc != FF_OK && rc != FF_ENOFIT) state.SkipWithError(err);
    if (std::string_view(summary).find("uplink_share=") != std::string_view::npos) ++steered;
    placed += rc == FF_OK ? 1 : 0;
    state.SetIterationTime((t1 - t0) * 1e-6);
    us.push_back(t1 - t0);
  }
  state.counters["p50_us"] = percentile(us, 50);
  state.counters["p99_us"] = percentile(us, 99);
  const double evaluations = static_cast<double>(std::max<std::size_t>(1, next));
  state.counters["steered"] = static_cast<double>(steered) / evaluations;
  state.counters["placed"] = static_cast<double>(placed) / evaluations;
}
BENCHMARK(split_placement)
    ->ArgName("beside")
    ->Arg(0)
    ->Arg(1)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond)
    ->MinTime(1.0)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);

}  // namespace

BENCHMARK_MAIN();
