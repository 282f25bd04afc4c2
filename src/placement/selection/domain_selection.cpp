// SPDX-License-Identifier: GPL-2.0-or-later
// Placement on a fabric with NVLink domains (GB200/GB300 NVL72 racks). A domain is a hard
// edge, not a distance: inside it a GPU has ~1.8 TB/s, past it ~50 GB/s of InfiniBand. A
// job's nodes come in segments (--segment=N, or the whole job when it fits a domain), each
// inside one domain. A job of one segment goes to the domain that holds it at the least
// cost to block's own objective (whole domains, half-domain jobs), then the tightest, or
// waits, as Slurm's topology/block does. A wider job takes as few domains as hold its
// segments; among such sets, the one whose traffic between domains the fabric carries best
// (leaf groups, pods, uplink health, by the job's pattern), then the one that breaks the
// fewest whole domains. docs/placement.md, "NVLink domains".
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "placement/runtime/runtime_model.hpp"
#include "placement/selection/baselines.hpp"
#include "placement/selection/selector.hpp"
#include "placement/selection/selector_run.hpp"
#include "placement/traffic_matrix.hpp"

namespace fabricfit {
namespace {

// One segment: the tightest domains are searched with the leaf-group selector, this many
// at most among equally tight ones (more when explain asks for alternatives).
constexpr std::size_t kDomainTries = 3;
// Several segments: candidate sets of domains scored.
constexpr std::size_t kDomainSets = 8;
// Beside running traffic, the cheapest sets compared by their share of the uplinks.
constexpr std::size_t kSteerSets = 8;

struct DomainView {
  std::vector<int> eligible;  // hosts that hold one node of the shape
  std::vector<int> segments;  // eligible / segment
  std::vector<char> whole;    // every host entirely free: a domain-sized job still fits
  std::vector<int> leaf;      // the leaf group of all its hosts, -1 when they differ
  std::vector<int> pod;       // the pod of that leaf group, -1 when none
  // The weakest uplinks its hosts hang under (the largest leaf-group stretch: a degraded or
  // oversubscribed group). A job inside one domain talks over NVLink and crosses no uplink,
  // so of equally tight domains it takes the one where they are weakest and leaves the
  // strong ones to the jobs whose traffic crosses them.
  std::vector<double> weakness;
};

DomainView view_domains(const PlacementContext& ctx, const JobShape& shape, int segment) {
  const auto& index = ctx.index;
  const int D = index.domain_count();
  DomainView v{std::vector<int>(D, 0),  std::vector<int>(D, 0),  std::vector<char>(D, 1),
               std::vector<int>(D, -1), std::vector<int>(D, -1), std::vector<double>(D, 0.0)};
  for (int d = 0; d < D; ++d) {
    const auto hosts = index.hosts_of_domain(d);
    v.leaf[d] = hosts.empty() ? -1 : index.leaf_group_of(hosts.front());
    for (int h : hosts) {
      if (host_fits(ctx, h, shape)) ++v.eligible[d];
      if (!ctx.gpus.whole_free(h)) v.whole[d] = 0;
      const int g = index.leaf_group_of(h);
      if (g != v.leaf[d]) v.leaf[d] = -1;
      if (g >= 0) v.weakness[d] = std::max(v.weakness[d], index.leaf_group(g).stretch);
    }
    v.segments[d] = v.eligible[d] / segment;
    if (v.leaf[d] >= 0) v.pod[d] = index.pod_of_leaf_group(v.leaf[d]);
  }
  return v;
}

// What placing a one-segment job in a domain takes from block's objective
// (domain_fragmentation.hpp): the domain-sized jobs (whole free domains) and the
// half-domain jobs of whole hosts that the free hosts no longer hold. The job is counted
// on partly used hosts before wholly free ones, as the leaf-group selector takes the
// tightest hosts. Without it the tightest domain by host count (block's best fit) would put
// a one-GPU job on a wholly free host in a domain of few free hosts, where a partly used
// host elsewhere held it: cluster06's one-host waits (docs/placement.md, "NVLink domains").
struct DomainLoss {
  int whole_domains = 0;
  int half_domain_jobs = 0;
};

std::vector<DomainLoss> domain_losses(const PlacementContext& ctx, const DomainView& v, const JobShape& shape,
                                      const std::vector<int>& fit) {
  std::vector<DomainLoss> out(v.eligible.size());
  for (const int d : fit) {
    const auto hosts = ctx.index.hosts_of_domain(d);
    int whole = 0, whole_fit = 0, partial = 0;
    for (const int h : hosts) {
      const bool fits = host_fits(ctx, h, shape);
      if (ctx.gpus.whole_free(h)) {
        ++whole;
        whole_fit += fits ? 1 : 0;
      } else if (fits) {
        ++partial;
      }
    }
    const int broken = std::min(whole_fit, std::max(0, shape.nodes - partial));
    const int half = (static_cast<int>(hosts.size()) + 1) / 2;
    out[d].whole_domains = v.whole[d] ? 1 : 0;
    out[d].half_domain_jobs = whole / half - (whole - broken) / half;
  }
  return out;
}

// The request for exactly this shape (a -N range or a GPU total already resolved).
JobRequest fixed_to(const JobRequest& request, const JobShape& shape) {
  JobRequest r = request;
  r.min_nodes = r.max_nodes = shape.nodes;
  r.segment_nodes = 0;
  if (r.total_gpus > 0) r.total_gpus = shape.total_gpus;
  return r;
}

std::vector<std::uint8_t> mask_of(const PlacementContext& ctx, std::span<const int> hosts) {
  std::vector<std::uint8_t> mask(ctx.index.host_count(), 0);
  for (int h : hosts) mask[h] = ctx.may_use(h) ? 1 : 0;
  return mask;
}

// A set of domains and how many segments each gives.
struct DomainTake {
  int domain = 0;
  int segments = 0;
};

// Sets of k domains that hold `needed` segments, from domains in `order` (most segments
// first): the k-1 largest, and for the rest the tightest domain that holds it (a whole
// domain stays whole when a partly used one can finish the job).
std::optional<std::vector<DomainTake>> best_fit_set(const std::vector<int>& order, const DomainView& v, int k,
                                                    int needed) {
  if (static_cast<int>(order.size()) < k) return std::nullopt;
  std::vector<DomainTake> set;
  int have = 0;
  for (int i = 0; i < k - 1; ++i) {
    set.push_back({order[i], v.segments[order[i]]});
    have += v.segments[order[i]];
  }
  const int rest = needed - have;
  int pick = -1;
  for (std::size_t i = k - 1; i < order.size(); ++i) {
    const int d = order[i];
    if (v.segments[d] < rest) continue;
    if (pick < 0 || v.segments[d] < v.segments[pick] ||
        (v.segments[d] == v.segments[pick] && !v.whole[d] && v.whole[pick])) {
      pick = d;
    }
  }
  if (pick < 0) return std::nullopt;
  set.push_back({pick, rest});
  return set;
}

// The domains of `order` that have a segment to give, by group (group_of[d]; -1: in none),
// in that order, and the segments each group holds.
struct GroupedDomains {
  std::vector<std::vector<int>> members;
  std::vector<int> segments;
};

GroupedDomains group_domains(const std::vector<int>& order, const DomainView& v,
                             const std::vector<int>& group_of, int groups) {
  GroupedDomains g{std::vector<std::vector<int>>(groups), std::vector<int>(groups, 0)};
  for (int d : order) {
    if (v.segments[d] == 0 || group_of[d] < 0) continue;
    g.members[group_of[d]].push_back(d);
    g.segments[group_of[d]] += v.segments[d];
  }
  return g;
}

// The first domains of `order` that hold `needed` segments, when k of them do: the rest
// from the next domain in that order, not the tightest one anywhere (best_fit_set).
std::optional<std::vector<DomainTake>> first_fit_set(const std::vector<int>& order, const DomainView& v,
                                                     int k, int needed) {
  std::vector<DomainTake> set;
  int have = 0;
  for (int d : order) {
    if (have >= needed || static_cast<int>(set.size()) == k) break;
    const int take = std::min(v.segments[d], needed - have);
    set.push_back({d, take});
    have += take;
  }
  if (have < needed) return std::nullopt;
  return set;
}

}  // namespace

std::optional<Decision> FabricfitSelector::decide_domains(const PlacementContext& ctx,
                                                          const JobRequest& request, int alternatives,
                                                          ScoreDetail detail) {
  const auto& index = ctx.index;
  const auto shapes = job_shapes(request, std::max(1, ctx.gpus.max_gpus_per_host()));
  const int largest = index.largest_domain();
  const int asked = request.segment_nodes;
  if (asked < 0) throw RequestError(fmt::format("--segment={} is not a node count", asked));
  if (asked > largest) {
    throw RequestError(
        fmt::format("--segment={} is more nodes than the largest NVLink domain has ({})", asked, largest));
  }
  std::vector<JobShape> usable;  // largest first, as job_shapes gives them
  for (const JobShape& shape : shapes) {
    if (asked == 0 || shape.nodes % asked == 0) usable.push_back(shape);
  }
  if (usable.empty()) {
    throw RequestError(
        fmt::format("--segment={} does not divide the job's node count ({})", asked, shapes.front().nodes));
  }
  const auto decide_shape = [&](const JobShape& shape) {
    const int segment = asked > 0 ? asked : (shape.nodes <= largest ? shape.nodes : 1);
    return decide_segments(ctx, request, shape, segment, alternatives, detail);
  };
  // -N MIN-MAX: the most nodes that take no more domains than MIN does, as the leaf-group
  // rule takes the most that need no more leaf groups. A range whose MIN fits one domain
  // therefore stays in one (or waits for one), however many nodes MAX would allow.
  if (auto at_min = decide_shape(usable.back())) {
    for (std::size_t i = 0; i + 1 < usable.size(); ++i) {
      auto d = decide_shape(usable[i]);
      if (d && d->chosen.score.nvlink_domains <= at_min->chosen.score.nvlink_domains) return d;
    }
    return at_min;
  }
  if (asked > 0) return std::nullopt;
  // Hosts in no domain (plain nodes beside the racks) take a job as on any fabric, but
  // never together with hosts in a domain.
  std::vector<std::uint8_t> outside(index.host_count(), 0);
  bool any = false;
  for (int h = 0; h < index.host_count(); ++h) {
    outside[h] = ctx.may_use(h) && !index.domain_of(h) ? 1 : 0;
    any = any || outside[h] != 0;
  }
  if (!any) return std::nullopt;
  const PlacementContext plain{ctx.index, ctx.gpus, ctx.frag, outside, ctx.running};
  return decide_leaf_groups(plain, request, alternatives, detail);
}

std::optional<Decision> FabricfitSelector::decide_segments(const PlacementContext& ctx,
                                                           const JobRequest& request, const JobShape& shape,
                                                           int segment, int alternatives,
                                                           ScoreDetail detail) {
  const auto& index = ctx.index;
  const int D = index.domain_count();
  const int needed = shape.nodes / segment;
  const DomainView v = view_domains(ctx, shape, segment);
  const JobRequest fixed = fixed_to(request, shape);

  if (needed == 1) {
    // Of the domains that hold the job, by what it takes from block's objective, then the
    // tightest (block's best fit); among equally placed ones the leaf-group selector's cost
    // decides.
    std::vector<int> fit;
    for (int d = 0; d < D; ++d) {
      if (v.eligible[d] >= shape.nodes) fit.push_back(d);
    }
    if (fit.empty()) return std::nullopt;
    // Block's own objective first (domain_fragmentation.hpp): the domain whose whole
    // domains and half-domain jobs the job leaves, then block's best fit: the tightest.
    const std::vector<DomainLoss> loss = domain_losses(ctx, v, shape, fit);
    const std::vector<double>& weak = v.weakness;
    std::sort(fit.begin(), fit.end(), [&](int a, int b) {
      if (loss[a].whole_domains != loss[b].whole_domains)
        return loss[a].whole_domains < loss[b].whole_domains;
      if (loss[a].half_domain_jobs != loss[b].half_domain_jobs)
        return loss[a].half_domain_jobs < loss[b].half_domain_jobs;
      if (v.eligible[a] != v.eligible[b]) return v.eligible[a] < v.eligible[b];
      if (weak[a] != weak[b]) return weak[a] > weak[b];
      return a < b;
    });
    const std::size_t tries = kDomainTries + static_cast<std::size_t>(std::max(0, alternatives));
    std::vector<Decision> found;
    std::size_t equally_tight = 0;  // the first found, from domains as tight as the tightest
    for (std::size_t i = 0; i < fit.size() && found.size() < tries; ++i) {
      const int d = fit[i];
      const int f = fit.front();
      const bool same_fit = v.eligible[d] == v.eligible[f] && v.whole[d] == v.whole[f] &&
                            loss[d].half_domain_jobs == loss[f].half_domain_jobs && weak[d] == weak[f];
      if (!same_fit && static_cast<int>(found.size()) > alternatives) break;
      const auto mask = mask_of(ctx, index.hosts_of_domain(d));
      const PlacementContext inside{ctx.index, ctx.gpus, ctx.frag, mask, ctx.running};
      auto decision = decide_leaf_groups(inside, fixed, same_fit ? alternatives : 0, detail);
      if (!decision) continue;
      found.push_back(std::move(*decision));
      if (same_fit) ++equally_tight;
    }
    if (found.empty()) return std::nullopt;
    // Equally tight domains (they come first) compete on the selector's cost; ties keep
    // the domain order.
    std::stable_sort(found.begin(), found.begin() + static_cast<std::ptrdiff_t>(equally_tight),
                     [](const Decision& a, const Decision& b) {
                       return a.chosen.score.cost < b.chosen.score.cost - selection::kCostEpsilon;
                     });
    Decision out = std::move(found.front());
    for (std::size_t i = 1; i < found.size(); ++i) out.alternatives.push_back(std::move(found[i].chosen));
    // Runners-up best first, whichever domain they are in.
    std::stable_sort(out.alternatives.begin(), out.alternatives.end(), [](const auto& a, const auto& b) {
      return a.score.cost < b.score.cost - selection::kCostEpsilon;
    });
    if (static_cast<int>(out.alternatives.size()) > alternatives) out.alternatives.resize(alternatives);
    return out;
  }

  // Several segments: the fewest domains that hold them.
  std::vector<int> order(D);
  std::iota(order.begin(), order.end(), 0);
  const auto most_first = [&](int a, int b) {
    if (v.segments[a] != v.segments[b]) return v.segments[a] > v.segments[b];
    if (v.whole[a] != v.whole[b]) return v.whole[a] < v.whole[b];
    return a < b;
  };
  std::sort(order.begin(), order.end(), most_first);
  int k = 0, have = 0;
  while (k < D && have < needed) have += v.segments[order[k++]];
  if (have < needed) return std::nullopt;

  // Candidate sets: over the whole fabric, and inside each leaf group and each pod that
  // holds the job alone, the tightest of those first.
  std::vector<std::vector<DomainTake>> sets;
  const auto add = [&](std::optional<std::vector<DomainTake>> set) {
    if (!set) return;
    std::sort(set->begin(), set->end(), [](auto& a, auto& b) { return a.domain < b.domain; });
    const auto same = [&](const std::vector<DomainTake>& o) {
      return std::equal(o.begin(), o.end(), set->begin(), set->end(),
                        [](auto& a, auto& b) { return a.domain == b.domain && a.segments == b.segments; });
    };
    if (std::none_of(sets.begin(), sets.end(), same)) sets.push_back(std::move(*set));
  };
  const auto offer = [&](const std::vector<int>& from) { add(best_fit_set(from, v, k, needed)); };
  offer(order);
  // Each group that holds the job alone, the tightest first.
  const auto offer_groups = [&](const GroupedDomains& g) {
    std::vector<std::pair<int, int>> holding;  // (segments, group)
    for (std::size_t i = 0; i < g.segments.size(); ++i) {
      if (g.segments[i] >= needed) holding.emplace_back(g.segments[i], static_cast<int>(i));
    }
    std::sort(holding.begin(), holding.end());
    for (std::size_t i = 0; i < holding.size() && sets.size() < kDomainSets; ++i) {
      offer(g.members[holding[i].second]);
    }
    return !holding.empty();
  };
  const GroupedDomains by_leaf = group_domains(order, v, v.leaf, index.leaf_group_count());
  const bool one_group_holds = offer_groups(by_leaf);
  if (index.pod_count() > 0) offer_groups(group_domains(order, v, v.pod, index.pod_count()));
  // A job no leaf group holds alone: sets that fill few leaf groups, each of the groups
  // holding the most segments first in turn, then the others (its pod's first) by the
  // segments they hold and their uplinks. The fabric-wide set takes the fullest domains
  // wherever they are and would be the only one: these give the scoring below a choice by
  // the traffic between leaf groups and the health of their uplinks.
  if (!one_group_holds) {
    std::vector<int> loose;  // domains over several leaf groups
    for (int d : order) {
      if (v.segments[d] > 0 && v.leaf[d] < 0) loose.push_back(d);
    }
    const auto& sum = by_leaf.segments;
    std::vector<int> by_sum;
    for (int g = 0; g < index.leaf_group_count(); ++g) {
      if (sum[g] > 0) by_sum.push_back(g);
    }
    // Equal segments: the group whose uplinks carry more per host first (a degraded or
    // oversubscribed group last).
    std::stable_sort(by_sum.begin(), by_sum.end(), [&](int a, int b) {
      if (sum[a] != sum[b]) return sum[a] > sum[b];
      return index.leaf_group(a).stretch < index.leaf_group(b).stretch;
    });
    const std::size_t cap = sets.size() + 2 * kDomainSets;
    for (std::size_t i = 0; i < by_sum.size() && sets.size() < cap; ++i) {
      const int anchor = by_sum[i];
      const int pod = index.pod_of_leaf_group(anchor);
      std::vector<int> others;
      for (int g : by_sum) {
        if (g != anchor) others.push_back(g);
      }
      std::stable_partition(others.begin(), others.end(),
                            [&](int g) { return pod >= 0 && index.pod_of_leaf_group(g) == pod; });
      std::vector<int> from = by_leaf.members[anchor];
      for (int g : others) from.insert(from.end(), by_leaf.members[g].begin(), by_leaf.members[g].end());
      from.insert(from.end(), loose.begin(), loose.end());
      // The rest from the tightest domain (a whole domain stays whole), and from the next
      // one in this order (the rest stays near, off degraded uplinks): the cost decides.
      offer(from);
      add(first_fit_set(from, v, k, needed));
    }
  }

  selection::Run run(ctx, weights_, scratch_);
  run.scan_free();
  struct Scored {
    double cost = 0;
    int whole_broken = 0;  // whole domains the job takes part of
    Allocation allocation;
  };
  std::vector<Scored> scored;
  std::vector<std::pair<int, int>> pool;  // (free GPUs, host)
  for (auto& set : sets) {
    // Rank order: domains by pod and leaf group, so that neighbours in the ring or
    // pipeline share a leaf where they can; a domain's hosts together (tensor and expert
    // groups inside it).
    std::sort(set.begin(), set.end(), [&](auto& a, auto& b) {
      return std::tuple(v.pod[a.domain], v.leaf[a.domain], a.domain) <
             std::tuple(v.pod[b.domain], v.leaf[b.domain], b.domain);
    });
    Scored s;
    for (const DomainTake& t : set) {
      pool.clear();
      for (int h : index.hosts_of_domain(t.domain)) {
        if (host_fits(ctx, h, shape)) pool.emplace_back(ctx.gpus.free[h], h);
      }
      // The tightest hosts: whole hosts stay whole for jobs that need them.
      std::sort(pool.begin(), pool.end());
      pool.resize(static_cast<std::size_t>(t.segments) * segment);
      std::sort(pool.begin(), pool.end(), [](auto& a, auto& b) { return a.second < b.second; });
      for (const auto& [free, h] : pool) {
        s.allocation.gpus.push_back(
            shape.gpus_on(static_cast<int>(s.allocation.hosts.size()), ctx.gpus.total[h]));
        s.allocation.hosts.push_back(h);
      }
      const int size = static_cast<int>(index.hosts_of_domain(t.domain).size());
      if (v.whole[t.domain] && t.segments * segment < size) ++s.whole_broken;
    }
    const PlacementScore traffic = run.score(s.allocation, request.pattern, 0, false);
    const double inter = traffic.inter_node_bytes > 0 ? traffic.inter_node_bytes : 1;
    s.cost = weights_.spine * traffic.spine_bytes / inter + weights_.core * traffic.core_bytes / inter +
             weights_.uplink * traffic.uplink_stretch;
    scored.push_back(std::move(s));
  }
  if (scored.empty()) return std::nullopt;
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    if (a.cost < b.cost - selection::kCostEpsilon) return true;
    if (b.cost < a.cost - selection::kCostEpsilon) return false;
    return a.whole_broken < b.whole_broken;
  });
  // Beside running traffic (as the leaf-group selector steers a split job): of the sets that
  // break no more whole domains and use no weaker uplinks than the cheapest, the one that
  // leaves the job the largest share of its uplinks. A set's cost weighs only its own
  // traffic, so two wide jobs would otherwise share leaf uplinks that another set keeps
  // apart (docs/placement.md, "Lab stream on NVLink domains").
  std::optional<double> share;
  if (ctx.running != nullptr && scored.size() > 1) {
    const auto stretch = [&](const Allocation& a) {
      double worst = 0;
      for (const int h : a.hosts) {
        const int l = index.leaf_group_of(h);
        if (l >= 0) worst = std::max(worst, index.leaf_group(l).stretch);
      }
      return worst;
    };
    const auto share_of = [&](const Allocation& a) {
      return ctx.running->share_if_added(TrafficMatrix::build(request.pattern, a.gpus), a.hosts);
    };
    const double stretch_cheapest = stretch(scored.front().allocation);
    const auto [pick, best] = selection::steer_by_share(
        std::min(scored.size(), kSteerSets),
        [&](std::size_t i) {
          return scored[i].whole_broken <= scored.front().whole_broken &&
                 stretch(scored[i].allocation) <= stretch_cheapest + selection::kShareEpsilon;
        },
        [&](std::size_t i) { return share_of(scored[i].allocation); });
    if (pick != 0) {
      std::rotate(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(pick),
                  scored.begin() + static_cast<std::ptrdiff_t>(pick) + 1);
    }
    share = best;
  }
  Decision out;
  out.uplink_share = share;
  for (std::size_t i = 0; i < scored.size(); ++i) {
    if (i > 0 && static_cast<int>(out.alternatives.size()) >= alternatives) break;
    PlacementScore s =
        run.score(scored[i].allocation, request.pattern, scored[i].cost, detail == ScoreDetail::Full);
    if (i == 0) {
      out.chosen = {std::move(scored[i].allocation), std::move(s)};
    } else {
      out.alternatives.push_back({std::move(scored[i].allocation), std::move(s)});
    }
  }
  return out;
}

}  // namespace fabricfit
