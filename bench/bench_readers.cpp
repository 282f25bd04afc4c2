// SPDX-License-Identifier: GPL-2.0-or-later
// The ibnetdiscover text reader at 1k, 4k and 16k hosts (`make bench`). The fabrics are
// generated in process (ClosSpec), so the figures do not depend on files on disk.
// Live discovery is measured against ibnetdiscover by bench/bench_live_discovery.sh.
#include <benchmark/benchmark.h>

#include <map>
#include <stdexcept>
#include <string>

#include "topology/generate/clos_generator.hpp"
#include "topology/readers/ibnetdiscover_reader.hpp"
#include "topology/readers/raw_fabric_order.hpp"

namespace {

// Clos shapes a real site might run at each size (switch radix up to 128).
fabricfit::ClosSpec spec_for(int hosts) {
  fabricfit::ClosSpec s;
  s.rate = fabricfit::LinkRate{4, "NDR"};
  s.host_digits = 5;
  s.uplinks = 16;
  s.spines = 16;
  s.switch_ports = 128;
  switch (hosts) {
    case 1024:
      s.leaves = 32;
      s.hosts_per_leaf = 32;
      break;  // two tiers, 2:1
    case 4096:
      s.leaves = 128;
      s.hosts_per_leaf = 32;
      break;     // two tiers, 2:1
    case 16384:  // three tiers, 4:1 at the leaves
      s.pods = 8;
      s.leaves = 32;
      s.hosts_per_leaf = 64;
      s.cores = 16;
      s.core_uplinks = 16;
      break;
    default: throw std::invalid_argument("no shape for that many hosts");
  }
  return s;
}

const std::string& net_text(int hosts) {
  static std::map<int, std::string> cache;
  auto it = cache.find(hosts);
  if (it == cache.end()) it = cache.emplace(hosts, fabricfit::generate_ibnetdiscover(spec_for(hosts))).first;
  return it->second;
}

void BM_ReadIbnetdiscoverText(benchmark::State& state) {
  const int hosts = static_cast<int>(state.range(0));
  const std::string& text = net_text(hosts);
  std::size_t nodes = 0, links = 0;
  for (auto _ : state) {
    const fabricfit::RawFabric f = fabricfit::read_ibnetdiscover_text(text, "bench.net");
    nodes = f.nodes.size();
    links = fabricfit::count_links(f);
    benchmark::DoNotOptimize(f.nodes.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(text.size()));
  state.counters["hosts"] = hosts;
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["links"] = static_cast<double>(links);
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
}
BENCHMARK(BM_ReadIbnetdiscoverText)->Arg(1024)->Arg(4096)->Arg(16384)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
