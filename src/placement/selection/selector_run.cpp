// SPDX-License-Identifier: GPL-2.0-or-later
// One decision's per-leaf-group counts, the one-host and one-leaf-group searches, and
// turning a plan into hosts in rank order with its score.
#include "placement/selection/selector_run.hpp"

#include "placement/selection/pattern_split.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace fabricfit::selection {

// Free GPUs of every host, by leaf group: what fragmentation is measured on.
void Run::scan_free() {
  s_.all_hist.assign(static_cast<std::size_t>(L_) * stride_, 0);
  s_.whole_free.assign(L_, 0);
  s_.before.assign(L_, std::numeric_limits<double>::quiet_NaN());
  for (int l = 0; l < L_; ++l) {
    int* row = &s_.all_hist[static_cast<std::size_t>(l) * stride_];
    for (int h : ctx_.index.hosts_of(l)) {
      ++row[std::clamp(ctx_.gpus.free[h], 0, G_)];
      s_.whole_free[l] += ctx_.gpus.whole_free(h) ? 1 : 0;
    }
  }
}

// Eligible hosts by leaf group and free GPUs. Returns how many there are.
long Run::scan_eligible(const JobShape& shape) {
  s_.elig_hist.assign(static_cast<std::size_t>(L_) * stride_, 0);
  s_.eligible.assign(L_, 0);
  long total = 0;
  for (int l = 0; l < L_; ++l) {
    int* row = &s_.elig_hist[static_cast<std::size_t>(l) * stride_];
    for (int h : ctx_.index.hosts_of(l)) {
      if (!eligible(h, shape)) continue;
      ++row[std::clamp(ctx_.gpus.free[h], 0, G_)];
      ++s_.eligible[l];
    }
    total += s_.eligible[l];
  }
  return total;
}

// The fewest leaf groups that hold n eligible hosts (what a best fit by leaf achieves
// at best); 0 when they do not exist.
int Run::min_leaf_groups(int n) const {
  // Counting sort by eligible hosts, largest first.
  const int top = ctx_.index.largest_leaf_group();
  std::vector<int> with(top + 1, 0);
  for (int l = 0; l < L_; ++l) ++with[s_.eligible[l]];
  long covered = 0;
  int groups = 0;
  for (int c = top; c >= 1; --c) {
    for (int i = 0; i < with[c]; ++i) {
      covered += c;
      ++groups;
      if (covered >= n) return groups;
    }
  }
  return 0;
}

// Best plans for a shape, best first (at least one when it fits).
std::vector<Candidate> Run::choose(const JobShape& shape, const CommPattern& pattern, int keep) {
  RunnersUp best(std::max(1, keep + 1));
  if (shape.nodes == 1) {
    choose_one_host(shape, best);
  } else {
    const int k = min_leaf_groups(shape.nodes);
    if (k == 1) {
      choose_one_leaf_group(shape, best);
    } else if (k > 1) {
      prepare_split(shape, pattern);
      search_leaf_groups(shape, pattern, k, best);
    }
  }
  return best.kept();
}

// Hosts for a plan, in rank order (order_for_split), hosts ascending inside a group.
Allocation Run::realise(const JobShape& shape, Plan plan) {
  order_for_split(plan, ctx_.index, unit_);
  Allocation out;
  auto& pool = s_.pool;  // (free, host)
  for (const LeafTake& t : plan) {
    pool.clear();
    for (int h : ctx_.index.hosts_of(t.leaf)) {
      if (!eligible(h, shape)) continue;
      if (t.from_free >= 0 && ctx_.gpus.free[h] != t.from_free) continue;
      pool.emplace_back(ctx_.gpus.free[h], h);
    }
    std::sort(pool.begin(), pool.end());
    pool.resize(std::min<std::size_t>(pool.size(), t.take));
    std::sort(pool.begin(), pool.end(), [](auto& a, auto& b) { return a.second < b.second; });
    for (const auto& [free, h] : pool) {
      out.gpus.push_back(shape.gpus_on(static_cast<int>(out.hosts.size()), ctx_.gpus.total[h]));
      out.hosts.push_back(h);
    }
  }
  return out;
}

