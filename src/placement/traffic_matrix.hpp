// SPDX-License-Identifier: GPL-2.0-or-later
// A job's collective pattern as traffic between its node slots, per unit of message
// volume. Only traffic between different nodes is kept: inside a node it runs over
// NVLink and never reaches the fabric. docs/placement.md gives the model of each
// pattern with worked examples.
#pragma once

#include <span>
#include <vector>

#include "placement/comm_pattern.hpp"

namespace fabricfit {

// `bytes` sent from node slot `src` to node slot `dst` per unit of message volume.
struct Flow {
  int src = 0;
  int dst = 0;
  double bytes = 0;
  friend bool operator==(const Flow&, const Flow&) = default;
};

class TrafficMatrix {
 public:
  // Slots are the job's nodes in rank order; slot i holds gpus_per_slot[i] consecutive
  // ranks (one per GPU). Throws PatternError when tp x pp x dp is not the job's GPU count.
  [[nodiscard]] static TrafficMatrix build(const CommPattern& pattern, std::span<const int> gpus_per_slot);

  [[nodiscard]] int slots() const { return static_cast<int>(gpus_.size()); }
  [[nodiscard]] int ranks() const { return ranks_; }
  [[nodiscard]] std::span<const int> gpus() const { return gpus_; }
  // All-to-all is kept implicit (N^2 flows would not scale): slot i sends
  // gpus[i] x gpus[j] / ranks to every other slot j, and flows() is empty.
  [[nodiscard]] bool all_to_all() const { return all_to_all_; }
  // Sorted by (src, dst); src != dst; one entry per pair.
  [[nodiscard]] std::span<const Flow> flows() const { return flows_; }
  // Bytes between different nodes, per unit of message volume.
  [[nodiscard]] double inter_node_bytes() const { return inter_node_bytes_; }
  // Bytes slot a sends to slot b (a != b).
  [[nodiscard]] double bytes(int a, int b) const;

 private:
  std::vector<int> gpus_;
  int ranks_ = 0;
  bool all_to_all_ = false;
  std::vector<Flow> flows_;
  double inter_node_bytes_ = 0;
};

}  // namespace fabricfit
