// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/selector.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <unordered_map>

namespace fabricfit {
namespace {

constexpr double kCostEpsilon = 1e-9;

constexpr int kSearchRounds = 8;
// Three-tier: local searches started inside single pods (the tightest that hold the job).
constexpr std::size_t kPodStarts = 4;

// Hosts taken from one leaf group. from_free >= 0 (single-node jobs) names the free-GPU
// count of the host to take; otherwise the tightest-fitting eligible hosts are taken.
struct LeafTake {
  int leaf = 0;
  int take = 0;
  int from_free = -1;
};
using Plan = std::vector<LeafTake>;

// What ranks candidate plans, field by field: the cost, then the tie-breaks that keep
// whole leaf groups free and fit tightly, then leaf indices (deterministic).
struct PlanKey {
  double cost = 0;
  int whole_leaves_broken = 0;  // leaf groups that were entirely free and are no longer
  int leftover = 0;             // eligible hosts (or GPUs, single-node) left in the touched groups
  int whole_free_touched = 0;   // whole free hosts in the touched groups: busier groups first
  std::vector<int> leaves;      // sorted; empty for a one-group plan (its group is the remainder)
  int remainder = -1;           // the partly used leaf group
};

bool better(const PlanKey& a, const PlanKey& b) {
  if (a.cost < b.cost - kCostEpsilon) return true;
  if (b.cost < a.cost - kCostEpsilon) return false;
  if (a.whole_leaves_broken != b.whole_leaves_broken) return a.whole_leaves_broken < b.whole_leaves_broken;
  if (a.leftover != b.leftover) return a.leftover < b.leftover;
  if (a.whole_free_touched != b.whole_free_touched) return a.whole_free_touched < b.whole_free_touched;
  if (a.leaves != b.leaves) return a.leaves < b.leaves;
  return a.remainder < b.remainder;
}

struct Candidate {
  PlanKey key;
  Plan plan;
};

// Keeps the best `limit` candidates with distinct plans (for explain), best first. The
// plan is built only for a candidate that is kept: most are not.
class RunnersUp {
 public:
  explicit RunnersUp(int limit) : limit_(limit) {}
  template <typename MakePlan>
  void offer(const PlanKey& key, MakePlan&& make_plan) {
    if (static_cast<int>(kept_.size()) >= limit_ && !better(key, kept_.back().key)) return;
    Candidate c{key, make_plan()};
    // One plan, however the search reached it: groups in index order.
    std::sort(c.plan.begin(), c.plan.end(),
              [](const LeafTake& a, const LeafTake& b) { return a.leaf < b.leaf; });
    for (auto& kept : kept_) {
      if (same_plan(kept.plan, c.plan)) {
        if (better(c.key, kept.key)) kept = std::move(c);
        sort();
        return;
      }
    }
    kept_.push_back(std::move(c));
    sort();
    if (static_cast<int>(kept_.size()) > limit_) kept_.pop_back();
  }
  void offer(const Candidate& c) {
    offer(c.key, [&] { return c.plan; });
  }
  [[nodiscard]] const std::vector<Candidate>& kept() const { return kept_; }

 private:
  static bool same_plan(const Plan& a, const Plan& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i].leaf != b[i].leaf || a[i].take != b[i].take || a[i].from_free != b[i].from_free) return false;
    }
    return true;
  }
  void sort() {
    std::stable_sort(kept_.begin(), kept_.end(),
                     [](const Candidate& x, const Candidate& y) { return better(x.key, y.key); });
  }
  int limit_;
  std::vector<Candidate> kept_;
};

// One decision: the per-leaf-group counts of a scan over the hosts, and the searches
// over them.
class Run {
 public:
  Run(const PlacementContext& ctx, const ScoreWeights& w, FabricfitSelector::Scratch& s)
      : ctx_(ctx), w_(w), s_(s), L_(ctx.index.leaf_group_count()), G_(ctx.frag.max_gpus()), stride_(G_ + 1) {}

