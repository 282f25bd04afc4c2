// SPDX-License-Identifier: GPL-2.0-or-later
#include "health/nvlink_health.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <map>

#include "common/iequals.hpp"

namespace fabricfit {
namespace {

struct Finding {
  HealthState state = HealthState::Healthy;
  std::string reason;
  int line = 0;
};

// The worst of what one GPU's Fabric section says; the first finding at that level.
Finding judge_gpu(const NvlinkGpuFabric& g) {
  Finding worst;
  const auto note = [&](HealthState s, std::string why, int line) {
    if (s > worst.state) worst = {s, fmt::format("GPU {}: {}", g.gpu, why), line != 0 ? line : g.line};
  };
  if (g.state.empty()) return worst;
  if (!iequals(g.state, "Completed")) {
    note(HealthState::Down, fmt::format("not registered with the NVLink fabric (Fabric State {})", g.state),
         g.fabric_line);
  } else if (!iequals(g.status, "Success")) {
    note(HealthState::Down,
         fmt::format("failed to register with the NVLink fabric (Fabric Status {})",
                     g.status.empty() ? std::string("N/A") : g.status),
         g.fabric_line);
  }
  const NvlinkGpuFabricHealth& h = g.health;
  const auto is_true = [](const std::string& v) { return iequals(v, "True"); };
  if (is_true(h.route_unhealthy)) note(HealthState::Down, "Route Unhealthy True", h.line);
  if (is_true(h.route_recovery)) note(HealthState::Down, "Route Recovery in progress True", h.line);
  if (is_true(h.access_timeout_recovery)) note(HealthState::Down, "Access Timeout Recovery True", h.line);
  if (!h.incorrect_configuration.empty() && !iequals(h.incorrect_configuration, "None")) {
    note(HealthState::Down, fmt::format("Incorrect Configuration {}", h.incorrect_configuration), h.line);
  }
  if (iequals(h.summary, "Unhealthy")) note(HealthState::Down, "Health Summary Unhealthy", h.line);
  if (iequals(h.bandwidth, "Degraded")) note(HealthState::SubHealthy, "Bandwidth Degraded", h.line);
  if (iequals(h.summary, "Limited Capacity")) {
    note(HealthState::SubHealthy, "Health Summary Limited Capacity", h.line);
  }
  return worst;
}

}  // namespace

std::vector<NvlinkHostStatus> judge_nvlink(const NvlinkReport& report,
                                           const std::vector<NvlinkHostStatus>& previous,
                                           std::int64_t now_unix) {
  std::map<std::string, const NvlinkHostStatus*, std::less<>> before;
  for (const NvlinkHostStatus& p : previous) before[p.host] = &p;
  std::vector<NvlinkHostStatus> out;
  for (const NvlinkHostReport& host : report.hosts) {
    Finding worst;
    int bad = 0;
    for (const NvlinkGpuFabric& g : host.gpus) {
      Finding f = judge_gpu(g);
      if (f.state == HealthState::Healthy) continue;
      ++bad;
      if (f.state > worst.state) worst = std::move(f);
    }
    if (worst.state == HealthState::Healthy) continue;
    NvlinkHostStatus s;
    s.host = host.host;
    s.state = worst.state;
    const auto it = before.find(host.host);
    s.since_unix = it != before.end() && it->second->state == worst.state ? it->second->since_unix : now_unix;
    s.reason = bad > 1 ? fmt::format("{} ({} of {} GPUs not healthy)", worst.reason, bad, host.gpus.size())
                       : worst.reason;
    s.at = fmt::format("{}:{}", host.file, worst.line);
    out.push_back(std::move(s));
  }
  std::ranges::sort(out, {}, &NvlinkHostStatus::host);
  return out;
}

}  // namespace fabricfit
