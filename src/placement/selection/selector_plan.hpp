// SPDX-License-Identifier: GPL-2.0-or-later
// The selector's candidate plans (how many hosts from which leaf groups), the key that
// ranks them with its tie-breaks, and the list of the best few kept for explain.
#pragma once

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

namespace fabricfit::selection {

constexpr double kCostEpsilon = 1e-9;
constexpr double kShareEpsilon = 1e-6;

// Steering beside running traffic: of the candidates 1..n-1 (cost order) that
// `comparable(i)` admits against the cheapest (candidate 0), the one that keeps the largest
// share of its uplinks (`share(i)`; 1: all it asks), when it beats the cheapest's; the search
// stops once a candidate keeps all it asks. Returns the pick (0: the cheapest) and its share.
template <class Comparable, class Share>
std::pair<std::size_t, double> steer_by_share(std::size_t n, Comparable&& comparable, Share&& share) {
  std::size_t pick = 0;
  double best = share(std::size_t{0});
  for (std::size_t i = 1; i < n && best < 1.0; ++i) {
    if (!comparable(i)) continue;
    const double rho = share(i);
    if (rho > best + kShareEpsilon) {
      best = rho;
      pick = i;
    }
  }
  return {pick, best};
}

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
  int stages_split = 0;         // tp/pp/dp: pipeline stages over two groups (selection::stages_split)
  int whole_leaves_broken = 0;  // leaf groups that were entirely free and are no longer
  int leftover = 0;             // eligible hosts (or GPUs, single-node) left in the touched groups
  int whole_free_touched = 0;   // whole free hosts in the touched groups: busier groups first
  std::vector<int> leaves;      // sorted; empty for a one-group plan (its group is the remainder)
  int remainder = -1;           // the partly used leaf group
};

inline bool better(const PlanKey& a, const PlanKey& b) {
  if (a.cost < b.cost - kCostEpsilon) return true;
  if (b.cost < a.cost - kCostEpsilon) return false;
  if (a.stages_split != b.stages_split) return a.stages_split < b.stages_split;
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
    for (auto it = kept_.begin(); it != kept_.end(); ++it) {
      if (same_plan(it->plan, c.plan)) {
        if (!better(c.key, it->key)) return;
        kept_.erase(it);
        break;
      }
    }
    // kept_ stays sorted: c moves up past the candidates it beats, from the back, as an
    // insertion sort would (a stable sort per offer allocated a buffer each time). With
    // one candidate kept, what placing keeps, this is exactly the old sort's result; with
    // more, two keys within kCostEpsilon of a third may be ordered otherwise.
    auto pos = kept_.end();
    while (pos != kept_.begin() && better(c.key, std::prev(pos)->key)) --pos;
    kept_.insert(pos, std::move(c));
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
  int limit_;
  std::vector<Candidate> kept_;
};

}  // namespace fabricfit::selection
