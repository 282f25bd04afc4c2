// SPDX-License-Identifier: GPL-2.0-or-later
// The adaptive locality wait for a job in the controller (topology/fabricfit): from
// what Slurm knows at one evaluation (the job's time limit and eligible time, the free
// GPUs, when each busy host's jobs reach their time limits, the placement it could get
// now), whether the job should stay pending for one leaf group (for the fewest groups when
// it is wider than any), until when at most, and which hosts it expects. The rule is the replay's
// (locality_wait.hpp); the slowdown now comes from the run-time model (runtime_model.hpp): the job's traffic
// beside the running split jobs' on the fabric's real uplink capacities. docs/placement.md ("Adaptive
// locality wait in Slurm").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "placement/comm_pattern.hpp"
#include "placement/gpu_state.hpp"
#include "placement/job_request.hpp"
#include "placement/locality_index.hpp"
#include "placement/runtime/runtime_model.hpp"

namespace fabricfit {

// What the controller knows of the job and the site at one evaluation (seconds; times
// on one clock, e.g. the epoch).
struct WaitFacts {
  double now = 0;
  double eligible = 0;      // when the job became eligible: the cap counts from here
  double time_limit_s = 0;  // the predicted duration; 0 or infinite: none, never waits
  double comm_share = 0.3;  // f: the share of its run time the job communicates
  double cap_s = 0;         // the site's LocalityWaitMax; 0: never waits
  int segment_nodes = 0;    // --segment=N asked; 0: none (the group must hold its segments)
};

// Why a job does or does not wait (the words the plugin logs and shows).
enum class WaitVerdict {
  Waits,         // expected wait < gain, within the cap
  OneGroup,      // the placement now is in one leaf group already: nothing to wait for
  FewestGroups,  // wider than every group, and in as few as it can be: nothing to wait for
  NotCandidate,  // one host
  Disabled,      // cap 0
  NoTimeLimit,   // no finite time limit: no predicted duration
  NoGain,        // the split placement now runs as fast as one group would
  NoGroup,       // no leaf group is expected to hold the job (limits overrun, too few hosts)
  ReadyNow,      // a group could hold it now (the placement now was split for another reason)
  WaitTooLong,   // expected wait >= gain
  CapReached,    // waited the cap already
};
[[nodiscard]] std::string to_string(WaitVerdict verdict);

struct WaitDecision {
  WaitVerdict verdict = WaitVerdict::NotCandidate;
  bool wait = false;
  double slowdown_now = 1;     // of the placement it could get now
  double gain_s = 0;           // time limit x (slowdown now - slowdown in the target groups)
  double expected_wait_s = 0;  // until the target group is expected to hold the job
  double ready_at = 0;         // when it is expected to (absolute); 0: no group
  double until = 0;            // when the wait ends at the latest: min(ready_at, eligible + cap)
  int leaf_group = -1;         // the group it waits for (the first, when several)
  int leaf_groups = 0;         // how many: 1, or the fewest for a job wider than any
  std::vector<int> hosts;      // the hosts it expects there: reserved while it waits
};

// `placed_now`: the placement the job could get now (hosts and GPUs per host).
// `beside`: the split jobs running now, with their peak uplink demands on `bundles`: the
// job's slowdown now is its max-min fair share beside them, as the replay counts it;
// nullptr: the job alone (a lower bound).
// `host_free_at[h]`: when host h's jobs reach their time limits (<= now: free or
// unknown). `allowed[h]`: host h may ever run the job (its partition, up, not
// excluded); empty: every host. gpus: free and total GPUs per host now.
[[nodiscard]] WaitDecision decide_locality_wait(const LocalityIndex& index, const UplinkBundles& bundles,
                                                const GpuState& gpus, std::span<const double> host_free_at,
                                                std::span<const std::uint8_t> allowed,
                                                const CommPattern& pattern, int gpus_per_node,
                                                const Allocation& placed_now, const WaitFacts& facts,
                                                const BandwidthSharing* beside = nullptr);

}  // namespace fabricfit
