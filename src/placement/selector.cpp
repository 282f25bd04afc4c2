// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/selector.hpp"

#include <algorithm>

#include "placement/selector_run.hpp"

namespace fabricfit {

using selection::Run;

std::optional<Decision> FabricfitSelector::decide(const PlacementContext& ctx, const JobRequest& request,
                                                  int alternatives, ScoreDetail detail) {
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

  auto candidates = run.choose(*chosen_shape, request.pattern, alternatives);
  if (candidates.empty()) return std::nullopt;
  Decision d;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    Allocation a = run.realise(*chosen_shape, candidates[i].plan);
    PlacementScore s = run.score(a, request.pattern, candidates[i].key.cost, detail == ScoreDetail::Full);
    if (i == 0) {
      d.chosen = {std::move(a), std::move(s)};
    } else if (static_cast<int>(d.alternatives.size()) < alternatives) {
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
