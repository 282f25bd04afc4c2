// SPDX-License-Identifier: GPL-2.0-or-later
// The collective communication shape of a job, as users write it in --comm-pattern.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace fabricfit {

enum class PatternKind { Ring, Tree, AllToAll, None, Parallel };

// A parsed pattern. For PatternKind::Parallel the tp/pp/dp group sizes follow the
// Megatron layout (tensor-parallel ranks innermost); for the other kinds they are 1.
struct CommPattern {
  PatternKind kind = PatternKind::Ring;
  int tp = 1;
  int pp = 1;
  int dp = 1;

  // The canonical spelling, which parse_comm_pattern() accepts back unchanged.
  [[nodiscard]] std::string to_string() const;
  friend bool operator==(const CommPattern&, const CommPattern&) = default;
};

class PatternError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Accepts ring, tree, alltoall, none or tp=T,pp=P,dp=D (any order, each key at most
// once, an omitted key meaning 1). Throws PatternError with a message fit for users.
[[nodiscard]] CommPattern parse_comm_pattern(std::string_view text);

// A pattern from its parts, as a C caller carries it: checked as parse_comm_pattern checks
// the text (a known kind; for Parallel, group sizes it would accept). Throws PatternError.
[[nodiscard]] CommPattern make_comm_pattern(int kind, long long tp, long long pp, long long dp);

// The pattern a job is placed and described by: what it asked for; otherwise, as a
// single-node job has no inter-node traffic, `none` for one node and the site default
// for more.
[[nodiscard]] CommPattern effective_pattern(const CommPattern* requested, unsigned max_nodes,
                                            const CommPattern& site_default);

}  // namespace fabricfit
