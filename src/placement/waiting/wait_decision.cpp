// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/waiting/wait_decision.hpp"

#include <algorithm>
#include <cmath>

#include "placement/traffic_matrix.hpp"
#include "placement/waiting/locality_wait.hpp"

namespace fabricfit {

std::string to_string(WaitVerdict verdict) {
  switch (verdict) {
    case WaitVerdict::Waits: return "waits";
    case WaitVerdict::OneGroup: return "one-group";
    case WaitVerdict::FewestGroups: return "fewest-groups";
    case WaitVerdict::NotCandidate: return "not-candidate";
    case WaitVerdict::Disabled: return "disabled";
    case WaitVerdict::NoTimeLimit: return "no-time-limit";
    case WaitVerdict::NoGain: return "no-gain";
    case WaitVerdict::NoGroup: return "no-group";
    case WaitVerdict::ReadyNow: return "group-ready-now";
    case WaitVerdict::WaitTooLong: return "wait-exceeds-gain";
    case WaitVerdict::CapReached: return "cap-reached";
  }
  return "unknown";
}

namespace {

// The slowdown of the job on its placement: during its communication phases it drives its
// HCAs at line rate (peak demand), and gets its max-min fair share of each uplink bundle
// beside the running split jobs, each also at peak (the stress case: their bursts
// overlap). Alone, an uplink bundle it overfills slows it by capacity/demand.
double slowdown_beside(const UplinkBundles& bundles, const CommPattern& pattern, const Allocation& a,
                       double comm_share, const BandwidthSharing& beside) {
  const RunningTraffic running{.bundles = bundles, .sharing = beside};
  return slowdown(comm_share, running.share_if_added(TrafficMatrix::build(pattern, a.gpus), a.hosts),
                  DemandMode::Peak);
}

}  // namespace

WaitDecision decide_locality_wait(const LocalityIndex& index, const UplinkBundles& bundles,
                                  const GpuState& gpus, std::span<const double> host_free_at,
                                  std::span<const std::uint8_t> allowed, const CommPattern& pattern,
                                  int gpus_per_node, const Allocation& placed_now, const WaitFacts& facts,
                                  const BandwidthSharing* beside) {
  WaitDecision d;
  const int nodes = static_cast<int>(placed_now.hosts.size());
  if (nodes < 2) return d;
  const int groups = leaf_groups_spanned(index, placed_now.hosts);
  // A job wider than every group waits, as a narrower one for one group, for the fewest.
  const bool wide = nodes > index.largest_leaf_group();
  if (groups <= (wide ? fewest_leaf_groups(index, nodes) : 1)) {
    d.verdict = wide ? WaitVerdict::FewestGroups : WaitVerdict::OneGroup;
    return d;
  }
  if (!(facts.cap_s > 0)) {
    d.verdict = WaitVerdict::Disabled;
    return d;
  }
  if (!(facts.time_limit_s > 0) || !std::isfinite(facts.time_limit_s)) {
    d.verdict = WaitVerdict::NoTimeLimit;
    return d;
  }
  // Beside the running split jobs, or alone.
  const auto slowdown_on = [&](const Allocation& a) {
    return beside != nullptr
               ? slowdown_beside(bundles, pattern, a, facts.comm_share, *beside)
               : slowdown_beside(bundles, pattern, a, facts.comm_share, BandwidthSharing(bundles));
  };
  d.slowdown_now = slowdown_on(placed_now);
  d.gain_s = std::max(0.0, facts.time_limit_s * (d.slowdown_now - 1.0));
  if (!(d.gain_s > 0)) {
    d.verdict = WaitVerdict::NoGain;
    return d;
  }
  // Every host of the job needs `gpus_per_node` GPUs; with a total only, its share.
  int per_node = gpus_per_node;
  if (per_node <= 0) per_node = *std::ranges::max_element(placed_now.gpus);
  const int segment =
      wait_segment(index, facts.segment_nodes, nodes, index.domain_of(placed_now.hosts.front()).has_value());
  const GroupReadiness target = wide ? earliest_groups(index, gpus, host_free_at, nodes,
                                                       std::max(per_node, 1), facts.now, allowed, segment)
                                     : earliest_group(index, gpus, host_free_at, nodes, std::max(per_node, 1),
                                                      facts.now, allowed, segment);
  if (target.leaf_group < 0) {
    d.verdict = WaitVerdict::NoGroup;
    return d;
  }
  // The hosts that count (usable, big enough, in domains) may need as many groups as the
  // placement now has: nothing better to wait for.
  if (wide && static_cast<int>(target.leaf_groups.size()) >= groups) {
    d.verdict = WaitVerdict::FewestGroups;
    return d;
  }
  // One group: no uplink traffic. The fewest groups: the job's own traffic there, beside
  // what runs now.
  double slowdown_best = 1.0;
  if (wide) {
    slowdown_best = slowdown_on({target.hosts, std::vector<int>(target.hosts.size(), std::max(per_node, 1))});
    d.gain_s = std::max(0.0, facts.time_limit_s * (d.slowdown_now - slowdown_best));
    if (!(d.gain_s > 0)) {
      d.verdict = WaitVerdict::NoGain;
      return d;
    }
  }
  const LocalityWaitSettings settings{.cap_s = facts.cap_s};
  const WaitAdvice advice = advise_locality_wait(facts.time_limit_s, d.slowdown_now, slowdown_best, target,
                                                 facts.now, facts.now - facts.eligible, settings);
  d.expected_wait_s = advice.expected_wait_s;
  d.ready_at = target.ready_s;
  d.leaf_group = target.leaf_group;
  d.leaf_groups = wide ? static_cast<int>(target.leaf_groups.size()) : 1;
  if (advice.wait && advice.until_s > facts.now) {
    d.verdict = WaitVerdict::Waits;
    d.wait = true;
    d.until = advice.until_s;
    d.hosts = target.hosts;
    return d;
  }
  d.verdict = !(advice.expected_wait_s > 0)        ? WaitVerdict::ReadyNow
              : advice.expected_wait_s >= d.gain_s ? WaitVerdict::WaitTooLong
                                                   : WaitVerdict::CapReached;
  return d;
}

}  // namespace fabricfit
