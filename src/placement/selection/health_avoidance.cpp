// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/selection/health_avoidance.hpp"

#include <algorithm>

namespace fabricfit {
namespace {

PartHealth at(const std::vector<PartHealth>& v, int i) {
  return i >= 0 && static_cast<std::size_t>(i) < v.size() ? v[i] : PartHealth::Healthy;
}

bool healthy(const std::vector<PartHealth>& v) {
  return std::ranges::all_of(v, [](PartHealth p) { return p == PartHealth::Healthy; });
}

// A job across NVLink domains is paced by the InfiniBand between them, unless its tensor
// parallel groups talk inside the domains (tp > 1: on an NVL72 rack even a tray's own GPUs
// talk through the NVSwitch trays).
bool nvlink_paced_across(const CommPattern& pattern) {
  return pattern.kind == PatternKind::Parallel && pattern.tp > 1;
}

// What a host's NVLink state means to a job: a degraded NVLink only slows, so it counts only
// where NVLink paces the job; a failing one drops every job whose GPUs talk over it.
PartHealth nvlink_for(PartHealth state, bool paced) {
  return state == PartHealth::Degraded && !paced ? PartHealth::Healthy : state;
}

}  // namespace

bool FabricHealthView::all_healthy() const {
  return healthy(host_link) && healthy(uplinks) && healthy(nvlink);
}

PartHealth FabricHealthView::host(int h) const {
  return std::max(at(host_link, h), at(nvlink, h));
}

CrossedParts crossed_parts(const LocalityIndex& index, const Allocation& a, const CommPattern& pattern) {
  if (a.hosts.size() < 2) {
    // One host: its GPUs still talk over NVLink (on an NVL72 tray, through the rack's
    // NVSwitch trays) when the job has more than one of them; no HCA link is crossed.
    const bool nvlink = !a.hosts.empty() && !a.gpus.empty() && a.gpus.front() > 1;
    return {.nvlink = nvlink, .nvlink_paced = nvlink};
  }
  const int first = index.leaf_group_of(a.hosts.front());
  // Hosts in no domain compare equal (nullopt): counted as one domain, so a degraded NVLink
  // paces their multi-host jobs. NVLink health comes from trays that report a fabric
  // (GB200/GB300), so such a host is most likely in a rack the snapshot does not name: the
  // cautious reading.
  const auto domain = index.domain_of(a.hosts.front());
  const bool one_domain = std::ranges::all_of(a.hosts, [&](int h) { return index.domain_of(h) == domain; });
  const bool split = std::ranges::any_of(a.hosts, [&](int h) { return index.leaf_group_of(h) != first; });
  return {.host_links = true,
          .nvlink = true,
          .nvlink_paced = one_domain || nvlink_paced_across(pattern),
          .uplinks = split};
}

PartHealth worst_crossed(const LocalityIndex& index, const Allocation& a, const FabricHealthView& health,
                         const CommPattern& pattern) {
  const CrossedParts crosses = crossed_parts(index, a, pattern);
  PartHealth worst = PartHealth::Healthy;
  for (int h : a.hosts) {
    if (crosses.host_links) worst = std::max(worst, at(health.host_link, h));
    if (crosses.nvlink) worst = std::max(worst, nvlink_for(at(health.nvlink, h), crosses.nvlink_paced));
    if (crosses.uplinks) worst = std::max(worst, at(health.uplinks, index.leaf_group_of(h)));
  }
  return worst;
}

std::optional<Allocation> place_keeping_off_unhealthy(PlacementPolicy& policy, const PlacementContext& ctx,
                                                      const JobRequest& request,
                                                      const FabricHealthView& health, HealthAvoidance* what) {
  HealthAvoidance done;
  const auto report = [&](std::optional<Allocation> a) {
    if (what != nullptr) *what = done;
    return a;
  };
  std::optional<Allocation> plain = policy.place(ctx, request);
  if (!plain || health.all_healthy()) return report(plain);
  const LocalityIndex& index = ctx.index;
  const PartHealth plain_worst = worst_crossed(index, *plain, health, request.pattern);
  if (plain_worst == PartHealth::Healthy) return report(plain);

  // Placements off the parts at `level` or worse: first without such hosts, then also
  // without the hosts of such groups (a job inside one crosses no uplink, and the selector
  // keeps a job inside one group when it can, so a split it chose had no such option).
  // `paced`: whether the masks count a degraded NVLink (crossed_parts decides it from the
  // placement found; the masks must guess before there is one).
  const auto place_off_as = [&](PartHealth level, bool paced) -> std::optional<Allocation> {
    std::vector<std::uint8_t> mask(index.host_count(), 1);
    // A one-host placement crosses only its host's NVLink: hosts are first masked for that
    // alone; a request that may span hosts and then did is masked for their HCA links too.
    const bool one_host = plain->hosts.size() < 2;
    const auto host_part = [&](int h) {
      return std::max(at(health.host_link, h), nvlink_for(at(health.nvlink, h), paced));
    };
    for (int h = 0; h < index.host_count(); ++h) {
      mask[h] = ctx.may_use(h) && (one_host ? at(health.nvlink, h) : host_part(h)) < level;
    }
    PlacementContext c = ctx;
    c.allowed = mask;
    auto a = policy.place(c, request);
    if (a && worst_crossed(index, *a, health, request.pattern) < level) return a;
    if (one_host && a && a->hosts.size() > 1) {
      for (int h = 0; h < index.host_count(); ++h) mask[h] = mask[h] && host_part(h) < level;
      a = policy.place(c, request);
      if (a && worst_crossed(index, *a, health, request.pattern) < level) return a;
    }
    for (int h = 0; h < index.host_count(); ++h) {
      if (at(health.uplinks, index.leaf_group_of(h)) >= level) mask[h] = 0;
    }
    a = policy.place(c, request);
    if (a && worst_crossed(index, *a, health, request.pattern) < level) return a;
    return std::nullopt;
  };
  // First as the request suggests (a job one domain could hold stays in one, where NVLink
  // paces it; a wider one only with tensor parallel groups, or where there are no domains to
  // say), then the other way: a degraded NVLink the guess left in may pace the placement
  // found, or one it masked may not, and only the placement's own crossed_parts decides.
  const int per_host = std::max(1, ctx.gpus.max_gpus_per_host());
  const int least_nodes = std::max(request.min_nodes, (request.total_gpus + per_host - 1) / per_host);
  const bool guess = index.domain_count() == 0 || least_nodes <= index.largest_domain() ||
                     nvlink_paced_across(request.pattern);
  const bool nvlink_degraded =
      std::ranges::any_of(health.nvlink, [](PartHealth p) { return p == PartHealth::Degraded; });
  const auto place_off = [&](PartHealth level) -> std::optional<Allocation> {
    if (auto a = place_off_as(level, guess)) return a;
    // At the failing level a degraded NVLink passes either way: the same masks again.
    if (level != PartHealth::Degraded || !nvlink_degraded) return std::nullopt;
    return place_off_as(level, !guess);
  };
  if (auto a = place_off(PartHealth::Degraded)) {
    done.kept_off = true;
    return report(a);
  }
  if (plain_worst == PartHealth::Degraded) {
    done.took_degraded = true;
    return report(plain);
  }
  if (auto a = place_off(PartHealth::Failing)) {
    done.kept_off = true;
    done.took_degraded = worst_crossed(index, *a, health, request.pattern) == PartHealth::Degraded;
    return report(a);
  }
  done.waits_for_healthy = true;
  return report(std::nullopt);
}

}  // namespace fabricfit
