// SPDX-License-Identifier: GPL-2.0-or-later
// The running cluster as Slurm reports it in JSON (`scontrol show nodes --json`,
// `scontrol show jobs --json`, Slurm's data_parser output): what explain and frag --live
// need of nodes and jobs, as value types.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "placement/comm_pattern.hpp"
#include "placement/gpu_state.hpp"
#include "placement/job_request.hpp"
#include "placement/locality_index.hpp"

namespace fabricfit::cli {

struct SlurmNode {
  std::string name;
  int gpus = 0;        // from "gres" ("gpu:8", "gpu:h100:8(S:0-1)")
  int gpus_used = 0;   // from "gres_used" ("gpu:4(IDX:0-3)")
  bool usable = true;  // not down, drained, failing or not responding
  std::string state;   // Slurm's state flags joined by '+'
  std::string reason;  // why it is down or drained ("" when none)
};

struct SlurmJob {
  std::uint64_t id = 0;
  // An array task's job: Slurm names it ARRAYJOBID_TASKID (24_0), its own id (25) aside.
  std::uint64_t array_job_id = 0;              // 0: not an array task
  std::optional<std::uint32_t> array_task_id;  // unset for a job that is not one task
  std::string state;                           // RUNNING, PENDING, ... (first state flag)
  std::string reason;                          // state_reason: Resources, Priority, ...
  std::string nodes;                           // allocated nodes (hostlist), "" while pending
  std::string required_nodes;
  std::string scheduled_nodes;  // backfill's expected nodes for a pending job
  std::string admin_comment;
  std::string placement_record;  // fabricfit's segment of admin_comment ("" if none)
  int node_count = 0;
  int gpus_per_node = 0;          // from tres_per_node "gres/gpu:8"
  int total_gpus = 0;             // from tres_per_job, or allocated TRES
  std::vector<int> gpus_on_node;  // running: per allocated node, from gres_detail
  bool exclusive = false;
  int segment_size = 0;         // --segment; 0: none (or 24.11, whose JSON does not say)
  std::int64_t start_time = 0;  // unix seconds
  std::int64_t end_time = 0;    // unix seconds; 0 while it runs (or has not started)
  std::int64_t submit_time = 0;
  bool from_accounting = false;  // read from sacct (slurmdbd), not from slurmctld
};

// How Slurm names the job to users: "24_0" for task 0 of array job 24, else its id.
[[nodiscard]] std::string job_label(const SlurmJob& job);

class SlurmError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses Slurm's JSON output. Throws SlurmError naming `origin` for text that is not.
[[nodiscard]] std::vector<SlurmNode> parse_slurm_nodes(std::string_view json, const std::string& origin);
[[nodiscard]] std::vector<SlurmJob> parse_slurm_jobs(std::string_view json, const std::string& origin);

// The cluster's name Slurm's JSON output carries in meta.slurm.cluster (slurm.conf's
// ClusterName); "" when it has none or the text is not JSON.
[[nodiscard]] std::string slurm_cluster_name(std::string_view json);

// GPUs in a gres string: "gpu:8", "gpu:h100:4(S:0),shard:2", "gpu:0(IDX:N/A)".
[[nodiscard]] int gres_gpus(std::string_view gres);

// Finished jobs as `sacct -j ID --json` reports them (slurmdbd's records: AdminComment under
// comment.administrator, GPUs under tres.allocated).
[[nodiscard]] std::vector<SlurmJob> parse_sacct_jobs(std::string_view json, const std::string& origin);

// Runs `scontrol ARGS --json` (SCONTROL names another binary) and returns its output;
// throws SlurmError with scontrol's message when it fails.
[[nodiscard]] std::string scontrol_json(const std::vector<std::string>& args);
// Runs `scontrol ARGS` (an update: no output wanted); throws SlurmError with scontrol's
// message when it fails.
void scontrol_update(const std::vector<std::string>& args);
// Runs `PROGRAM ARGS --json` the same way.
[[nodiscard]] std::string run_json(const std::string& program, const std::vector<std::string>& args);

// What slurmctld says of its snapshot: the `Snapshot="..."` of `scontrol show topology`
// (topology/fabricfit), or nullopt when the text has none (another topology plugin).
[[nodiscard]] std::optional<std::string> slurmctld_snapshot_status(std::string_view show_topology);
// True for the status of a snapshot file that loaded ("loaded FILE (...)"); false when
// slurmctld reports the file missing or bad (it then places with its last good copy or the
// snapshot already loaded, as every node's tasks use their own last good copy).
[[nodiscard]] bool snapshot_status_ok(std::string_view status);
// slurmctld_snapshot_status of a file of `scontrol show topology` output, or ("") of
// scontrol's (SCONTROL names another binary); nullopt when scontrol fails.
[[nodiscard]] std::optional<std::string> read_slurmctld_snapshot_status(const std::string& file);

// The source of --nodes-json / --jobs-json: a file, or "" for scontrol. A job slurmctld
// no longer knows (purged MinJobAge after its end) is looked up with sacct (SACCT names
// another binary), where slurmdbd keeps job history.
// With `cluster`, also the cluster's name from the output's meta.slurm.cluster ("" if none).
[[nodiscard]] std::vector<SlurmNode> read_nodes(const std::string& file, std::string* cluster = nullptr);
[[nodiscard]] std::vector<SlurmJob> read_jobs(const std::string& file, const std::string& job_id = "");

// Free and total GPUs per fabric host from Slurm's nodes: a host Slurm does not list, or
// one that is down or drained, has none free. `missing` gets the Slurm nodes the fabric
// lacks.
[[nodiscard]] GpuState gpu_state_of(const LocalityIndex& index, const std::vector<SlurmNode>& nodes,
                                    std::vector<std::string>* missing = nullptr);

// The pattern a job's placement record (its AdminComment) names, if one that parses.
[[nodiscard]] std::optional<CommPattern> recorded_pattern(const SlurmJob& job);

// The fabric hosts a job holds and its GPUs on each, as its record says: per node as
// allocated, else as asked per node, else its total spread evenly. nullopt when one of its
// nodes is not a fabric host (its name in *missing, when given).
[[nodiscard]] std::optional<Allocation> allocation_of(const LocalityIndex& index, const SlurmJob& job,
                                                      std::string* missing = nullptr);

}  // namespace fabricfit::cli