  // Free GPUs of every host, by leaf group: what fragmentation is measured on.
  void scan_free() {
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

  [[nodiscard]] bool eligible(int h, const JobShape& shape) const {
    if (!ctx_.may_use(h)) return false;
    const int f = ctx_.gpus.free[h];
    if (shape.whole_nodes) return ctx_.gpus.whole_free(h) && f >= shape.gpus_per_node;
    return f >= shape.gpus_per_node;
  }

  // Eligible hosts by leaf group and free GPUs. Returns how many there are.
  long scan_eligible(const JobShape& shape) {
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
  [[nodiscard]] int min_leaf_groups(int n) const {
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
  std::vector<Candidate> choose(const JobShape& shape, const CommPattern& pattern, int keep) {
    RunnersUp best(std::max(1, keep + 1));
    if (shape.nodes == 1) {
      choose_one_host(shape, best);
    } else {
      const int k = min_leaf_groups(shape.nodes);
      if (k == 1) {
        choose_one_leaf_group(shape, best);
      } else if (k > 1) {
        search_leaf_groups(shape, pattern, k, best);
      }
    }
    return best.kept();
  }

  // Hosts for a plan, in rank order: leaf groups by pod then index, hosts ascending.
  [[nodiscard]] Allocation realise(const JobShape& shape, Plan plan) const {
    std::sort(plan.begin(), plan.end(), [&](const LeafTake& a, const LeafTake& b) {
      const int pa = ctx_.index.pod_of_leaf_group(a.leaf), pb = ctx_.index.pod_of_leaf_group(b.leaf);
      return pa != pb ? pa < pb : a.leaf < b.leaf;
    });
    Allocation out;
    std::vector<std::pair<int, int>> pool;  // (free, host)
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
  PlacementScore score(const Allocation& a, const CommPattern& pattern, double cost) {
    PlacementScore s = TrafficRouter(ctx_.index).route_hosts(TrafficMatrix::build(pattern, a.gpus), a.hosts);
    double unusable = 0, free = 0;
    for (int l = 0; l < L_; ++l) {
      unusable += before(l);
      const int* row = hist(l);
      for (int f = 0; f <= G_; ++f) free += static_cast<double>(f) * row[f];
    }
    // Apply the allocation to copies of the touched rows.
    std::vector<int> touched;
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
    s.cost = cost;
    return s;
  }

 private:
  [[nodiscard]] const int* hist(int l) const { return &s_.all_hist[static_cast<std::size_t>(l) * stride_]; }
  [[nodiscard]] const int* elig(int l) const { return &s_.elig_hist[static_cast<std::size_t>(l) * stride_]; }

  double before(int l) {
    if (std::isnan(s_.before[l]))
      s_.before[l] = ctx_.frag.unusable({hist(l), static_cast<std::size_t>(stride_)});
    return s_.before[l];
  }

  [[nodiscard]] bool whole_leaf(int l) const {
    return ctx_.index.leaf_group_size(l) > 0 && s_.whole_free[l] == ctx_.index.leaf_group_size(l);
  }

  [[nodiscard]] static int gpus_taken(const JobShape& shape, int free) {
    return shape.whole_nodes ? free : shape.gpus_per_node;
  }

  // Change in unusable GPUs of leaf group l when its m tightest-fitting eligible hosts are taken.
  double take_delta(int l, int m, const JobShape& shape) {
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

  [[nodiscard]] double frag_cost(double delta, const JobShape& shape) const {
    return w_.frag * delta / std::max(1, shape.total_gpus);
  }

  // Single-node jobs: every (leaf group, free-GPU count) that has an eligible host.
  void choose_one_host(const JobShape& shape, RunnersUp& best) {
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
  void choose_one_leaf_group(const JobShape& shape, RunnersUp& best) {
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

  // The traffic part of the cost of a plan over several leaf groups, in closed form.
  // Ring, tree and tp/pp/dp are ranked by the ring model (one crossing per leaf group
  // boundary); the reported score routes the exact pattern.
  [[nodiscard]] double traffic_cost(const Plan& plan, const JobShape& shape,
                                    const CommPattern& pattern) const {
    if (plan.size() < 2 || pattern.kind == PatternKind::None) return 0;
    const auto& index = ctx_.index;
    double stretch = 0;
    pods_.clear();
    for (const LeafTake& t : plan) {
      stretch = std::max(stretch, index.leaf_group(t.leaf).stretch);
      const int pod = index.pod_of_leaf_group(t.leaf);
      if (pod >= 0) {
        auto it = std::find_if(pods_.begin(), pods_.end(), [&](auto& p) { return p.first == pod; });
        if (it == pods_.end()) {
          pods_.emplace_back(pod, t.take);
        } else {
          it->second += t.take;
        }
      }
    }
    const bool cross_pod = pods_.size() >= 2;
    if (cross_pod) {
      for (const auto& p : pods_) stretch = std::max(stretch, index.pod(p.first).stretch);
    }
    double spine_share = 0, core_share = 0;
    const double n = shape.nodes;
    if (pattern.kind == PatternKind::AllToAll) {
      const double g = shape.gpus_per_node, R = n * g;
      const double inter = (R * R - n * g * g) / R;
      for (const LeafTake& t : plan) spine_share += t.take * g * (R - t.take * g) / R;
      if (cross_pod) {
        for (const auto& p : pods_) core_share += p.second * g * (R - p.second * g) / R;
      }
      spine_share /= inter;
      core_share /= inter;
    } else {
      spine_share = static_cast<double>(plan.size()) / n;
      core_share = cross_pod ? static_cast<double>(pods_.size()) / n : 0.0;
    }
    return w_.spine * spine_share + w_.core * core_share + w_.uplink * stretch;
  }

  // Jobs that need k >= 2 leaf groups: a local search over sets of exactly k leaf groups.
  // In a set, all but one group give all their eligible hosts and the remainder group
  // gives the rest; the set's cost is that of its best remainder.
  void search_leaf_groups(const JobShape& shape, const CommPattern& pattern, int k, RunnersUp& best) {
    const auto& index = ctx_.index;
    std::vector<int> usable;
    for (int l = 0; l < L_; ++l) {
      if (s_.eligible[l] > 0) usable.push_back(l);
    }
    s_.full_delta.assign(L_, 0.0);
    for (int l : usable) s_.full_delta[l] = take_delta(l, s_.eligible[l], shape);
    partial_.clear();

    // Preference among groups with the same count: healthier uplinks, then less damage.
    const auto prefer = [&](int a, int b) {
      const double sa = index.leaf_group(a).stretch, sb = index.leaf_group(b).stretch;
      if (sa != sb) return sa < sb;
      if (s_.full_delta[a] != s_.full_delta[b]) return s_.full_delta[a] < s_.full_delta[b];
      return a < b;
    };
    // Buckets of interchangeable groups: same pod, same eligible count, best first. The
    // local search swaps a group of the set for the head of a bucket.
    struct Bucket {
      std::size_t begin, end;
      int pod;
    };
    const auto bucketed = [&](bool by_pod) {
      std::vector<int> order = usable;
      std::sort(order.begin(), order.end(), [&](int a, int b) {
        const int pa = by_pod ? index.pod_of_leaf_group(a) : 0, pb = by_pod ? index.pod_of_leaf_group(b) : 0;
        if (pa != pb) return pa < pb;
        if (s_.eligible[a] != s_.eligible[b]) return s_.eligible[a] < s_.eligible[b];
        return prefer(a, b);
      });
      std::vector<Bucket> buckets;
      for (std::size_t i = 0; i < order.size(); ++i) {
        const int pod = by_pod ? index.pod_of_leaf_group(order[i]) : -1;
        if (i == 0 || pod != buckets.back().pod || s_.eligible[order[i]] != s_.eligible[order[i - 1]]) {
          if (!buckets.empty()) buckets.back().end = i;
          buckets.push_back(Bucket{i, order.size(), pod});
        }
      }
      return std::pair{std::move(order), std::move(buckets)};
    };
    // Across the fabric, and (three-tier) inside each pod: a set may take the best group
    // of a count anywhere, or the best of a count in a pod it already uses, so the
    // neighbourhood grows with the pods of the set, not with all pods.
    const auto [global_order, global_buckets] = bucketed(false);
    const bool pods = index.pod_count() > 0;
    std::vector<int> pod_order;
    std::vector<Bucket> pod_buckets;
    if (pods) std::tie(pod_order, pod_buckets) = bucketed(true);

    // Starting sets: the k largest groups (what a best fit by leaf takes) and, on a
    // three-tier fabric, the k largest of the pods that can hold the job alone, the
    // tightest few of them.
    const auto largest_first = [&](int a, int b) {
      return s_.eligible[a] != s_.eligible[b] ? s_.eligible[a] > s_.eligible[b] : prefer(a, b);
    };
    std::vector<std::vector<int>> starts;
    std::vector<int> sorted = usable;
    std::sort(sorted.begin(), sorted.end(), largest_first);
    starts.emplace_back(sorted.begin(), sorted.begin() + k);
    if (pods) {
      std::vector<std::vector<int>> in_pod(index.pod_count());
      for (int l : sorted) {
        const int p = index.pod_of_leaf_group(l);
        if (p >= 0 && static_cast<int>(in_pod[p].size()) < k) in_pod[p].push_back(l);
      }
      std::vector<std::pair<long, int>> holding;  // (eligible in its k largest, pod)
      for (int p = 0; p < index.pod_count(); ++p) {
        long sum = 0;
        for (int l : in_pod[p]) sum += s_.eligible[l];
        if (static_cast<int>(in_pod[p].size()) == k && sum >= shape.nodes) holding.emplace_back(sum, p);
      }
      std::sort(holding.begin(), holding.end());
      for (std::size_t i = 0; i < holding.size() && i < kPodStarts; ++i) {
        if (in_pod[holding[i].second] != starts.front()) starts.push_back(in_pod[holding[i].second]);
      }
    }

    s_.in_set.assign(L_, 0);
    const auto head = [&](const std::vector<int>& order, const Bucket& b) {
      for (std::size_t i = b.begin; i < b.end; ++i) {
        if (!s_.in_set[order[i]]) return order[i];
      }
      return -1;
    };
    std::vector<int> heads;
    for (auto& set : starts) {
      Candidate current = evaluate_set(set, shape, pattern, best);
      for (int round = 0; round < kSearchRounds; ++round) {
        for (int l : set) s_.in_set[l] = 1;
        heads.clear();
        for (const Bucket& b : global_buckets) heads.push_back(head(global_order, b));
        for (const Bucket& b : pod_buckets) {
          const bool used =
              std::any_of(set.begin(), set.end(), [&](int l) { return index.pod_of_leaf_group(l) == b.pod; });
          if (used) heads.push_back(head(pod_order, b));
        }
        std::sort(heads.begin(), heads.end());
        heads.erase(std::unique(heads.begin(), heads.end()), heads.end());
        long sum = 0;
        for (int l : set) sum += s_.eligible[l];
        std::optional<Candidate> move;
        std::vector<int> move_set;
        for (std::size_t out = 0; out < set.size(); ++out) {
          for (int in : heads) {
            if (in < 0 || sum - s_.eligible[set[out]] + s_.eligible[in] < shape.nodes) continue;
            std::vector<int> next = set;
            next[out] = in;
            Candidate c = evaluate_set(next, shape, pattern, best);
            if (better(c.key, move ? move->key : current.key)) {
              move = std::move(c);
              move_set = std::move(next);
            }
          }
        }
        for (int l : set) s_.in_set[l] = 0;
        if (!move) break;
        current = std::move(*move);
        set = std::move(move_set);
      }
    }
  }

  Candidate evaluate_set(const std::vector<int>& set, const JobShape& shape, const CommPattern& pattern,
                         RunnersUp& best) {
    long sum = 0;
    double full = 0;
    int broken = 0, whole_free = 0;
    for (int l : set) {
      sum += s_.eligible[l];
      full += s_.full_delta[l];
      broken += whole_leaf(l) ? 1 : 0;
      whole_free += s_.whole_free[l];
    }
    const int excess = static_cast<int>(sum - shape.nodes);
    std::vector<int> leaves = set;
    std::sort(leaves.begin(), leaves.end());
    std::optional<Candidate> chosen;
    for (int r : set) {
      const int take_r = s_.eligible[r] - excess;
      if (take_r < 1) continue;
      Plan plan;
      for (int l : set) plan.push_back(LeafTake{l, l == r ? take_r : s_.eligible[l]});
      const double delta = full - s_.full_delta[r] + partial_delta(r, take_r, shape);
      Candidate c;
      c.key.cost = traffic_cost(plan, shape, pattern) + frag_cost(delta, shape);
      c.key.whole_leaves_broken = broken;
      c.key.leftover = excess;
      c.key.whole_free_touched = whole_free;
      c.key.leaves = leaves;
      c.key.remainder = r;
      c.plan = std::move(plan);
      if (!chosen || better(c.key, chosen->key)) chosen = std::move(c);
    }
    best.offer(*chosen);
    return std::move(*chosen);
  }

  double partial_delta(int l, int take, const JobShape& shape) {
    const long key = static_cast<long>(l) * (ctx_.index.largest_leaf_group() + 1) + take;
    auto it = partial_.find(key);
    if (it != partial_.end()) return it->second;
    const double d = take_delta(l, take, shape);
    partial_.emplace(key, d);
    return d;
  }

  const PlacementContext& ctx_;
  const ScoreWeights& w_;
  FabricfitSelector::Scratch& s_;
  int L_;
  int G_;
  int stride_;
  std::unordered_map<long, double> partial_;
  mutable std::vector<std::pair<int, int>> pods_;  // (pod, hosts) of the plan being costed
};

}  // namespace

std::optional<Decision> FabricfitSelector::decide(const PlacementContext& ctx, const JobRequest& request,
                                                  int alternatives) {
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
    PlacementScore s = run.score(a, request.pattern, candidates[i].key.cost);
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
