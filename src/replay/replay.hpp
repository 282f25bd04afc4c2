// SPDX-License-Identifier: GPL-2.0-or-later
// An event-driven replay of a job trace through a placement policy, with run times from
// placement: arrivals join a FIFO queue; at every event the queue is scanned in order
// and each job that fits now starts (a job that does not fit is skipped: backfill-like
// skipping); a running job progresses at 1/slowdown of its uncontended pace, the
// slowdown coming from the bandwidth it gets on the uplinks it shares with other jobs
// (runtime_model.hpp). Every policy sees the same arrival stream. docs/placement.md.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "placement/fragmentation.hpp"
#include "placement/locality_index.hpp"
#include "placement/runtime/runtime_model.hpp"
#include "placement/selection/placement_policy.hpp"
#include "placement/waiting/locality_wait.hpp"
#include "replay/fault_plan.hpp"
#include "replay/pattern_rule.hpp"
#include "replay/trace_reader.hpp"

namespace fabricfit {

struct RuntimeModelOptions {
  bool enabled = true;  // false: every job runs its trace duration (the old replay)
  // A multi-host job's communication share when the trace has none: one of these, drawn
  // per job from a hash of its id and the seed (the same under every policy).
  std::vector<double> comm_shares{0.1, 0.3, 0.5};
  DemandMode demand = DemandMode::TimeAveraged;
  UplinkRouting routing = UplinkRouting::Ecmp;
  // On a fabric with NVLink domains: a multi-host job that one domain could hold but is
  // spread over several moves its collectives over InfiniBand at 1/R of NVLink's per-GPU
  // bandwidth (NVL72: about 1.8 TB/s inside, 50 GB/s out, R = 36), so its communication
  // takes R times as long: s gains f x (R - 1). A wider job's duration already holds its
  // InfiniBand edges (a ring's slowest hop sets its pace however many domains it spans).
  double domain_cliff = 36;
  [[nodiscard]] std::string describe() const;
};

struct ReplayOptions {
  int node_gpus = 8;  // every host of the fabric
  PatternRule rule;
  // tree-switches (a fixed locality wait) is asked again when this much time has passed
  // since a job's arrival, even if nothing else happens.
  double retry_after_s = 0;
  RuntimeModelOptions model;
  std::uint64_t seed = 1;  // communication-share draws
  // fabricfit's adaptive locality wait (cap 0: off).
  LocalityWaitSettings wait;
  // Cables per rail for static routing (optional; see UplinkBundles).
  const Fabric* fabric = nullptr;
  // Fabric faults (none by default); fabricfit keeps multi-host jobs off what a health
  // sweep has seen (health_avoidance.hpp), the other policies are blind to them.
  FaultRates faults;
  // These episodes instead of drawing them from faults' rates (faults' other settings hold).
  std::vector<FaultEpisode> fault_episodes;
  // A host a health sweep has seen failing (its HCA link or its NVLink) is drained for every
  // policy until the sweeps see it healthy again, as a site's health check does (NHC, or
  // HealthDrain=yes): `replay --drain-failing`. Uplinks drain nothing.
  bool drain_failing = false;
  // The queue's first job that cannot start reserves the hosts it would get when enough
  // running jobs have ended by their limits, as Slurm's backfill does (EASY backfill); false:
  // a job that does not fit is skipped and later jobs may take anything (`replay --backfill`).
  bool reserve_first_blocked = false;
  // Keep each job's run (ReplayResult::runs): `replay --per-job`.
  bool keep_runs = false;
  // Jobs wider than the largest NVLink domain whose node count this divides ask
  // --segment=N (topology/block's option); 0: no job asks it.
  int segment_nodes = 0;
};

// What the faults did in one run.
struct FaultFigures {
  int episodes = 0;             // flapping and sub-healthy episodes that began before the last job ended
  int jobs_failed = 0;          // job runs cut by a link drop (a job can fail more than once)
  double gpu_hours_redone = 0;  // GPUs x run time since the failed runs' last checkpoints
  // GPU-hours of this run less those of the same policy and seed with no faults
  // (replay_policies fills it: it runs the healthy twin).
  double gpu_hours_lost = 0;
  // fabricfit's placements (health_avoidance.hpp): off unhealthy hosts or uplinks it would
  // otherwise have used; across a degraded part, nothing else fitting; not made, only
  // placements across a failing part fitting.
  int kept_off = 0;
  int took_degraded = 0;
  int waited_for_healthy = 0;
};

// One job's run, as the replay placed it: the hosts of its last run; after a fault, start_s
// is its last start less the time its cut runs took (end - start counts every run).
struct JobRun {
  int job = 0;  // index in the replayed stream
  double start_s = 0;
  double end_s = 0;
  std::vector<int> hosts;  // rank order
  // Its run alone on the fabric as given: on the hosts fabricfit gives it on an empty
  // cluster, with no other job's traffic and no fault (a reference for what placement can
  // save it).
  double alone_s = 0;
};

// Job classes by width: one host; several hosts that one leaf group could hold; wider.
enum class JobWidth { All = 0, OneHost = 1, WithinGroup = 2, Wider = 3 };
inline constexpr std::array<const char*, 4> kJobClassNames{"all", "one_host", "within_group", "wider"};

struct ClassMetrics {
  int jobs = 0;
  double jct_mean_s = 0;  // completion time: wait + run
  double jct_p95_s = 0;
  double gpu_hours = 0;  // GPUs x modelled run time
  double wait_gpu_weighted_s = 0;
  double wait_p95_s = 0;
  double bounded_slowdown_mean = 0;  // max(1, jct / max(uncontended run, 10 s))
};

struct ReplayResult {
  std::string policy;
  std::uint64_t seed = 1;
  int jobs = 0;               // placed (and so completed)
  int unplaceable = 0;        // wider than the fabric: never placed
  double cross_spine_gb = 0;  // sum over jobs of spine bytes per unit x the rule's volume
  double cross_core_gb = 0;
  int one_group_jobs = 0;  // multi-host jobs small enough for one leaf group...
  int split_jobs = 0;      // ...of which placed over more than one
  double split_share = 0;
  int domain_jobs = 0;        // multi-host jobs one NVLink domain could hold...
  int domain_split_jobs = 0;  // ...of which placed over more than one (the cliff)
  double domain_split_share = 0;
  // Fragmentation in domain terms (topology/block's objective), time-weighted: domains
  // wholly free, and half-domain jobs of whole hosts the free hosts held
  // (placement/domain_fragmentation.hpp).
  double domain_whole_free_mean = 0;
  double domain_half_jobs_mean = 0;
  // Of the wholly free hosts in domains, the share in wholly free domains (time-weighted:
  // the ratio of the two integrals; 1 while none is free): fragmentation whatever the load.
  double domain_whole_free_share = 1;
  // The same two integrals by how many hosts in domains were wholly free then, in buckets of
  // `share_bucket_hosts` (the largest domain's hosts): bucket b holds the time spent with
  // b x that many to one less than (b+1) x that many free. A policy that runs more spends its
  // time at fewer free hosts, where fewer domains can be whole whatever the shape; these
  // compare two policies' shapes at equal free capacity (docs/placement.md, NVL72 replay);
  // with them the half-domain jobs the free hosts held (block's other count).
  int share_bucket_hosts = 0;
  std::vector<double> share_bucket_s, share_bucket_free_hosts, share_bucket_domain_hosts,
      share_bucket_half_jobs;
  double frag_mean = 0;  // time-weighted over the replay (a diagnostic)
  double wait_mean_s = 0;
  double wait_p95_s = 0;
  double wait_mean_multi_s = 0;  // multi-host jobs only
  double makespan_s = 0;         // first arrival to last departure
  double gpu_utilisation = 0;    // busy GPU-seconds / (GPUs x makespan)
  long decisions = 0;            // place() calls
  double decision_us_mean = 0;
  // What users feel.
  std::array<ClassMetrics, 4> classes{};  // indexed by JobWidth
  // On a fabric with NVLink domains: the jobs wider than the largest domain, which must
  // span several (where the fabric above the domains decides; issue 30's target class).
  ClassMetrics multi_domain;
  // The multi-host jobs one domain holds (2 hosts up to the largest domain): those a wide
  // job that starts sooner may keep waiting.
  ClassMetrics in_domain;
  // GPU-hours left idle while queued jobs that fit the free GPUs by count could not start:
  // the integral of min(free GPUs, GPUs of those jobs).
  double idle_while_fit_gpu_hours = 0;
  double uplink_over_capacity_s = 0;  // bundle-seconds with demand above capacity
  double slowed_jobs_share = 0;       // of the jobs, slowed by more than 1 %
  int locality_waits = 0;             // jobs that waited for a leaf group (adaptive wait)
  FaultFigures faults;
  std::vector<JobRun> runs;  // with ReplayOptions::keep_runs: every job that ran, in stream order
};

[[nodiscard]] ReplayResult replay_trace(const LocalityIndex& index, const std::vector<TraceJob>& jobs,
                                        PlacementPolicy& policy, const FragModel& frag,
                                        const ReplayOptions& options);

// Each policy for each seed (seed, seed+1, ...) on its own copy of the cluster, two at a
// time; results[policy][seed].
[[nodiscard]] std::vector<std::vector<ReplayResult>> replay_policies(
    const LocalityIndex& index, const std::vector<TraceJob>& jobs, const std::vector<std::string>& policies,
    const FragModel& frag, const ReplayOptions& options, const PolicyOptions& policy_options = {},
    int seeds = 1);

// fabricfit's adaptive locality wait as the shipped plugin runs it when fabricfit.conf says
// nothing (SiteConfig's defaults: LocalityWaitMax, LocalityWaitEstimate): what `fabricfit
// replay` plays unless told otherwise, so that a replay with default options is the plugin a
// site installs. (ReplayOptions' own default, a cap of 0, keeps library callers without it.)
[[nodiscard]] LocalityWaitSettings plugin_default_wait();

// Whether a job asks --segment=`segment` in the replay (ReplayOptions::segment_nodes): it is
// wider than the largest NVLink domain (`largest_domain` hosts) and `segment` divides its
// node count, as a site would tell its users to ask for jobs that span domains.
[[nodiscard]] bool asks_segment(const TraceJob& job, int segment, int largest_domain);

// A multi-host job's communication share: the trace's, else a draw over `shares` by a
// hash of its id and the seed; 0 for a one-host job.
[[nodiscard]] double comm_share_of(const TraceJob& job, const std::vector<double>& shares,
                                   std::uint64_t seed);
// The share of a job's time its GPUs spend talking to each other, network or NVLink: as
// comm_share_of for a multi-host job, and drawn the same way for a one-host job of several
// GPUs (on an NVL72 tray they talk through the rack's NVSwitch trays); 0 for one GPU.
[[nodiscard]] double gpu_comm_share_of(const TraceJob& job, const std::vector<double>& shares,
                                       std::uint64_t seed);

[[nodiscard]] JobWidth job_class_of(const TraceJob& job, int largest_leaf_group);

// The workload's job sizes, weighted by GPU demand (jobs x GPUs): what fragmentation is
// measured against.
[[nodiscard]] WorkloadMix workload_mix_of(const std::vector<TraceJob>& jobs);

// Sum of GPUs x duration over (arrival span x cluster GPUs).
[[nodiscard]] double offered_load(const std::vector<TraceJob>& jobs, long cluster_gpus);

// Arrival times divided by `factor` (durations kept): a factor of 2 doubles the offered load.
[[nodiscard]] std::vector<TraceJob> compress_arrivals(std::vector<TraceJob> jobs, double factor);

}  // namespace fabricfit
