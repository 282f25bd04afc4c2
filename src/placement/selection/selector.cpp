// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/selection/selector.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include "placement/selection/selector_run.hpp"

namespace fabricfit {

using selection::Run;

namespace {
// Plans a split job beside running traffic compares by its share of the uplinks.
constexpr int kSteerPlans = 8;
}  // namespace

std::optional<Decision> FabricfitSelector::decide(const PlacementContext& ctx, const JobRequest& request,
                                                  int alternatives, ScoreDetail detail) {
  if (ctx.index.domain_count() > 0) return decide_domains(ctx, request, alternatives, detail);
  // Without domains a segment has nothing to lie inside: --segment is moot, as on a Slurm
  // whose topology has no blocks.
  return decide_leaf_groups(ctx, request, alternatives, detail);
}

std::optional<Decision> FabricfitSelector::decide_leaf_groups(const PlacementContext& ctx,
                                                              const JobRequest& request, int alternatives,
                                                              ScoreDetail detail) {
  const auto shapes = job_shapes(request, std::max(1, ctx.gpus.max_gpus_per_host()));
  Run run(ctx, weights_, scratch_);
  run.scan_free();

  // A -N MIN-MAX range gets the most nodes that need no more leaf groups than MIN does.
  std::optional<JobShape> chosen_shape;
  if (request.gpus_per_node > 0) {
    const JobShape& smallest = shapes.back();
    if (run.scan_eligible(smallest) < smallest.nodes) return std::nullopt;
    const int k_min = smallest.nodes == 1 ? 1 : run.min_leaf_groups(smallest.nodes);
    if (k_min == 0) return std::nullopt;
    for (const JobShape& shape : shapes) {
      const int k = shape.nodes == 1 ? 1 : run.min_leaf_groups(shape.nodes);
      if (k != 0 && k <= k_min) {
        chosen_shape = shape;
        break;
      }
    }
  } else {
    for (const JobShape& shape : shapes) {
      if (run.scan_eligible(shape) >= shape.nodes) {
        chosen_shape = shape;
        break;
      }
    }
  }
  if (!chosen_shape) return std::nullopt;

  // Beside running traffic, a job that needs several leaf groups looks at more plans than
  // it keeps: the cheapest is not always the one whose uplinks are free.
  const bool steer =
      ctx.running != nullptr && chosen_shape->nodes > 1 && run.min_leaf_groups(chosen_shape->nodes) > 1;
  auto candidates = run.choose(*chosen_shape, request.pattern,
                               steer ? std::max(alternatives, kSteerPlans - 1) : alternatives);
  if (candidates.empty()) return std::nullopt;
  // Plans become hosts only when looked at: most steered jobs stop at the cheapest.
  struct Realised {
    Allocation allocation;
    double share = 1.0;  // of its uplinks beside the running jobs
  };
  std::vector<std::optional<Realised>> realised(candidates.size());
  const auto hosts_of = [&](std::size_t i) -> Realised& {
    if (!realised[i]) {
      Realised r{run.realise(*chosen_shape, candidates[i].plan)};
      r.share = run.avoid_busy_cables(*chosen_shape, request.pattern, r.allocation);
      realised[i] = std::move(r);
    }
    return *realised[i];
  };
  if (steer) {
    // The plan that leaves the job the largest share of its uplinks, among those that
    // break no more whole leaf groups and use no weaker uplinks than the cheapest: the
    // share is of this instant, a degraded group's cables stay weak for every job after.
    // Ties keep the cost order.
    const auto stretch = [&](const selection::Plan& plan) {
      double worst = 0;
      for (const auto& t : plan) worst = std::max(worst, ctx.index.leaf_group(t.leaf).stretch);
      return worst;
    };
    const double stretch_cheapest = stretch(candidates.front().plan);
    const auto [pick, best] = selection::steer_by_share(
        candidates.size(),
        [&](std::size_t i) {
          return candidates[i].key.whole_leaves_broken <= candidates.front().key.whole_leaves_broken &&
                 stretch(candidates[i].plan) <= stretch_cheapest + selection::kShareEpsilon;
        },
        [&](std::size_t i) { return hosts_of(i).share; });
    if (pick != 0) {
      std::rotate(candidates.begin(), candidates.begin() + static_cast<long>(pick),
                  candidates.begin() + static_cast<long>(pick) + 1);
      std::rotate(realised.begin(), realised.begin() + static_cast<long>(pick),
                  realised.begin() + static_cast<long>(pick) + 1);
    }
  }
  Decision d;
  if (steer) d.uplink_share = hosts_of(0).share;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (i > 0 && static_cast<int>(d.alternatives.size()) >= alternatives) break;
    Allocation a = std::move(hosts_of(i).allocation);
    PlacementScore s = run.score(a, request.pattern, candidates[i].key.cost, detail == ScoreDetail::Full);
    if (i == 0) {
      d.chosen = {std::move(a), std::move(s)};
    } else {
      d.alternatives.push_back({std::move(a), std::move(s)});
    }
  }
  return d;
}

std::optional<Allocation> FabricfitSelector::place(const PlacementContext& ctx, const JobRequest& request) {
  auto d = decide(ctx, request, 0);
  if (!d) return std::nullopt;
  return std::move(d->chosen.allocation);
}

}  // namespace fabricfit
