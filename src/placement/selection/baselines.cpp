// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/selection/baselines.hpp"

#include <algorithm>
#include <vector>

namespace fabricfit {
namespace {

// Tries the shapes of a request in order; the first that fits wins.
template <typename PlaceShape>
std::optional<Allocation> first_shape_that_fits(const PlacementContext& ctx, const JobRequest& request,
                                                PlaceShape&& place_shape) {
  for (const JobShape& shape : job_shapes(request, std::max(1, ctx.gpus.max_gpus_per_host()))) {
    if (auto a = place_shape(shape)) return a;
  }
  return std::nullopt;
}

// Slurm topology/tree's best fit over leaf groups (see baselines.hpp).
class TreeFit {
 public:
  TreeFit(const PlacementContext& ctx, const JobShape& shape) : ctx_(ctx), shape_(shape) {
    const auto& index = ctx.index;
    count_.assign(index.leaf_group_count(), 0);
    pod_count_.assign(index.pod_count(), 0);
    for (int l = 0; l < index.leaf_group_count(); ++l) {
      for (int h : index.hosts_of(l)) count_[l] += host_fits(ctx, h, shape) ? 1 : 0;
      total_ += count_[l];
      if (index.pod_of_leaf_group(l) >= 0) pod_count_[index.pod_of_leaf_group(l)] += count_[l];
    }
  }

  std::optional<Allocation> run() {
    const auto& index = ctx_.index;
    if (total_ < shape_.nodes) return std::nullopt;
    std::vector<int> chosen;
    std::vector<long> dist(index.leaf_group_count(), 0);
    rem_ = shape_.nodes;
    while (rem_ > 0) {
      int best = -1;
      for (int l = 0; l < index.leaf_group_count(); ++l) {
        if (count_[l] == 0) continue;
        if (best < 0) {
          best = l;
          continue;
        }
        const bool fits = count_[l] >= rem_;
        // Nearer the groups already chosen and holding the rest, or as near and better.
        if ((dist[l] < dist[best] && fits) || (dist[l] == dist[best] && compare(l, best) > 0)) best = l;
      }
      if (best < 0) return std::nullopt;
      int taken = 0;
      for (int h : index.hosts_of(best)) {
        if (rem_ == 0) break;
        if (!host_fits(ctx_, h, shape_)) continue;
        chosen.push_back(h);
        --rem_;
        ++taken;
      }
      const int pod = index.pod_of_leaf_group(best);
      if (pod >= 0) pod_count_[pod] = std::max(0L, pod_count_[pod] - taken);
      count_[best] = 0;  // used up, whatever is left
      for (int l = 0; l < index.leaf_group_count(); ++l) dist[l] += hops(l, best);
    }
    return in_node_order(ctx_, shape_, std::move(chosen));
  }

 private:
  // Switch hops between two leaf groups: up to a common spine and down, or through a core.
  [[nodiscard]] int hops(int a, int b) const {
    if (a == b) return 0;
    const int pa = ctx_.index.pod_of_leaf_group(a), pb = ctx_.index.pod_of_leaf_group(b);
    return pa == pb ? 2 : 4;
  }

  // > 0 when leaf group i fits the rest of the job better than j, < 0 when worse.
  [[nodiscard]] int compare(int i, int j) const {
    long ci = count_[i], cj = count_[j];
    bool at_pods = false;
    while (true) {
      const bool i_fit = ci >= rem_, j_fit = cj >= rem_;
      if (i_fit && j_fit) {
        if (ci != cj) return ci < cj ? 1 : -1;  // tightest fit
        break;
      }
      if (i_fit) return 1;
      if (j_fit) return -1;
      const int pi = ctx_.index.pod_of_leaf_group(i), pj = ctx_.index.pod_of_leaf_group(j);
      if (!at_pods && pi >= 0 && pj >= 0 && pi != pj) {
        ci = pod_count_[pi];
        cj = pod_count_[pj];
        at_pods = true;
        continue;
      }
      break;
    }
    if (ci != cj) return ci > cj ? 1 : -1;  // neither holds the rest: largest first
    return 0;
  }

  const PlacementContext& ctx_;
  const JobShape& shape_;
  std::vector<long> count_;
  std::vector<long> pod_count_;
  long total_ = 0;
  long rem_ = 0;
};

}  // namespace

Allocation in_node_order(const PlacementContext& ctx, const JobShape& shape, std::vector<int> hosts) {
  std::sort(hosts.begin(), hosts.end());
  Allocation a;
  for (int h : hosts) {
    a.gpus.push_back(shape.gpus_on(static_cast<int>(a.hosts.size()), ctx.gpus.total[h]));
    a.hosts.push_back(h);
  }
  return a;
}

bool host_fits(const PlacementContext& ctx, int host, const JobShape& shape) {
  if (!ctx.may_use(host) || ctx.index.leaf_group_of(host) < 0) return false;
  const int f = ctx.gpus.free[host];
  if (shape.whole_nodes) return ctx.gpus.whole_free(host) && f >= shape.gpus_per_node;
  return f >= shape.gpus_per_node;
}

std::optional<Allocation> TreePolicy::place(const PlacementContext& ctx, const JobRequest& request) {
  return first_shape_that_fits(ctx, request, [&](const JobShape& shape) -> std::optional<Allocation> {
    auto a = TreeFit(ctx, shape).run();
    if (a && switch_wait_s_ > 0 && request.waited_s < switch_wait_s_ && shape.nodes >= 2 &&
        shape.nodes <= ctx.index.largest_leaf_group()) {
      std::vector<int> groups;
      for (int h : a->hosts) groups.push_back(ctx.index.leaf_group_of(h));
      std::sort(groups.begin(), groups.end());
      if (std::unique(groups.begin(), groups.end()) - groups.begin() > 1)
        return std::nullopt;  // keep waiting
    }
    return a;
  });
}

std::optional<Allocation> FirstFitPolicy::place(const PlacementContext& ctx, const JobRequest& request) {
  return first_shape_that_fits(ctx, request, [&](const JobShape& shape) -> std::optional<Allocation> {
    std::vector<int> chosen;
    for (int h = 0; h < ctx.gpus.host_count() && static_cast<int>(chosen.size()) < shape.nodes; ++h) {
      if (host_fits(ctx, h, shape)) chosen.push_back(h);
    }
    if (static_cast<int>(chosen.size()) < shape.nodes) return std::nullopt;
    return in_node_order(ctx, shape, std::move(chosen));
  });
}

std::optional<Allocation> RandomPolicy::place(const PlacementContext& ctx, const JobRequest& request) {
  return first_shape_that_fits(ctx, request, [&](const JobShape& shape) -> std::optional<Allocation> {
    std::vector<int> pool;
    for (int h = 0; h < ctx.gpus.host_count(); ++h) {
      if (host_fits(ctx, h, shape)) pool.push_back(h);
    }
    if (static_cast<int>(pool.size()) < shape.nodes) return std::nullopt;
    // Partial Fisher-Yates with our own draw, so results do not depend on the standard
    // library's distribution implementation.
    for (int i = 0; i < shape.nodes; ++i) {
      const auto span = static_cast<std::uint64_t>(pool.size() - i);
      const auto j = i + static_cast<int>(rng_() % span);
      std::swap(pool[i], pool[j]);
    }
    pool.resize(shape.nodes);
    return in_node_order(ctx, shape, std::move(pool));
  });
}

}  // namespace fabricfit
