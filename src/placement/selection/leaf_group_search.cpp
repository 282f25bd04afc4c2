// SPDX-License-Identifier: GPL-2.0-or-later
// Jobs that need several leaf groups: the traffic cost of a plan over groups, and the
// local search over sets of exactly k groups.
#include <algorithm>
#include <optional>
#include <tuple>

#include "placement/selection/pattern_split.hpp"
#include "placement/selection/selector_run.hpp"

namespace fabricfit::selection {
namespace {

constexpr int kSearchRounds = 8;
// Three-tier: local searches started inside single pods (the tightest that hold the job).
constexpr std::size_t kPodStarts = 4;

}  // namespace

void Run::prepare_split(const JobShape& shape, const CommPattern& pattern) {
  unit_ = stage_hosts(pattern, shape);
  slot_traffic_.reset();
  if (pattern.kind != PatternKind::Parallel) return;
  std::vector<int> gpus(shape.nodes);
  for (int i = 0; i < shape.nodes; ++i) gpus[i] = shape.gpus_on(i, G_);
  try {
    slot_traffic_ = TrafficMatrix::build(pattern, gpus);
  } catch (const PatternError&) {
    // tp x pp x dp is not the job's GPU count: the ring model ranks the plans, and the
    // score says what is wrong, as before.
  }
}

// The traffic part of the cost of a plan over several leaf groups. tp/pp/dp: the exact
// share of its bytes that crosses groups and pods with the plan in rank order (this is
// what puts pipeline stage boundaries on group edges). All-to-all in closed form. Ring
// and tree by the ring model (one crossing per leaf group boundary); the reported score
// routes the exact pattern.
double Run::traffic_cost(const Plan& plan, const JobShape& shape, const CommPattern& pattern) const {
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
  } else if (slot_traffic_) {
    Plan ordered = plan;
    order_for_split(ordered, index, unit_);
    std::tie(spine_share, core_share) = cross_shares(*slot_traffic_, ordered, index);
  } else {
    spine_share = static_cast<double>(plan.size()) / n;
    core_share = cross_pod ? static_cast<double>(pods_.size()) / n : 0.0;
  }
  return w_.spine * spine_share + w_.core * core_share + w_.uplink * stretch;
}

// Jobs that need k >= 2 leaf groups: a local search over sets of exactly k leaf groups.
// In a set, all but one group give all their eligible hosts and the remainder group
// gives the rest; the set's cost is that of its best remainder.
void Run::search_leaf_groups(const JobShape& shape, const CommPattern& pattern, int k, RunnersUp& best) {
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

Candidate Run::make_candidate(Plan plan, double delta, const JobShape& shape,
                              const CommPattern& pattern) const {
  Candidate c;
  c.key.cost = traffic_cost(plan, shape, pattern) + frag_cost(delta, shape);
  if (unit_ > 1) {
    Plan ordered = plan;
    order_for_split(ordered, ctx_.index, unit_);
    c.key.stages_split = stages_split(ordered, unit_);
  }
  c.plan = std::move(plan);
  return c;
}

// A set's plans: all but one group give all their eligible hosts and the remainder group
// the rest; for tp/pp/dp with stages of several hosts also every group giving whole
// stages only (the remainder fewer), so that no stage is split when the set can avoid it.
Candidate Run::evaluate_set(const std::vector<int>& set, const JobShape& shape, const CommPattern& pattern,
                            RunnersUp& best) {
  long sum = 0, whole_stages = 0;
  double full = 0;
  int broken = 0, whole_free = 0;
  for (int l : set) {
    sum += s_.eligible[l];
    whole_stages += s_.eligible[l] / unit_ * unit_;
    full += s_.full_delta[l];
    broken += whole_leaf(l) ? 1 : 0;
    whole_free += s_.whole_free[l];
  }
  const int excess = static_cast<int>(sum - shape.nodes);
  std::vector<int> leaves = set;
  std::sort(leaves.begin(), leaves.end());
  std::optional<Candidate> chosen;
  const auto consider = [&](Candidate c, int r) {
    c.key.whole_leaves_broken = broken;
    c.key.leftover = excess;
    c.key.whole_free_touched = whole_free;
    c.key.leaves = leaves;
    c.key.remainder = r;
    if (!chosen || better(c.key, chosen->key)) chosen = std::move(c);
  };
  for (int r : set) {
    const int take_r = s_.eligible[r] - excess;
    if (take_r < 1) continue;
    Plan plan;
    for (int l : set) plan.push_back(LeafTake{l, l == r ? take_r : s_.eligible[l]});
    const double delta = full - s_.full_delta[r] + partial_delta(r, take_r, shape);
    consider(make_candidate(std::move(plan), delta, shape, pattern), r);
  }
  if (unit_ > 1 && whole_stages >= shape.nodes) {
    const int stage_excess = static_cast<int>(whole_stages - shape.nodes);
    for (int r : set) {
      const int take_r = s_.eligible[r] / unit_ * unit_ - stage_excess;
      if (take_r < 1) continue;
      Plan plan;
      double delta = 0;
      for (int l : set) {
        const int take = l == r ? take_r : s_.eligible[l] / unit_ * unit_;
        plan.push_back(LeafTake{l, take});
        delta += take == s_.eligible[l] ? s_.full_delta[l] : partial_delta(l, take, shape);
      }
      consider(make_candidate(std::move(plan), delta, shape, pattern), r);
    }
  }
  best.offer(*chosen);
  return std::move(*chosen);
}

double Run::partial_delta(int l, int take, const JobShape& shape) {
  const long key = static_cast<long>(l) * (ctx_.index.largest_leaf_group() + 1) + take;
  auto it = partial_.find(key);
  if (it != partial_.end()) return it->second;
  const double d = take_delta(l, take, shape);
  partial_.emplace(key, d);
  return d;
}

}  // namespace fabricfit::selection
