// SPDX-License-Identifier: GPL-2.0-or-later
// Traces do not record the collective pattern of a job, so a replay assigns one by a
// stated rule, printed with every result.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "placement/comm_pattern.hpp"
#include "replay/trace_reader.hpp"

namespace fabricfit {

struct PatternRule {
  CommPattern multi{PatternKind::Ring};  // multi-node jobs (single-node jobs: none)
  // This share of the multi-node jobs of at least alltoall_min_nodes hosts run all-to-all
  // (mixture of experts) instead, picked by a hash of the job id (repeatable).
  double alltoall_share = 0;
  int alltoall_min_nodes = 2;
  // Message volume a job exchanges per second of run time, in GB: cross-spine bytes of
  // a job are its per-unit spine bytes x this x its duration.
  double volume_gb_per_s = 1.0;

  [[nodiscard]] CommPattern pattern_for(const TraceJob& job) const;
  [[nodiscard]] double volume_gb(const TraceJob& job) const { return volume_gb_per_s * job.duration_s; }
  // Round-trips through parse_pattern_rule().
  [[nodiscard]] std::string to_string() const;
  // In words, for reports.
  [[nodiscard]] std::string describe() const;
};

class RuleError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// "multi=ring,alltoall=0.25,alltoall_min_nodes=4,volume=1" (keys optional, any order).
// `multi` takes any --comm-pattern value except tp/pp/dp (whose sizes depend on the job).
[[nodiscard]] PatternRule parse_pattern_rule(std::string_view text);

}  // namespace fabricfit
