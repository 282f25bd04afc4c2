// SPDX-License-Identifier: GPL-2.0-or-later
// The adaptive locality wait: a multi-host job that one leaf group could hold, but that
// could only be split now, waits for a leaf group only while the run-time model says it
// gains more run time than it loses in the queue, and never past a site cap.
// gain = predicted duration x (slowdown of the placement now - slowdown in one group);
// expected wait = when enough jobs running in the target group end (their time limits).
// Pure C++ for the replay and (later) the plugin; docs/placement.md ("Adaptive locality
// wait") has the rule and worked examples.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "placement/gpu_state.hpp"
#include "placement/locality_index.hpp"

namespace fabricfit {

// What the wait takes as a job's run time: its time limit, or a prediction from its
// user's last jobs (runtime_predictor.hpp).
enum class RunEstimate { TimeLimit, History };

struct LocalityWaitSettings {
  // Never wait past this since the job was submitted (Slurm: like max_switch_wait);
  // 0: never wait.
  double cap_s = 0;
  // The replay's stand-in for a time limit: trace duration x this (the plugin uses the
  // job's time limit itself).
  double overestimate = 1.0;
  // The replay's time limits the way users set them: rounded up to the next of the
  // values people type (15 min, 30 min, 1, 2, 4, 6, 12 h, 1, 2, 3, 5, 7 days, then whole
  // weeks) rather than an exact multiple of the run time.
  bool round_limits = false;
  RunEstimate estimate = RunEstimate::TimeLimit;
};

// The replay's time limit for a job of this trace duration: x overestimate, rounded up
// to a typed value when round_limits.
[[nodiscard]] double replay_time_limit(double duration_s, const LocalityWaitSettings& settings);

// The leaf group that can hold the job soonest, when, and the hosts it would take.
struct GroupReadiness {
  int leaf_group = -1;  // -1: no group can ever hold the job
  double ready_s = std::numeric_limits<double>::infinity();
  std::vector<int> hosts;        // the hosts the job expects: reserved while it waits
  std::vector<int> leaf_groups;  // earliest_groups: every group of the set, leaf_group first
};

// `host_free_at[h]`: when host h has every GPU free again, by the time limits of the jobs
// on it (<= now for a host that has). A host counts now if it has `gpus_per_node` free
// GPUs now, else at host_free_at; a busy host past that time (its jobs overran their
// limits) has no expected time and does not count. Hosts outside `allowed` never count.
// `segment` > 0 (wait_segment): the group holds the job only once its NVLink domains hold
// nodes / segment segments, each `segment` hosts of one domain (hosts in no domain never
// count), as the job would be placed there; 0: any hosts of the group.
// O(hosts log hosts).
[[nodiscard]] GroupReadiness earliest_group(const LocalityIndex& index, const GpuState& gpus,
                                            std::span<const double> host_free_at, int nodes,
                                            int gpus_per_node, double now,
                                            std::span<const std::uint8_t> allowed = {}, int segment = 0);

// For a job wider than every leaf group: the fewest leaf groups that could ever hold it
// (by the hosts that count, as earliest_group counts them), the soonest time that many
// groups can, and the hosts it would take there, from the group with the most ready
// first (ties: the lowest index). So a wide job waits for the fewest groups, as a narrower
// one waits for one. leaf_group -1: the hosts that count never hold it. One sort of the
// groups per distinct ready time: O(hosts x groups log groups).
[[nodiscard]] GroupReadiness earliest_groups(const LocalityIndex& index, const GpuState& gpus,
                                             std::span<const double> host_free_at, int nodes,
                                             int gpus_per_node, double now,
                                             std::span<const std::uint8_t> allowed = {}, int segment = 0);

// The fewest leaf groups a job of `nodes` hosts could span, the largest groups first (1
// for a job one group holds): a placement on that many has nothing to wait for.
[[nodiscard]] int fewest_leaf_groups(const LocalityIndex& index, int nodes);

// The segment earliest_group counts for a job of `nodes` that asked --segment=`asked` (0:
// none): on a fabric of NVLink domains, what the domain rules place it in (the asked
// segment; else the whole job when one domain could hold it; else single hosts); 0 on a
// fabric without domains, and for a job placed on hosts in no domain (plain nodes beside
// the racks: `on_domains` false), which waits as on any fabric. So the locality wait waits
// for a leaf group whose domains hold the job, not for free hosts that its domain rules
// could not take.
[[nodiscard]] int wait_segment(const LocalityIndex& index, int asked, int nodes, bool on_domains = true);

struct WaitAdvice {
  bool wait = false;
  double gain_s = 0;           // run time saved by the better placement
  double expected_wait_s = 0;  // from now until the target group is expected to be ready
  double until_s = 0;          // when to ask again at the latest: ready time, or the cap
};

// predicted_s: the job's predicted uncontended run time (time limit); slowdown_now: of
// the placement it could get now; slowdown_best: of the best placement it could get by
// waiting (one leaf group: 1). Waits while expected wait < gain and waited < cap.
[[nodiscard]] WaitAdvice advise_locality_wait(double predicted_s, double slowdown_now, double slowdown_best,
                                              const GroupReadiness& target, double now, double waited_s,
                                              const LocalityWaitSettings& settings);

}  // namespace fabricfit
