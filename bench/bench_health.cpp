// SPDX-License-Identifier: GPL-2.0-or-later
// The in-memory part of a health sweep on a 2,048-port fabric (`make bench-health`): every
// port's update from a fresh read (deltas, rates, hysteresis), the cables' states from
// the snapshot, and the health file's encode and decode. The live sweep against ibsim
// (MADs through umad2sim) is bench/bench_health_sweep.sh; docs/performance.md has both.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "generated_fabric.hpp"
#include "health/health_file.hpp"
#include "health/health_judge.hpp"
#include "health/health_links.hpp"

namespace {

using namespace fabricfit;

// 32 leaves of 16 hosts under 8 spines, 1:1: 512 host cables and 512 uplinks, 2,048 ports.
const std::vector<Cable>& cables() {
  static const std::vector<Cable> c = cables_of(fabricfit::testing::generated_fabric(
      fabricfit::testing::clos_spec({.leaves = 32, .hosts_per_leaf = 16, .spines = 8})));
  return c;
}

PortReading reading(std::int64_t t, std::uint64_t errors) {
  PortReading r;
  r.kind = PortReading::Kind::Read;
  r.now_unix = t;
  r.link_gbps = 200;
  for (std::size_t i = 0; i < kCounterCount; ++i) {
    r.sample.bits[i] = static_cast<std::uint8_t>(counter_bits(static_cast<Counter>(i)));
    r.sample.value[i] = errors * (i + 1);
  }
  r.sample.time_unix_ms = t * 1000;
  return r;
}

// Ports sorted by id, each with a baseline read.
std::vector<PortHealth> baseline(const HealthThresholds& t) {
  std::vector<PortHealth> ports;
  for (const auto& c : cables()) {
    for (const PortId id : {c.a, c.b}) {
      PortHealth p;
      p.id = id;
      update_port_health(p, reading(0, 0), t);
      ports.push_back(std::move(p));
    }
  }
  std::ranges::sort(ports, {}, &PortHealth::id);
  return ports;
}

void BM_UpdateAllPorts(benchmark::State& state) {
  const HealthThresholds t;
  std::vector<PortHealth> ports = baseline(t);
  std::int64_t now = 0;
  for (auto _ : state) {
    now += 60;
    // Every 16th port counts errors: the rate path and the hysteresis run too.
    for (std::size_t i = 0; i < ports.size(); ++i)
      update_port_health(ports[i], reading(now, i % 16 == 0 ? static_cast<std::uint64_t>(now) : 0), t);
    benchmark::DoNotOptimize(ports.data());
  }
  state.counters["ports"] = static_cast<double>(ports.size());
}
BENCHMARK(BM_UpdateAllPorts)->Unit(benchmark::kMicrosecond);

void BM_LinkStatuses(benchmark::State& state) {
  const HealthThresholds t;
  std::vector<PortHealth> ports = baseline(t);
  for (std::size_t i = 0; i < ports.size(); i += 16) ports[i].state = HealthState::SubHealthy;
  for (auto _ : state) benchmark::DoNotOptimize(link_statuses(cables(), ports));
}
BENCHMARK(BM_LinkStatuses)->Unit(benchmark::kMicrosecond);

void BM_EncodeDecode(benchmark::State& state) {
  const HealthThresholds t;
  HealthFile h;
  h.ports = baseline(t);
  h.links = link_statuses(cables(), h.ports);
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string b = encode_health(h);
    bytes = b.size();
    benchmark::DoNotOptimize(decode_health(b, "bench"));
  }
  state.counters["file_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_EncodeDecode)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
