// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/traffic_matrix.hpp"

#include <fmt/format.h>
#include <algorithm>

namespace fabricfit {
namespace {

// Rank -> slot, ranks laid out slot by slot.
std::vector<int> slot_of_rank(std::span<const int> gpus) {
  std::vector<int> slot;
  for (int s = 0; s < static_cast<int>(gpus.size()); ++s) slot.insert(slot.end(), gpus[s], s);
  return slot;
}

// Collects rank-to-rank sends and keeps the inter-node part, summed per slot pair.
class FlowCollector {
 public:
  explicit FlowCollector(std::span<const int> gpus) : slot_(slot_of_rank(gpus)) {}
  void rank_send(int from, int to, double bytes) { slot_send(slot_[from], slot_[to], bytes); }
  void slot_send(int from, int to, double bytes) {
    if (from != to && bytes > 0) raw_.push_back(Flow{from, to, bytes});
  }
  std::vector<Flow> take() {
    std::sort(raw_.begin(), raw_.end(),
              [](const Flow& a, const Flow& b) { return a.src != b.src ? a.src < b.src : a.dst < b.dst; });
    std::vector<Flow> merged;
    for (const Flow& f : raw_) {
      if (!merged.empty() && merged.back().src == f.src && merged.back().dst == f.dst) {
        merged.back().bytes += f.bytes;
      } else {
        merged.push_back(f);
      }
    }
    return merged;
  }

 private:
  std::vector<int> slot_;
  std::vector<Flow> raw_;
};

// Ring all-reduce over `members` (ranks, in ring order): reduce-scatter then all-gather,
// each rank sends 2(k-1)/k of the message to the next.
void ring_allreduce(FlowCollector& out, std::span<const int> members) {
  const int k = static_cast<int>(members.size());
  if (k < 2) return;
  const double per_hop = 2.0 * (k - 1) / k;
  for (int i = 0; i < k; ++i) out.rank_send(members[i], members[(i + 1) % k], per_hop);
}

// Parent of `slot` in NCCL's binary tree over n slots: the tree is in-order (slot r's
// subtree is a contiguous range of slots), rooted at slot 0, so a contiguous placement
// keeps subtrees inside leaf groups. -1 for the root.
int btree_parent(int slot, int n) {
  if (slot == 0) return -1;
  const int bit = slot & -slot;
  int up = (slot ^ bit) | (bit << 1);
  if (up >= n) up = slot ^ bit;
  return up;
}

// Double binary tree: two trees each reduce and broadcast half of the message, so every
// tree edge carries 1/2 up and 1/2 down. The second tree mirrors the first (even n) or
// shifts it by one slot (odd n), so that a slot that is a leaf in one is inner in the other.
void double_binary_tree(FlowCollector& out, int n) {
  if (n < 2) return;
  for (int tree = 0; tree < 2; ++tree) {
    const auto place = [&](int r) {
      if (tree == 0) return r;
      return n % 2 == 0 ? n - 1 - r : (r + 1) % n;
    };
    for (int r = 1; r < n; ++r) {
      const int parent = btree_parent(r, n);
      out.slot_send(place(r), place(parent), 0.5);
      out.slot_send(place(parent), place(r), 0.5);
    }
  }
}

// Megatron rank layout: rank = t + T (d + D p), tensor-parallel innermost, then data
// parallel, pipeline outermost. Each group runs one collective of unit volume: tensor
// and data parallel groups a ring all-reduce, consecutive pipeline stages send the unit
// forward (activations) and back (gradients).
void megatron(FlowCollector& out, const CommPattern& p) {
  const int T = p.tp, P = p.pp, D = p.dp;
  const auto rank = [&](int t, int d, int s) { return t + T * (d + D * s); };
  std::vector<int> group;
  for (int s = 0; s < P; ++s) {
    for (int d = 0; d < D; ++d) {
      group.clear();
      for (int t = 0; t < T; ++t) group.push_back(rank(t, d, s));
      ring_allreduce(out, group);
    }
  }
  for (int s = 0; s < P; ++s) {
    for (int t = 0; t < T; ++t) {
      group.clear();
      for (int d = 0; d < D; ++d) group.push_back(rank(t, d, s));
      ring_allreduce(out, group);
    }
  }
  for (int s = 0; s + 1 < P; ++s) {
    for (int d = 0; d < D; ++d) {
      for (int t = 0; t < T; ++t) {
        out.rank_send(rank(t, d, s), rank(t, d, s + 1), 1.0);
        out.rank_send(rank(t, d, s + 1), rank(t, d, s), 1.0);
      }
    }
  }
}

}  // namespace

TrafficMatrix TrafficMatrix::build(const CommPattern& pattern, std::span<const int> gpus_per_slot) {
  TrafficMatrix m;
  m.gpus_.assign(gpus_per_slot.begin(), gpus_per_slot.end());
  for (int g : m.gpus_) m.ranks_ += g;
  const int n = m.slots();
  const int R = m.ranks_;
  if (n < 2 || pattern.kind == PatternKind::None) return m;

  FlowCollector out(m.gpus_);
  switch (pattern.kind) {
    case PatternKind::Ring: {
      // One ring through all ranks, node by node: it crosses between nodes once per slot.
      const double per_hop = 2.0 * (R - 1) / R;
      for (int s = 0; s < n; ++s) out.slot_send(s, (s + 1) % n, per_hop);
      break;
    }
    case PatternKind::Tree: double_binary_tree(out, n); break;
    case PatternKind::AllToAll: {
      m.all_to_all_ = true;
      double inside = 0;
      for (int g : m.gpus_) inside += static_cast<double>(g) * g;
      // Every rank sends 1/R of the unit to every rank; what stays on a node is g^2/R.
      m.inter_node_bytes_ = (static_cast<double>(R) * R - inside) / R;
      return m;
    }
    case PatternKind::Parallel:
      if (static_cast<long>(pattern.tp) * pattern.pp * pattern.dp != R) {
        throw PatternError(fmt::format("{} needs tp x pp x dp = {} GPUs, but the job has {}",
                                       pattern.to_string(),
                                       static_cast<long>(pattern.tp) * pattern.pp * pattern.dp, R));
      }
      megatron(out, pattern);
      break;
    case PatternKind::None: break;
  }
  m.flows_ = out.take();
  for (const Flow& f : m.flows_) m.inter_node_bytes_ += f.bytes;
  return m;
}

double TrafficMatrix::bytes(int a, int b) const {
  if (a == b) return 0;
  if (all_to_all_) return static_cast<double>(gpus_[a]) * gpus_[b] / ranks_;
  const auto it = std::lower_bound(
      flows_.begin(), flows_.end(), Flow{a, b, 0},
      [](const Flow& x, const Flow& y) { return x.src != y.src ? x.src < y.src : x.dst < y.dst; });
  return it != flows_.end() && it->src == a && it->dst == b ? it->bytes : 0.0;
}

}  // namespace fabricfit
