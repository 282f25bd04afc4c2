// SPDX-License-Identifier: GPL-2.0-or-later
// `fabricfit replay SNAPSHOT --trace FILE --format F --policies ...`: a job trace through
// the placement policies on the same arrival stream (docs/placement.md, "Replay").
#include <fmt/format.h>
#include <algorithm>
#include <memory>

#include "cli/commands.hpp"
#include "cli/placement_input.hpp"
#include "common/atomic_file.hpp"
#include "replay/replay.hpp"
#include "replay/replay_report.hpp"

namespace fabricfit::cli {
namespace {

struct ReplayCliOptions {
  std::string source;
  std::string trace;
  std::string format;
  std::vector<std::string> policies{"fabricfit", "tree", "firstfit"};
  std::string rule;
  std::string mix;
  std::string svg;
  std::string jobs_csv;
  std::string per_job;
  std::string backfill = "skip";
  bool drain_failing = false;
  std::string weights;
  std::vector<int> block_sizes;  // block policies: Slurm's BlockSizes (empty: its default)
  int gpus_per_node = 8;
  int segment = 0;
  double target_load = 0;
  double locality_wait_s = 0;
  // fabricfit's adaptive wait as the shipped plugin runs it by default (LocalityWaitMax=3600,
  // LocalityWaitEstimate=limit): a replay with default options is what a site installs.
  double wait_cap_s = plugin_default_wait().cap_s;
  double overestimate = 1.0;
  std::string limits = "exact";
  std::string estimate = plugin_default_wait().estimate == RunEstimate::History ? "history" : "limit";
  std::vector<double> comm_shares{0.1, 0.3, 0.5};
  std::string demand = "time-averaged";
  std::string routing = "ecmp";
  std::string faults;
  bool no_model = false;
  int seeds = 1;
  int max_jobs = 0;
  std::uint64_t seed = 1;
  bool json = false;
};

// The job stream as replayed (after --max-jobs and --target-load), with what the
// run-time model gives each job (first seed): what the lab stream submits
// (bench/lab_stream.sh), so that the lab runs the replay's jobs.
std::string jobs_csv(const std::vector<TraceJob>& jobs, const ReplayOptions& options) {
  std::string out = "id,submit_s,duration_s,nodes,gpus_per_node,comm_share,pattern\n";
  for (const TraceJob& job : jobs) {
    const double f =
        options.model.enabled ? comm_share_of(job, options.model.comm_shares, options.seed) : 0.0;
    const std::string pattern = job.nodes >= 2 ? options.rule.pattern_for(job).to_string() : "none";
    out += fmt::format("{},{:.3f},{:.3f},{},{},{:g},\"{}\"\n", job.id, job.submit_s, job.duration_s,
                       job.nodes, job.gpus_per_node, f, pattern);
  }
  return out;
}

// Every job's run under each policy (first seed): where it ran and how long, to read a
// comparison job by job (docs/placement.md, "Lab stream on NVLink domains").
std::string per_job_csv(const ReplayReport& report, const std::vector<TraceJob>& jobs,
                        const LocalityIndex& index, const ReplayOptions& options) {
  std::string out =
      "policy,seed,id,nodes,gpus_per_node,pattern,comm_share,submit_s,start_s,end_s,wait_s,run_s,duration_s,"
      "run_x,leaf_groups,domains,alone_s\n";
  for (const auto& policy_runs : report.results) {
    const ReplayResult& r = policy_runs.front();
    for (const JobRun& run : r.runs) {
      const TraceJob& job = jobs[static_cast<std::size_t>(run.job)];
      std::vector<int> groups;
      std::vector<std::pair<int, int>> domains;  // (domain, hosts)
      for (const int h : run.hosts) {
        groups.push_back(index.leaf_group_of(h));
        const int d = index.domain_of(h).value_or(-1);
        auto it = std::find_if(domains.begin(), domains.end(), [&](const auto& e) { return e.first == d; });
        if (it == domains.end()) {
          domains.emplace_back(d, 1);
        } else {
          ++it->second;
        }
      }
      std::sort(groups.begin(), groups.end());
      groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
      std::sort(domains.begin(), domains.end());
      std::string where;
      if (index.domain_count() > 0) {
        for (const auto& [d, n] : domains) {
          where +=
              fmt::format("{}{}:{}", where.empty() ? "" : " ", d >= 0 ? index.domain_name(d) : "(none)", n);
        }
      }
      const double f = job.nodes >= 2 && options.model.enabled
                           ? comm_share_of(job, options.model.comm_shares, r.seed)
                           : 0.0;
      const std::string pattern = job.nodes >= 2 ? options.rule.pattern_for(job).to_string() : "none";
      const double run_s = run.end_s - run.start_s;
      out += fmt::format(
          "{},{},{},{},{},\"{}\",{:g},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.4f},{},\"{}\",{:.3f}\n",
          r.policy, r.seed, job.id, job.nodes, job.gpus_per_node, pattern, f, job.submit_s, run.start_s,
          run.end_s, run.start_s - job.submit_s, run_s, job.duration_s,
          job.duration_s > 0 ? run_s / job.duration_s : 0.0, groups.size(), where, run.alone_s);
    }
  }
  return out;
}

int run_replay(const ReplayCliOptions& opt) {
  const auto format = parse_trace_format(opt.format);
  if (!format) throw CLI::ValidationError("--format", "must be elasticflow, kalos or openb");
  PolicyOptions policy_options;
  policy_options.block_sizes = opt.block_sizes;
  // A typo (or BlockSizes Slurm would refuse) fails before the long part.
  for (const auto& p : opt.policies) (void)make_policy(p, policy_options);
  if (opt.demand != "time-averaged" && opt.demand != "peak") {
    throw CLI::ValidationError("--demand", "must be time-averaged or peak");
  }
  if (opt.routing != "ecmp" && opt.routing != "static") {
    throw CLI::ValidationError("--routing", "must be ecmp or static");
  }
  // Limits and their estimate only matter to the adaptive wait (and limits to the backfill
  // reservations): without them they would change nothing, silently.
  if (opt.estimate != "limit" && opt.wait_cap_s <= 0) {
    throw CLI::ValidationError("--estimate", "only weighs in fabricfit's adaptive wait: give --wait-cap");
  }
  if (opt.limits != "exact" && opt.wait_cap_s <= 0 && opt.backfill != "reserve") {
    throw CLI::ValidationError("--limits",
                               "only weigh in fabricfit's adaptive wait and --backfill reserve: give either");
  }
  for (double f : opt.comm_shares) {
    if (!(f >= 0 && f <= 1)) throw CLI::ValidationError("--comm-shares", "each share must be 0 to 1");
  }

  const Fabric fabric = load_fabric(opt.source);
  const LocalityIndex index(fabric);
  const bool wants_blocks = std::any_of(opt.policies.begin(), opt.policies.end(),
                                        [](const std::string& p) { return p.starts_with("block"); });
  if (wants_blocks && index.domain_count() == 0) {
    throw CLI::ValidationError("--policies",
                               "block needs NVLink domains (Slurm's blocks); the fabric has none");
  }
  if (opt.segment > 0 && index.domain_count() == 0) {
    throw CLI::ValidationError("--segment", "needs NVLink domains; the fabric has none");
  }
  if (opt.segment > index.largest_domain()) {
    throw CLI::ValidationError(
        "--segment", fmt::format("{} is more nodes than the largest NVLink domain has ({})", opt.segment,
                                 index.largest_domain()));
  }
  Trace trace = read_trace(opt.trace, *format, opt.gpus_per_node);
  if (opt.max_jobs > 0 && static_cast<int>(trace.jobs.size()) > opt.max_jobs) trace.jobs.resize(opt.max_jobs);

  long cluster_gpus = 0;
  int hosts = 0;
  for (int l = 0; l < index.leaf_group_count(); ++l) hosts += index.leaf_group_size(l);
  cluster_gpus = static_cast<long>(hosts) * opt.gpus_per_node;
  double compression = 1;
  const double recorded = offered_load(trace.jobs, cluster_gpus);
  if (opt.target_load > 0 && recorded > 0) compression = opt.target_load / recorded;
  std::vector<TraceJob> jobs = compress_arrivals(trace.jobs, compression);

  ReplayOptions options;
  options.node_gpus = opt.gpus_per_node;
  options.rule = opt.rule.empty() ? PatternRule{} : parse_pattern_rule(opt.rule);
  const WorkloadMix mix = opt.mix.empty() ? workload_mix_of(jobs) : WorkloadMix::parse(opt.mix);
  const FragModel frag(mix, opt.gpus_per_node, index.largest_leaf_group());
  policy_options.seed = opt.seed;
  policy_options.locality_wait_s = opt.locality_wait_s;
  if (!opt.weights.empty()) policy_options.weights = parse_score_weights(opt.weights);
  options.retry_after_s = opt.locality_wait_s;
  options.seed = opt.seed;
  options.model.enabled = !opt.no_model;
  options.model.comm_shares = opt.comm_shares;
  options.model.demand = opt.demand == "peak" ? DemandMode::Peak : DemandMode::TimeAveraged;
  options.model.routing = opt.routing == "static" ? UplinkRouting::Static : UplinkRouting::Ecmp;
  if (!opt.faults.empty()) options.faults = parse_fault_spec(opt.faults);
  options.wait.cap_s = opt.wait_cap_s;
  options.wait.overestimate = opt.overestimate;
  options.wait.round_limits = opt.limits == "typed";
  options.wait.estimate = opt.estimate == "history" ? RunEstimate::History : RunEstimate::TimeLimit;
  options.fabric = &fabric;
  options.segment_nodes = opt.segment;
  options.keep_runs = !opt.per_job.empty();
  options.reserve_first_blocked = opt.backfill == "reserve";
  options.drain_failing = opt.drain_failing;

  ReplayReport report;
  report.trace = opt.trace;
  report.format = to_string(*format);
  report.mapping = trace.mapping;
  report.trace_jobs = static_cast<int>(jobs.size());
  report.fabric = fmt::format(
      "{} hosts x {} GPUs in {} leaf groups{}, {} tiers", hosts, opt.gpus_per_node, index.leaf_group_count(),
      index.pod_count() > 0 ? fmt::format(" / {} pods", index.pod_count()) : std::string(), index.tiers());
  report.cluster_gpus = cluster_gpus;
  report.offered_load = offered_load(jobs, cluster_gpus);
  report.compression = compression;
  report.rule = options.rule.describe();
  report.rule_spec = options.rule.to_string();
  report.mix = mix.to_string();
  report.locality_wait_s = opt.locality_wait_s;
  report.adaptive_wait_cap_s = opt.wait_cap_s;
  report.overestimate = opt.overestimate;
  report.round_limits = options.wait.round_limits;
  report.estimate = opt.estimate;
  report.weights = policy_options.weights.to_string();
  report.model = options.model.describe();
  report.demand = to_string(options.model.demand);
  report.routing = to_string(options.model.routing);
  if (options.faults.any()) {
    report.faults = options.faults.to_string();
    if (options.drain_failing) report.faults += " drain-failing";
  }
  report.segment_nodes = opt.segment;
  report.backfill = opt.backfill;
  report.segment_jobs = static_cast<int>(std::count_if(jobs.begin(), jobs.end(), [&](const TraceJob& job) {
    return asks_segment(job, opt.segment, index.largest_domain());
  }));
  for (int s = 0; s < opt.seeds; ++s) report.seeds.push_back(opt.seed + static_cast<std::uint64_t>(s));
  report.results = replay_policies(index, jobs, opt.policies, frag, options, policy_options, opt.seeds);

  if (!opt.svg.empty()) write_file_atomically(opt.svg, report_svg(report));
  if (!opt.jobs_csv.empty()) write_file_atomically(opt.jobs_csv, jobs_csv(jobs, options));
  if (!opt.per_job.empty()) write_file_atomically(opt.per_job, per_job_csv(report, jobs, index, options));
  if (opt.json) {
    fmt::print("{}\n", report_json(report).dump(2));
  } else {
    fmt::print("{}", report_text(report));
  }
  return 0;
}

}  // namespace

Action add_replay_command(CLI::App& app) {
  auto opt = std::make_shared<ReplayCliOptions>();
  auto* cmd =
      app.add_subcommand("replay", "Replay a job trace through fabricfit and baseline placement policies");
  cmd->add_option("snapshot", opt->source, "A snapshot (or an ibnetdiscover / ibnd cache file)")->required();
  cmd->add_option("--trace", opt->trace, "The trace file (CSV)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--format", opt->format, "elasticflow, kalos or openb")->required();
  cmd->add_option("--policies", opt->policies,
                  "Comma-separated: fabricfit, tree, tree-switches, block, block-24.11, firstfit, random")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--pattern-rule", opt->rule,
                  "How trace jobs get patterns, e.g. multi=ring,alltoall=0.25,alltoall_min_nodes=4,volume=1 "
                  "(default: multi=ring)");
  cmd->add_option("--mix", opt->mix, "Workload mix for fragmentation (default: the trace's, by GPU demand)");
  cmd->add_option("--gpus-per-node", opt->gpus_per_node, "GPUs on every host")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--target-load", opt->target_load,
                  "Compress (or stretch) arrival times so that the offered load is this share of the GPUs "
                  "(0: as recorded)")
      ->check(CLI::Range(0.0, 10.0));
  cmd->add_option(
         "--locality-wait", opt->locality_wait_s,
         "tree-switches: seconds a multi-host job that one leaf group could hold waits for one before "
         "it is split (Slurm's --switches=1@TIME)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--block-sizes", opt->block_sizes,
                  "block, block-24.11: Slurm's BlockSizes in nodes, the first the base block (default: the "
                  "first NVLink domain's size, levels of 1, 2, 4 and 8 base blocks)")
      ->delimiter(',');
  cmd->add_option("--segment", opt->segment,
                  "Jobs wider than the largest NVLink domain whose node count N divides ask --segment=N "
                  "(topology/block's option: every N of their nodes in one domain); 0: none")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--weights", opt->weights,
                  "fabricfit's score weights, e.g. spine=1,core=4,uplink=2,frag=1 (the default)");
  cmd->add_option("--max-jobs", opt->max_jobs, "Replay only the first N jobs");
  cmd->add_option(
         "--wait-cap", opt->wait_cap_s,
         "fabricfit's adaptive locality wait: a job waits for one leaf group (the fewest, when wider than "
         "any) while the run-time model "
         "says it gains more than it waits, never longer than this many seconds (default: the plugin's "
         "LocalityWaitMax default; 0: never waits)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option(
         "--overestimate", opt->overestimate,
         "Time limit of a trace job (for the adaptive wait and --backfill reserve): its duration x this")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 100.0));
  cmd->add_option("--limits", opt->limits,
                  "exact (duration x --overestimate) or typed (that, rounded up to the values users type: "
                  "15 min, 30 min, 1, 2, 4, 6, 12 h, 1, 2, 3, 5, 7 days, whole weeks)")
      ->capture_default_str()
      ->check(CLI::IsMember({"exact", "typed"}));
  cmd->add_option("--estimate", opt->estimate,
                  "The run time the adaptive wait takes for a job, its own and the running jobs': limit (its "
                  "time limit) or history (its limit x the share of their limits the last two finished jobs "
                  "ran; past that, the limit)")
      ->capture_default_str()
      ->check(CLI::IsMember({"limit", "history"}));
  cmd->add_option("--comm-shares", opt->comm_shares,
                  "Communication shares a multi-host job draws from when the trace has none")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--demand", opt->demand,
                  "time-averaged (peak x communication share on each uplink bundle) or peak")
      ->capture_default_str();
  cmd->add_option("--routing", opt->routing,
                  "ecmp (even spread over a bundle's uplinks) or static (destination modulo uplinks)")
      ->capture_default_str();
  auto* faults = cmd->add_option(
      "--faults", opt->faults,
      "Fabric faults: stress, llama3 or none, then key=value overrides (host-flap, uplink-flap, "
      "uplink-slow per link-day; slow-keeps; episode, flap-every, detect, checkpoint in s)");
  auto* drain =
      cmd->add_flag("--drain-failing", opt->drain_failing,
                    "With --faults: every policy loses a host from when a health sweep sees its HCA link or "
                    "NVLink failing until it sees it healthy (a site's health check draining it)");
  drain->needs(faults);
  cmd->add_flag("--no-runtime-model", opt->no_model,
                "Every job runs its trace duration whatever its placement");
  cmd->add_option("--seeds", opt->seeds, "Replay seeds seed, seed+1, ...: mean and 95 % interval")
      ->capture_default_str()
      ->check(CLI::Range(1, 30));
  cmd->add_option("--seed", opt->seed, "First seed (communication-share draws, random policy)")
      ->capture_default_str();
  cmd->add_option("--svg", opt->svg, "Also write the comparison as an SVG plot");
  cmd->add_option("--jobs-csv", opt->jobs_csv,
                  "Also write the replayed job stream (id, submit_s, duration_s, nodes, gpus_per_node, "
                  "comm_share, pattern) as CSV: what bench/lab_stream.sh submits to a lab");
  cmd->add_option("--backfill", opt->backfill,
                  "skip (a job that does not fit is passed over; the default) or reserve (the queue's first "
                  "such job reserves the hosts it will get when enough running jobs end by their limits, as "
                  "Slurm's backfill does)")
      ->check(CLI::IsMember({"skip", "reserve"}));
  cmd->add_option(
      "--per-job", opt->per_job,
      "Also write the run of every job that ran under each policy (first seed) as CSV: start, end, "
      "wait, run time against its uncontended duration (run_x), leaf groups and NVLink domains (name:hosts)");
  cmd->add_flag("--json", opt->json, "Print JSON");
  return [opt] { return run_replay(*opt); };
}

}  // namespace fabricfit::cli
