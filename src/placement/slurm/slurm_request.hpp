// SPDX-License-Identifier: GPL-2.0-or-later
// What a Slurm job's request means to fabricfit: the facts the topology plugin reads from
// a job record (no Slurm type here) turned into a JobRequest fabricfit can place, or the
// reason it leaves the job to Slurm's own selection. Every request shape sbatch accepts
// ends up in exactly one of the two, so a job is never placed by a reading of its
// request that Slurm would not share.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "placement/comm_pattern.hpp"
#include "placement/job_request.hpp"

namespace fabricfit {

struct SlurmJobFacts {
  unsigned gpus_per_node = 0;    // --gpus-per-node (tres_per_node), 0: none
  unsigned gpus_per_job = 0;     // --gpus (tres_per_job)
  unsigned gpus_per_task = 0;    // --gpus-per-task (tres_per_task)
  bool gpus_per_socket = false;  // --gpus-per-socket: a per-socket layout fabricfit cannot see
  unsigned min_nodes = 1;        // this evaluation's minimum (Slurm's, after its own limits)
  unsigned max_nodes = 0;        // this evaluation's maximum (a large number when -N gave none)
  unsigned req_nodes = 0;        // the count Slurm aims for: -N's maximum when given, else the minimum
  unsigned num_tasks = 0;        // -n, 0 when not given
  unsigned ntasks_per_node = 0;  // --ntasks-per-node, 0 when not given
  bool whole_node = false;       // --exclusive
  bool required_nodes = false;   // -w
  bool contiguous = false;       // --contiguous
  bool spread_job = false;       // --spread-job
  bool exclusive_topo = false;   // --exclusive=topo or ExclusiveTopo=YES: whole NVLink domains
  unsigned segment_size = 0;     // --segment: nodes that lie in one NVLink domain, 0: none
};

// Why a job goes to Slurm's selection: a short word for logs ("no-gpus", "contiguous", ...).
struct Decline {
  std::string reason;
};

// The request fabricfit places for a job, or why it does not.
[[nodiscard]] std::variant<JobRequest, Decline> request_of_slurm_job(const SlurmJobFacts& job);

// What a running job on `nodes` nodes loads the uplinks with: what it asked for on the
// nodes it got, whatever placed it. The shapes fabricfit leaves to Slurm's selection (-w,
// --contiguous, --spread-job, --exclusive=topo) still carry traffic, so they count; a job
// without GPUs, or with GPUs per socket (a layout fabricfit cannot see), does not.
[[nodiscard]] std::variant<JobRequest, Decline> load_of_running_job(SlurmJobFacts job, unsigned nodes);

// The pattern slurmctld places, prices and records a job with: its --comm-pattern as the
// SPANK plugin recorded it (`requested`, empty for none) by effective_pattern's rule, or
// `ring` when that text does not parse (the SPANK plugin refuses such a value, but a job
// record from elsewhere may hold one, and a job is never refused for it here).
[[nodiscard]] CommPattern job_pattern(std::string_view requested, unsigned max_nodes,
                                      const CommPattern& site_default) noexcept;

// --switches=N@T: whether a placement that spans `leaf_groups` leaf groups may start now.
// It may when it uses at most N, when the job has waited its T (Slurm's wait4switch) or
// when no limit was asked for (N = 0).
[[nodiscard]] bool switches_allow(unsigned switches, unsigned leaf_groups, long waited_s, long wait_limit_s);

// A node's GPU count from the counts Slurm has at hand: `reported` (the GRES state's
// configured count, which is 0 or a NO_VAL sentinel before the node's configuration is
// reconciled, e.g. right after a restart from saved state) if plausible, else what
// slurm.conf's Gres= string for the node says (`gpu:8`, `gpu:h100:4,gpu:a100:4`).
// nullopt when neither is usable.
[[nodiscard]] std::optional<int> node_gpu_count(unsigned long long reported, const char* config_gres);

}  // namespace fabricfit
