// SPDX-License-Identifier: GPL-2.0-or-later
// fabricfit's placement: the fewest leaf groups a best fit by leaf could use, then, among
// the ways to fill them, the one with the lowest cost (ScoreWeights): cross-spine and
// cross-core traffic, the health of the uplinks that carry it, and the fragmentation it
// leaves behind. docs/placement.md describes the search.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "placement/placement_score.hpp"
#include "placement/selection/placement_policy.hpp"

namespace fabricfit {

struct ScoredAllocation {
  Allocation allocation;
  PlacementScore score;
};

struct Decision {
  ScoredAllocation chosen;
  std::vector<ScoredAllocation> alternatives;  // the runners-up, best first (for explain)
  // Set when the choice was steered beside running traffic (a split job, PlacementContext
  // has it): the max-min share of its uplinks the chosen hosts leave it, 1 = all it asks.
  std::optional<double> uplink_share;
};

class FabricfitSelector final : public PlacementPolicy {
 public:
  // No fixed locality wait: whether a job waits for a better placement is the adaptive
  // wait's call (locality_wait.hpp), made by the caller from the run-time model.
  explicit FabricfitSelector(ScoreWeights weights = {}) : weights_(weights) {}
  [[nodiscard]] std::string name() const override { return "fabricfit"; }
  [[nodiscard]] std::optional<Allocation> place(const PlacementContext& ctx,
                                                const JobRequest& request) override;
  // What a decision's scores hold: everything (explain, the CLI), or the traffic part only
  // (frag_* left 0) for a caller that places and never reads the fragmentation figures.
  enum class ScoreDetail { Full, Traffic };
  // The choice with its score, and up to `alternatives` runners-up with theirs. On a fabric
  // with NVLink domains (docs/placement.md, "NVLink domains"): a job that fits a domain is
  // placed inside one or waits, and --segment=N puts every N nodes inside one domain.
  [[nodiscard]] std::optional<Decision> decide(const PlacementContext& ctx, const JobRequest& request,
                                               int alternatives = 0, ScoreDetail detail = ScoreDetail::Full);

  // Buffers reused across decisions, so that a decision allocates little.
  struct Scratch {
    std::vector<int> all_hist;       // per leaf group x free GPUs: hosts
    std::vector<int> elig_hist;      // the same, eligible hosts only
    std::vector<int> eligible;       // per leaf group
    std::vector<int> whole_free;     // per leaf group: hosts with every GPU free
    std::vector<double> before;      // per leaf group: unusable GPUs now (NaN: not computed yet)
    std::vector<double> full_delta;  // per leaf group: change if all its eligible hosts are taken
    std::vector<char> in_set;
    std::vector<int> tmp_hist;
    std::vector<int> at_least;
    std::vector<int> touched;               // leaf groups an allocation touches (score)
    std::vector<std::pair<int, int>> pool;  // (free GPUs, host) of a leaf group (realise)
    std::optional<TrafficRouter> router;    // its buffers, for the index it was made for
  };

 private:
  // Over leaf groups, blind to NVLink domains (a fabric without them, or inside one).
  std::optional<Decision> decide_leaf_groups(const PlacementContext& ctx, const JobRequest& request,
                                             int alternatives, ScoreDetail detail);
  // domain_selection.cpp: on a fabric with NVLink domains, segments inside domains.
  std::optional<Decision> decide_domains(const PlacementContext& ctx, const JobRequest& request,
                                         int alternatives, ScoreDetail detail);
  std::optional<Decision> decide_segments(const PlacementContext& ctx, const JobRequest& request,
                                          const JobShape& shape, int segment, int alternatives,
                                          ScoreDetail detail);
  ScoreWeights weights_;
  Scratch scratch_;
};

}  // namespace fabricfit
