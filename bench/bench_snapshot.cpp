// SPDX-License-Identifier: GPL-2.0-or-later
// The Fabric model at 1k, 4k and 16k hosts (`make bench`): build_fabric() from a RawFabric,
// snapshot encode/decode, and snapshot load from a file, which is what the controller
// does. Targets (docs/snapshot-format.md): load <= 0.3 s and <= 150 MB RSS at 16k hosts.
// The RSS of a load is measured in a child process (this program run with
// --rss-probe FILE), whose peak RSS wait4() reports, less that of a child that loads
// nothing.
#include <benchmark/benchmark.h>

#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>

#include "raw_fixtures.hpp"
#include "topology/fabric_builder.hpp"
#include "topology/generate/clos_generator.hpp"
#include "topology/snapshot.hpp"

namespace {

namespace fs = std::filesystem;

// The shapes bench_readers.cpp uses: what a real site might run at each size (switch
// radix up to 128); 16k hosts is three tiers. `rails` > 1 gives the same number of hosts
// with one leaf per rail in each group.
fabricfit::ClosSpec spec_for(int hosts, int rails) {
  fabricfit::ClosSpec s;
  s.rate = fabricfit::LinkRate{4, "NDR"};
  s.host_digits = 5;
  s.uplinks = 16;
  s.spines = 16;
  s.switch_ports = 128;
  s.rails = rails;
  switch (hosts) {
    case 1024:
      s.leaves = 32;
      s.hosts_per_leaf = 32;
      break;
    case 4096:
      s.leaves = 128;
      s.hosts_per_leaf = 32;
      break;
    case 16384:
      s.pods = 8;
      s.leaves = 32;
      s.hosts_per_leaf = 64;
      s.cores = 16;
      s.core_uplinks = 16;
      if (rails > 1) {  // 2,048 leaves: 16 pods of 16 groups, 8 uplinks, so that spines fit 254 ports
        s.pods = 16;
        s.leaves = 16;
        s.spines = 8;
        s.uplinks = 8;
        s.cores = 8;
        s.core_uplinks = 8;
        s.switch_ports = 254;
      }
      break;
    default: throw std::invalid_argument("no shape for that many hosts");
  }
  return s;
}

struct Case {
  fabricfit::RawFabric raw;
  fabricfit::Fabric fabric;
  std::string snapshot;
  fs::path file;
};

const Case& case_for(int hosts, int rails) {
  static std::map<std::pair<int, int>, Case> cache;
  auto it = cache.find({hosts, rails});
  if (it != cache.end()) return it->second;
  Case c;
  // Built directly (tests/topology/raw_fixtures): the generator's text numbers LIDs past the
  // unicast range above 49,151 nodes, which the text reader rightly refuses.
  c.raw = fabricfit::testing::make_clos(spec_for(hosts, rails));
  c.fabric = fabricfit::build_fabric(c.raw, {});
  c.snapshot = fabricfit::encode_snapshot(c.fabric, {"bench", 0, {}});
  c.file = fs::temp_directory_path() / ("ff-bench-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(hosts) + "x" + std::to_string(rails));
  fabricfit::save_snapshot(c.file, c.fabric, {"bench", 0, {}});
  return cache.emplace(std::pair{hosts, rails}, std::move(c)).first->second;
}

void counters(benchmark::State& state, const Case& c) {
  state.counters["hosts"] = static_cast<double>(c.fabric.hosts.size());
  state.counters["vertices"] = static_cast<double>(boost::num_vertices(c.fabric.graph));
  state.counters["edges"] = static_cast<double>(boost::num_edges(c.fabric.graph));
  state.counters["MB"] = static_cast<double>(c.snapshot.size()) / 1e6;
}

void BM_BuildFabric(benchmark::State& state) {
  const Case& c = case_for(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  for (auto _ : state) {
    fabricfit::Fabric f = fabricfit::build_fabric(c.raw, {});
    benchmark::DoNotOptimize(f.hosts.data());
  }
  counters(state, c);
}

void BM_EncodeSnapshot(benchmark::State& state) {
  const Case& c = case_for(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  for (auto _ : state) {
    std::string bytes = fabricfit::encode_snapshot(c.fabric, {"bench", 0, {}});
    benchmark::DoNotOptimize(bytes.data());
  }
  counters(state, c);
}

void BM_LoadSnapshot(benchmark::State& state) {
  const Case& c = case_for(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  for (auto _ : state) {
    fabricfit::Snapshot s = fabricfit::load_snapshot(c.file);
    benchmark::DoNotOptimize(s.fabric.hosts.data());
  }
  counters(state, c);
}

// Peak RSS (MB) of this program run as `--rss-probe FILE` (FILE "-": load nothing), as
// the child reports it from /proc/self/status (VmHWM belongs to the new address space;
// getrusage's ru_maxrss would carry over this parent's peak across fork and exec).
double child_peak_rss_mb(const fs::path& file) {
  // popen runs a shell: name this program by its path, not /proc/self/exe.
  const std::string cmd =
      "'" + fs::read_symlink("/proc/self/exe").string() + "' --rss-probe '" + file.string() + "'";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) throw std::runtime_error("cannot run the rss probe");
  double kb = -1;
  if (std::fscanf(p, "%lf", &kb) != 1) kb = -1;
  if (::pclose(p) != 0 || kb < 0) throw std::runtime_error("rss probe failed");
  return kb / 1024.0;
}

// VmHWM of this process, in kB.
long peak_rss_kb() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  long kb = -1;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
  }
  std::fclose(f);
  return kb;
}

void BM_LoadSnapshotRss(benchmark::State& state) {
  const Case& c = case_for(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  double peak = 0, base = 0;
  for (auto _ : state) {
    peak = child_peak_rss_mb(c.file);
    base = child_peak_rss_mb("-");
  }
  counters(state, c);
  state.counters["peak_rss_MB"] = peak;
  state.counters["load_rss_MB"] = peak - base;
}

const auto kSizes = {1024, 4096, 16384};

void sizes(benchmark::internal::Benchmark* b) {
  for (int hosts : kSizes) b->Args({hosts, 1});
  b->Args({16384, 8});  // 16k hosts with 8 rails: 131,072 HCAs
  b->Unit(benchmark::kMillisecond)->Repetitions(5)->ReportAggregatesOnly(true);
}

BENCHMARK(BM_BuildFabric)->Apply(sizes);
BENCHMARK(BM_EncodeSnapshot)->Apply(sizes);
BENCHMARK(BM_LoadSnapshot)->Apply(sizes);
BENCHMARK(BM_LoadSnapshotRss)
    ->Args({16384, 1})
    ->Args({16384, 8})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--rss-probe") == 0) {
    if (std::strcmp(argv[2], "-") != 0) {
      const fabricfit::Snapshot s = fabricfit::load_snapshot(argv[2]);
      if (s.fabric.hosts.empty()) return 1;
    }
    std::printf("%ld\n", peak_rss_kb());
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  for (const auto& entry : fs::directory_iterator(fs::temp_directory_path())) {
    if (entry.path().filename().string().starts_with("ff-bench-" + std::to_string(::getpid()) + "-")) {
      fs::remove(entry.path());
    }
  }
  return 0;
}
