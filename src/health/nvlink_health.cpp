// SPDX-License-Identifier: GPL-2.0-or-later
#include "health/nvlink_health.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <map>
#include <set>

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
  if (!reports_fabric(g)) return worst;
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
  if (!h.incorrect_configuration.empty() && !iequals(h.incorrect_configuration, "None") &&
      !iequals(h.incorrect_configuration, "Not Supported")) {
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

NvlinkJudgement judge_nvlink(const NvlinkReport& report, const std::vector<NvlinkHostStatus>& previous,
                             std::int64_t now_unix, std::int64_t max_age_s) {
  std::map<std::string, const NvlinkHostStatus*, std::less<>> before;
  for (const NvlinkHostStatus& p : previous) before[p.host] = &p;
  NvlinkJudgement out;
  std::set<std::string, std::less<>> judged;  // hosts with a current report
  for (const NvlinkHostReport& host : report.hosts) {
    // No GPU, or none that says anything of the fabric (N/A, Not Supported): no news, as if
    // it had no report.
    if (std::ranges::none_of(host.gpus, reports_fabric)) continue;
    if (max_age_s > 0 && host.mtime_unix > 0 && now_unix - host.mtime_unix > max_age_s) {
      out.stale.push_back(host.host);
      continue;
    }
    judged.insert(host.host);
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
    out.hosts.push_back(std::move(s));
  }
  for (const NvlinkHostStatus& p : previous) {
    if (judged.contains(p.host)) continue;
    out.hosts.push_back(p);
    if (std::ranges::find(out.stale, p.host) == out.stale.end()) out.unreported.push_back(p.host);
  }
  std::ranges::sort(out.hosts, {}, &NvlinkHostStatus::host);
  std::ranges::sort(out.stale);
  std::ranges::sort(out.unreported);
  return out;
}

}  // namespace fabricfit
