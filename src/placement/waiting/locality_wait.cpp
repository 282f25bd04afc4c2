// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/waiting/locality_wait.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace fabricfit {

double replay_time_limit(double duration_s, const LocalityWaitSettings& settings) {
  const double limit = duration_s * settings.overestimate;
  if (!settings.round_limits) return limit;
  constexpr double kMin = 60, kHour = 3600, kDay = 86400;
  constexpr std::array<double, 12> kTyped{15 * kMin,  30 * kMin, kHour,    2 * kHour, 4 * kHour, 6 * kHour,
                                          12 * kHour, kDay,      2 * kDay, 3 * kDay,  5 * kDay,  7 * kDay};
  for (const double v : kTyped) {
    if (limit <= v) return v;
  }
  return std::ceil(limit / (7 * kDay)) * 7 * kDay;
}

int wait_segment(const LocalityIndex& index, int asked, int nodes, bool on_domains) {
  if (index.domain_count() == 0 || !on_domains) return 0;
  if (asked > 0) return asked;
  return nodes <= index.largest_domain() ? nodes : 1;
}

namespace {

// When `segments` segments of `segment` hosts, each inside one NVLink domain, are free
// among `when` (sorted by time), and their hosts: each domain's hosts as they free, a
// segment done each time a domain has `segment` more.
bool ready_by_domains(const LocalityIndex& index, const std::vector<std::pair<double, int>>& when,
                      int segment, int segments, std::vector<std::vector<int>>& pending,
                      GroupReadiness& out) {
  for (auto& p : pending) p.clear();
  out.hosts.clear();
  int done = 0;
  for (const auto& [t, h] : when) {
    std::vector<int>& p = pending[static_cast<std::size_t>(*index.domain_of(h))];
    p.push_back(h);
    if (static_cast<int>(p.size()) < segment) continue;
    out.hosts.insert(out.hosts.end(), p.begin(), p.end());
    p.clear();
    if (++done == segments) {
      out.ready_s = t;
      return true;
    }
  }
  return false;
}

}  // namespace

GroupReadiness earliest_group(const LocalityIndex& index, const GpuState& gpus,
                              std::span<const double> host_free_at, int nodes, int gpus_per_node, double now,
                              std::span<const std::uint8_t> allowed, int segment) {
  GroupReadiness best;
  if (nodes < 1) return best;
  const bool by_domains = segment > 0 && index.domain_count() > 0;
  if (by_domains && nodes % segment != 0) return best;
  std::vector<std::vector<int>> pending(by_domains ? static_cast<std::size_t>(index.domain_count()) : 0);
  std::vector<std::pair<double, int>> when;  // (time the host counts, host)
  for (int l = 0; l < index.leaf_group_count(); ++l) {
    if (index.leaf_group_size(l) < nodes) continue;
    when.clear();
    for (int h : index.hosts_of(l)) {
      if (!allowed.empty() && allowed[h] == 0) continue;
      if (gpus.total[h] < gpus_per_node) continue;
      if (by_domains && !index.domain_of(h)) continue;
      // A busy host whose jobs are past their time limits has no expected time: left out.
      if (gpus.free[h] < gpus_per_node && host_free_at[h] <= now) continue;
      when.emplace_back(gpus.free[h] >= gpus_per_node ? now : host_free_at[h], h);
    }
    if (static_cast<int>(when.size()) < nodes) continue;
    if (by_domains) {
      std::sort(when.begin(), when.end());
      GroupReadiness g;
      if (ready_by_domains(index, when, segment, nodes / segment, pending, g) && g.ready_s < best.ready_s) {
        best = std::move(g);
        best.leaf_group = l;
      }
      continue;
    }
    std::nth_element(when.begin(), when.begin() + (nodes - 1), when.end());
    const double ready = when[nodes - 1].first;
    if (ready < best.ready_s) {  // ties: the lowest group index
      best.leaf_group = l;
      best.ready_s = ready;
      std::sort(when.begin(), when.begin() + nodes);
      best.hosts.clear();
      for (int k = 0; k < nodes; ++k) best.hosts.push_back(when[k].second);
    }
  }
  return best;
}

WaitAdvice advise_locality_wait(double predicted_s, double slowdown_now, double slowdown_best,
                                const GroupReadiness& target, double now, double waited_s,
                                const LocalityWaitSettings& settings) {
  WaitAdvice a;
  a.gain_s = std::max(0.0, predicted_s * (slowdown_now - slowdown_best));
  if (target.leaf_group < 0) return a;
  a.expected_wait_s = std::max(0.0, target.ready_s - now);
  // Slurm counts time in whole seconds: less than one second left of the cap is none
  // (and asking again a hair later would not move the clock).
  const double left = settings.cap_s - waited_s < 1.0 ? 0.0 : settings.cap_s - waited_s;
  // A group ready now needs no wait (the caller's placement was split for another reason).
  a.wait = settings.cap_s > 0 && left > 0 && a.expected_wait_s > 0 && a.expected_wait_s < a.gain_s;
  if (a.wait) a.until_s = std::min(target.ready_s, now + left);
  return a;
}

}  // namespace fabricfit