// The score of a realised plan: exact traffic, and fragmentation from the scan.
PlacementScore Run::score(const Allocation& a, const CommPattern& pattern, double cost, bool with_frag) {
  if (!s_.router || !s_.router->serves(ctx_.index)) s_.router.emplace(ctx_.index);
  PlacementScore s;
  try {
    s = s_.router->route_hosts(TrafficMatrix::build(pattern, a.gpus), a.hosts);
  } catch (...) {
    s_.router.reset();  // a route cut short leaves its sums behind: the next one starts afresh
    throw;
  }
  s.cost = cost;
  if (!with_frag) return s;
  double unusable = 0, free = 0;
  for (int l = 0; l < L_; ++l) {
    unusable += before(l);
    const int* row = hist(l);
    for (int f = 0; f <= G_; ++f) free += static_cast<double>(f) * row[f];
  }
  // Apply the allocation to copies of the touched rows.
  auto& touched = s_.touched;
  touched.clear();
  for (int h : a.hosts) touched.push_back(ctx_.index.leaf_group_of(h));
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  double after = unusable;
  for (int l : touched) {
    s_.tmp_hist.assign(hist(l), hist(l) + stride_);
    for (std::size_t i = 0; i < a.hosts.size(); ++i) {
      if (ctx_.index.leaf_group_of(a.hosts[i]) != l) continue;
      const int f = std::clamp(ctx_.gpus.free[a.hosts[i]], 0, G_);
      --s_.tmp_hist[f];
      ++s_.tmp_hist[std::max(0, f - a.gpus[i])];
    }
    after += ctx_.frag.unusable(s_.tmp_hist) - before(l);
  }
  const double free_after = free - a.total_gpus();
  s.frag_before = free > 0 ? unusable / free : 0.0;
  s.frag_after = free_after > 0 ? after / free_after : 0.0;
  s.frag_delta = s.frag_after - s.frag_before;
  return s;
}

double Run::before(int l) {
  if (std::isnan(s_.before[l]))
    s_.before[l] = ctx_.frag.unusable({hist(l), static_cast<std::size_t>(stride_)});
  return s_.before[l];
}

// Change in unusable GPUs of leaf group l when its m tightest-fitting eligible hosts are taken.
double Run::take_delta(int l, int m, const JobShape& shape) {
  s_.tmp_hist.assign(hist(l), hist(l) + stride_);
  const int* e = elig(l);
  for (int f = 0; f <= G_ && m > 0; ++f) {
    const int k = std::min(m, e[f]);
    if (k == 0) continue;
    s_.tmp_hist[f] -= k;
    s_.tmp_hist[std::max(0, f - gpus_taken(shape, f))] += k;
    m -= k;
  }
  return ctx_.frag.unusable(s_.tmp_hist) - before(l);
}

// Single-node jobs: every (leaf group, free-GPU count) that has an eligible host.
void Run::choose_one_host(const JobShape& shape, RunnersUp& best) {
  s_.at_least.assign(stride_ + 1, 0);
  for (int l = 0; l < L_; ++l) {
    if (s_.eligible[l] == 0) continue;
    const int* row = hist(l);
    s_.at_least[stride_] = 0;
    for (int f = G_; f >= 0; --f) s_.at_least[f] = s_.at_least[f + 1] + row[f];
    const int* e = elig(l);
    for (int f = 0; f <= G_; ++f) {
      if (e[f] == 0) continue;
      const int take = gpus_taken(shape, f);
      const double delta = ctx_.frag.move_delta(s_.at_least, f, std::max(0, f - take));
      PlanKey key;
      key.cost = frag_cost(delta, shape);
      key.whole_leaves_broken = whole_leaf(l) ? 1 : 0;
      key.leftover = f - take;
      key.whole_free_touched = s_.whole_free[l];
      key.remainder = l;
      best.offer(key, [&] { return Plan{LeafTake{l, 1, f}}; });
    }
  }
}

// Multi-node jobs that fit in one leaf group: every leaf group that can hold them.
void Run::choose_one_leaf_group(const JobShape& shape, RunnersUp& best) {
  for (int l = 0; l < L_; ++l) {
    if (s_.eligible[l] < shape.nodes) continue;
    PlanKey key;
    key.cost = frag_cost(take_delta(l, shape.nodes, shape), shape);
    key.whole_leaves_broken = whole_leaf(l) ? 1 : 0;
    key.leftover = s_.eligible[l] - shape.nodes;
    key.whole_free_touched = s_.whole_free[l];
    key.remainder = l;
    best.offer(key, [&] { return Plan{LeafTake{l, shape.nodes}}; });
  }
}

}  // namespace fabricfit::selection
