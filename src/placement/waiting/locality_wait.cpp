// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/waiting/locality_wait.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
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

// When host h counts for a job of `gpus_per_node` GPUs a host: now when it has them free,
// else when its jobs reach their limits; none when it never does (outside `allowed`, too
// small, in no domain when domains count, or busy past its jobs' limits: a host whose jobs
// overran has no expected time).
std::optional<double> counts_at(const LocalityIndex& index, const GpuState& gpus,
                                std::span<const double> host_free_at, int h, int gpus_per_node, double now,
                                std::span<const std::uint8_t> allowed, bool by_domains) {
  if (!allowed.empty() && allowed[h] == 0) return std::nullopt;
  if (gpus.total[h] < gpus_per_node) return std::nullopt;
  if (by_domains && !index.domain_of(h)) return std::nullopt;
  if (gpus.free[h] >= gpus_per_node) return now;
  if (host_free_at[h] <= now) return std::nullopt;
  return host_free_at[h];
}

}  // namespace

int fewest_leaf_groups(const LocalityIndex& index, int nodes) {
  std::vector<int> sizes;
  for (int l = 0; l < index.leaf_group_count(); ++l) sizes.push_back(index.leaf_group_size(l));
  std::sort(sizes.rbegin(), sizes.rend());
  int have = 0;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    have += sizes[k];
    if (have >= nodes) return static_cast<int>(k) + 1;
  }
  return static_cast<int>(sizes.size()) + 1;
}

GroupReadiness earliest_groups(const LocalityIndex& index, const GpuState& gpus,
                               std::span<const double> host_free_at, int nodes, int gpus_per_node, double now,
                               std::span<const std::uint8_t> allowed, int segment) {
  GroupReadiness best;
  const bool by_domains = segment > 0 && index.domain_count() > 0;
  const int seg = by_domains ? segment : 1;
  if (nodes < 1 || nodes % seg != 0) return best;
  const int groups = index.leaf_group_count();
  std::vector<std::pair<double, int>> when;  // (time the host counts, host), every group
  std::vector<int> capacity(static_cast<std::size_t>(groups), 0);
  // Hosts waiting for their segment, by (group, domain): a domain's hosts in another group
  // make no segment with these.
  std::map<std::pair<int, int>, int> counted;
  for (int l = 0; l < groups; ++l) {
    for (int h : index.hosts_of(l)) {
      const auto t = counts_at(index, gpus, host_free_at, h, gpus_per_node, now, allowed, by_domains);
      if (!t) continue;
      when.emplace_back(*t, h);
      const int key = by_domains ? *index.domain_of(h) : 0;
      if (++counted[{l, key}] % seg == 0) capacity[static_cast<std::size_t>(l)] += seg;
    }
  }
  std::vector<int> order(capacity.size());
  for (std::size_t l = 0; l < order.size(); ++l) order[l] = static_cast<int>(l);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return capacity[a] > capacity[b]; });
  // k: the fewest groups whose capacity holds the job; none when all of them do not.
  std::size_t k = 0;
  int most = 0;
  for (; k < order.size() && most < nodes; ++k) most += capacity[static_cast<std::size_t>(order[k])];
  if (most < nodes) return best;

  // In time order, each group's hosts in whole segments; ready once the k groups with the
  // most hold the job.
  std::sort(when.begin(), when.end());
  std::vector<std::vector<int>> ready(capacity.size());
  std::map<std::pair<int, int>, std::vector<int>> pending;
  std::vector<int> by_ready = order;
  for (std::size_t e = 0; e < when.size();) {
    const double t = when[e].first;
    for (; e < when.size() && when[e].first == t; ++e) {
      const int h = when[e].second;
      const int l = index.leaf_group_of(h);
      std::vector<int>& p = pending[{l, by_domains ? *index.domain_of(h) : 0}];
      p.push_back(h);
      if (static_cast<int>(p.size()) < seg) continue;
      auto& r = ready[static_cast<std::size_t>(l)];
      r.insert(r.end(), p.begin(), p.end());
      p.clear();
    }
    std::stable_sort(by_ready.begin(), by_ready.end(), [&](int a, int b) {
      return ready[a].size() != ready[b].size() ? ready[a].size() > ready[b].size() : a < b;
    });
    int have = 0;
    for (std::size_t i = 0; i < k; ++i) have += static_cast<int>(ready[by_ready[i]].size());
    if (have < nodes) continue;
    best.ready_s = t;
    for (std::size_t i = 0; i < k && static_cast<int>(best.hosts.size()) < nodes; ++i) {
      const auto& r = ready[by_ready[i]];
      const int take = std::min(static_cast<int>(r.size()), nodes - static_cast<int>(best.hosts.size()));
      best.hosts.insert(best.hosts.end(), r.begin(), r.begin() + take);
      best.leaf_groups.push_back(by_ready[i]);
    }
    best.leaf_group = best.leaf_groups.front();
    return best;
  }
  return best;
}

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
      const auto t = counts_at(index, gpus, host_free_at, h, gpus_per_node, now, allowed, by_domains);
      if (t) when.emplace_back(*t, h);
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
