// SPDX-License-Identifier: GPL-2.0-or-later
// `fabricfit explain JOBID`: where a running or finished job landed and what it costs the fabric, in
// units an admin reads (GB crossing the spines per GB of message, milliseconds per GB
// on the busiest uplinks, GPUs made unusable), against what fabricfit and topology/tree
// would choose on the same free GPUs, beside the split jobs running now as slurmctld
// counts them; for a pending job, what it waits for. The cluster comes from Slurm's JSON
// output (scontrol show job/nodes --json).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/explain_placement.hpp"
#include "cli/health_marks.hpp"
#include "cli/placement_input.hpp"
#include "cli/slurm_cluster.hpp"
#include "common/hostlist.hpp"
#include "placement/fragmentation.hpp"
#include "placement/runtime/runtime_model.hpp"
#include "placement/selection/baselines.hpp"
#include "placement/selection/block_policy.hpp"
#include "placement/selection/health_avoidance.hpp"
#include "placement/selection/selector.hpp"
#include "placement/slurm/admin_comment.hpp"
#include "placement/traffic_matrix.hpp"
#include "site/site_config.hpp"

namespace fabricfit::cli {
namespace {

using nlohmann::json;

struct ExplainOptions {
  std::string job_id;
  std::string snapshot;
  std::string conf = default_site_config_path(std::getenv("SLURM_CONF")).string();
  bool conf_given = false;  // --conf on the command line, not its default
  std::string pattern;
  std::string jobs_json, nodes_json;  // Slurm's JSON from files instead of scontrol
  std::string health;                 // empty: the conf's HealthFile, else beside the snapshot
  bool json_out = false;
};

// The pattern a job ran with: the placement record in its AdminComment
// ("... pattern=ring"), else --pattern, else the site's rule for its node count.
std::pair<CommPattern, std::string> job_pattern(const SlurmJob& job, const ExplainOptions& opt,
                                                const SiteConfig& site) {
  if (const auto recorded = recorded_pattern(job)) return {*recorded, "placement record"};
  if (!opt.pattern.empty()) return {parse_comm_pattern(opt.pattern), "--pattern"};
  return {
      effective_pattern(nullptr, static_cast<unsigned>(std::max(job.node_count, 1)), site.default_pattern),
      "site default (the job's --comm-pattern is not in Slurm's job record)"};
}

// The other running jobs on several fabric hosts join `sharing` at peak demand, as
// topology/fabricfit counts them for placement and the locality wait: GPUs as allocated,
// the pattern of the placement record, else the site's default. Jobs with a host outside
// the fabric or without GPUs are left out, as there. Returns how many load the uplinks.
int add_running_beside(const LocalityIndex& index, const UplinkBundles& bundles, BandwidthSharing& sharing,
                       const std::vector<SlurmJob>& jobs, const SlurmJob& self, const SiteConfig& site) {
  int counted = 0;
  std::vector<int> changed;
  for (const SlurmJob& j : jobs) {
    if (j.id == self.id || j.state != "RUNNING" || j.nodes.empty()) continue;
    const auto a = allocation_of(index, j);
    if (!a || a->hosts.size() < 2 || std::ranges::any_of(a->gpus, [](int g) { return g <= 0; })) continue;
    const CommPattern pattern = recorded_pattern(j).value_or(
        effective_pattern(nullptr, static_cast<unsigned>(a->hosts.size()), site.default_pattern));
    const auto demand = bundles.demand(TrafficMatrix::build(pattern, a->gpus), a->hosts);
    if (demand.empty()) continue;
    sharing.add(static_cast<int>(j.id), demand, changed);
    ++counted;
  }
  return counted;
}

json describe(const LocalityIndex& index, const PlacementContext& ctx, const Allocation& a,
              const CommPattern& pattern, const FragModel& frag, int segment) {
  const PlacementScore s = evaluate_allocation(ctx, a, pattern);
  GpuState after = ctx.gpus;
  for (std::size_t i = 0; i < a.hosts.size(); ++i) after.free[a.hosts[i]] -= a.gpus[i];
  const double unusable_before = measure_fragmentation(index, ctx.gpus, frag).unusable;
  const double unusable_after = measure_fragmentation(index, after, frag).unusable;
  std::vector<std::string> names;
  for (int h : a.hosts) names.push_back(index.host_name(h));
  json j = {{"nodes", compress_hostlist(names)},
            {"leaf_groups", leaf_group_names_of(index, a.hosts)},
            {"pods", s.pods},
            {"gpus", s.gpus},
            {"cross_spine_gb_per_gb", s.spine_bytes},
            {"cross_spine_share", s.inter_node_bytes > 0 ? s.spine_bytes / s.inter_node_bytes : 0.0},
            {"cross_core_gb_per_gb", s.core_bytes},
            {"busiest_uplinks", s.bottleneck},
            {"uplink_ms_per_gb", 1000 * s.max_uplink_load},
            {"uplink_oversubscription", s.uplink_stretch},
            {"gpus_made_unusable", unusable_after - unusable_before}};
  if (index.domain_count() > 0) j["nvlink_domains"] = domain_names_of(index, a.hosts);
  if (index.domain_count() > 0 && segment > 0) {
    // --segment=N: the N-node pieces, each inside one domain (what IMEX gives a channel
    // each); none when the nodes cannot be so cut (not placed by --segment's rule).
    json segments = json::array();
    for (const auto& piece : domain_segments(index, a.hosts, segment)) {
      std::vector<std::string> piece_names;
      for (const int h : piece) piece_names.push_back(index.host_name(h));
      segments.push_back(compress_hostlist(piece_names));
    }
    j["segments"] = {{"size", segment}, {"nodes", segments}};
  }
  return j;
}

// A job that has ended: its GPUs are free again and the cluster has moved on, so only its
// placement record tells what the controller saw when it started.
bool has_ended(const SlurmJob& job) {
  static const std::vector<std::string> live{"PENDING",    "RUNNING",      "SUSPENDED",   "CONFIGURING",
                                             "COMPLETING", "REQUEUED",     "RESIZING",    "SIGNALING",
                                             "STAGE_OUT",  "REQUEUE_HOLD", "REQUEUE_FED", "SPECIAL_EXIT"};
  return std::find(live.begin(), live.end(), job.state) == live.end();
}

// What a pending job's state reason means, and what it waits for.
std::string waits_for(const SlurmJob& job, bool fits_now) {
  const std::string& r = job.reason;
  if (r == "Priority") return "jobs of higher priority are scheduled first";
  if (r == "Dependency") return "a job it depends on";
  if (r == "BeginTime") return "its --begin time";
  if (r.starts_with("ReqNodeNotAvail")) return "a node it requires to come back (down, drained or reserved)";
  if (r == "Resources")
    return fits_now ? "the scheduler's next pass: GPUs for it are free now"
                    : "free GPUs: no set of free nodes holds it yet";
  return r.empty() ? "the scheduler" : fmt::format("{} (Slurm's reason)", r);
}

int run_explain(const ExplainOptions& opt) {
  const SiteConfig site = load_site_config(opt.conf);
  const Fabric fabric = [&] {
    if (!opt.snapshot.empty()) return load_fabric(opt.snapshot);
    try {
      return load_fabric(site.snapshot_file);
    } catch (const std::exception& e) {
      std::error_code ec;
      throw std::runtime_error(
          snapshot_load_error(opt.conf, opt.conf_given, std::filesystem::exists(opt.conf, ec), e.what()));
    }
  }();
  const LocalityIndex index(fabric);
  const auto health =
      find_health(opt.health, site.health_file, opt.snapshot.empty() ? site.snapshot_file : opt.snapshot);
  const auto jobs = read_jobs(opt.jobs_json, opt.job_id);
  const auto it = std::find_if(jobs.begin(), jobs.end(),
                               [&](const SlurmJob& j) { return std::to_string(j.id) == opt.job_id; });
  if (it == jobs.end()) throw std::invalid_argument(fmt::format("Slurm knows no job {}", opt.job_id));
  const SlurmJob& job = *it;
  std::vector<std::string> unknown;
  GpuState gpus = gpu_state_of(index, read_nodes(opt.nodes_json), &unknown);
  const auto [pattern, pattern_from] = job_pattern(job, opt, site);
  const FragModel frag(WorkloadMix::standard(std::max(1, gpus.max_gpus_per_host())),
                       std::max(1, gpus.max_gpus_per_host()), index.largest_leaf_group());

  json out = {{"job_id", job.id},
              {"state", job.state},
              {"reason", job.reason},
              {"pattern", pattern.to_string()},
              {"pattern_from", pattern_from},
              {"placement_record", job.placement_record},
              {"read_from", job.from_accounting ? "accounting" : "slurmctld"}};
  if (!job.placement_record.empty()) out["record"] = record_json(job.placement_record);
  if (accounting_lacks_gpus(job)) out["accounting_note"] = accounting_gpus_note(job);
  const bool placed = !job.nodes.empty() && job.state != "PENDING";
  const bool ended = placed && has_ended(job);
  // The split jobs running beside it (not for an ended job: today's are not its own).
  const UplinkBundles bundles(
      index, site.locality_wait_static_routing ? UplinkRouting::Static : UplinkRouting::Ecmp, &fabric);
  BandwidthSharing sharing(bundles);
  const RunningTraffic running{.bundles = bundles, .sharing = sharing};
  if (!ended && !job.from_accounting) {
    const int beside =
        add_running_beside(index, bundles, sharing, opt.jobs_json.empty() ? read_jobs("") : jobs, job, site);
    out["running_split_jobs"] = beside;
  }
  JobRequest request;
  request.pattern = pattern;
  request.exclusive = job.exclusive;
  request.min_nodes = std::max(1, job.node_count);
  request.segment_nodes = job.segment_size;
  request.gpus_per_node = job.gpus_per_node;
  if (request.gpus_per_node == 0) request.total_gpus = job.total_gpus;
  if (placed) {
    std::string missing;
    const auto held = allocation_of(index, job, &missing);
    if (!held) throw std::invalid_argument(fmt::format("{} of job {} is not in the fabric", missing, job.id));
    const Allocation& a = *held;
    for (std::size_t i = 0; i < a.hosts.size() && !ended; ++i) {
      const int h = a.hosts[i];
      gpus.free[h] = std::min(gpus.total[h], gpus.free[h] + a.gpus[i]);  // the state before the job
    }
    request.min_nodes = static_cast<int>(a.hosts.size());
    if (request.gpus_per_node == 0 && request.total_gpus == 0)
      request.gpus_per_node = a.gpus.empty() ? 0 : a.gpus[0];
    const PlacementContext ctx{index, gpus, frag};
    out["placement"] = describe(index, ctx, a, pattern, frag, job.segment_size);
    if (health) {
      std::vector<std::string> own, candidates;
      for (const int h : a.hosts) own.push_back(index.host_name(h));
      for (int h = 0; h < index.host_count(); ++h)
        if (gpus.free[h] > 0) candidates.push_back(index.host_name(h));
      out["placement_health"] =
          placement_health(fabric, *health, own, crossed_parts(index, a, pattern), candidates);
    }
    out["free_state"] = "now, with this job's GPUs counted free";
    if (!ended && out["placement"]["leaf_groups"].size() > 1)
      out["placement"]["uplink_share"] =
          running.share_if_added(TrafficMatrix::build(pattern, a.gpus), a.hosts);
    // Figures of then from the record: the GPUs it made unusable once it has ended, all of
    // them when accounting kept no GPU counts.
    out["placement"] = reconcile_own_placement(
        out["placement"],
        {.ended = ended, .gpus_known = !accounting_lacks_gpus(job), .record = job.placement_record});
    if (ended)
      out["free_state"] = "ended: the free GPUs of its start are gone; the placement record has them";
  }
  PlacementContext ctx{index, gpus, frag};
  // As slurmctld: steered only when split jobs run.
  if (out.value("running_split_jobs", 0) > 0) ctx.running = &running;
  bool fits = false;
  if (ended) {
    out["note"] = "the job has ended: no alternatives on today's free GPUs";
  } else if (request.gpus_per_node > 0 || request.total_gpus > 0) {
    FabricfitSelector selector;
    if (const auto d = selector.decide(ctx, request, 1)) {
      fits = true;
      out["fabricfit_choice"] = describe(index, ctx, d->chosen.allocation, pattern, frag, job.segment_size);
      if (d->uplink_share) out["fabricfit_choice"]["uplink_share"] = *d->uplink_share;
      if (!d->alternatives.empty())
        out["runner_up"] =
            describe(index, ctx, d->alternatives.front().allocation, pattern, frag, job.segment_size);
    }
    TreePolicy tree;
    if (const auto t = tree.place(ctx, request))
      out["tree_choice"] = describe(index, ctx, *t, pattern, frag, job.segment_size);
    if (index.domain_count() > 0) {
      // What topology/block, the plugin a site with NVLink domains would otherwise run, picks.
      try {
        BlockPolicy block(SlurmRelease::v26_05, {});
        if (const auto b = block.place(ctx, request))
          out["block_choice"] = describe(index, ctx, *b, pattern, frag, job.segment_size);
      } catch (const std::exception& e) {
        out["block_note"] = fmt::format("topology/block would refuse the job: {}", e.what());
      }
    }
  } else {
    out["note"] = "the job asks for no GPUs: fabricfit leaves it to Slurm (reason no-gpus)";
  }
  if (!placed && job.state == "PENDING") out["waits_for"] = waits_for(job, fits);

  if (opt.json_out) {
    fmt::print("{}\n", out.dump(2));
    return 0;
  }
  fmt::print("job {}: {}{}, pattern {} ({})\n", job.id, job.state,
             job.reason.empty() || job.reason == "None" ? "" : fmt::format(" ({})", job.reason),
             pattern.to_string(), pattern_from);
  if (job.from_accounting) fmt::print("from Slurm's accounting (sacct): slurmctld no longer holds the job\n");
  if (out.contains("accounting_note")) fmt::print("{}\n", out["accounting_note"].get<std::string>());
  if (!job.placement_record.empty())
    fmt::print("placement record: {}\n", job.placement_record);
  else if (ended)
    fmt::print("placement record: none (not placed since fabricfit records placements)\n");
  if (out.contains("placement")) fmt::print("placed on\n{}", render_placement(out["placement"]));
  if (out.contains("placement_health")) fmt::print("{}", render_placement_health(out["placement_health"]));
  if (out.contains("waits_for")) fmt::print("waits for: {}\n", out["waits_for"].get<std::string>());
  const char* when = placed ? "on the same free GPUs" : "on the GPUs free now";
  if (out.contains("fabricfit_choice"))
    fmt::print("fabricfit's choice {}\n{}", when, render_placement(out["fabricfit_choice"]));
  else if (!out.contains("note") && !ended && index.domain_count() > 0)
    fmt::print("fabricfit's choice {}: none: no NVLink domain (or set of them) holds it (domain=waits)\n",
               when);
  else if (!out.contains("note") && !ended)
    fmt::print("fabricfit's choice {}: none fits (no-fit)\n", when);
  if (out.contains("runner_up"))
    fmt::print("best alternative it saw\n{}", render_placement(out["runner_up"]));
  if (out.contains("tree_choice"))
    fmt::print("topology/tree best fit {}\n{}", when, render_placement(out["tree_choice"]));
  if (out.contains("block_choice"))
    fmt::print("topology/block (26.05's rules) {}\n{}", when, render_placement(out["block_choice"]));
  else if (index.domain_count() > 0 && !out.contains("note") && !ended)
    fmt::print("topology/block (26.05's rules) {}: {}\n", when,
               out.value("block_note", std::string("none fits (it waits for an aligned block)")));
  if (out.contains("note")) fmt::print("{}\n", out["note"].get<std::string>());
  return 0;
}

}  // namespace

Action add_explain_command(CLI::App& app) {
  auto opt = std::make_shared<ExplainOptions>();
  auto* cmd =
      app.add_subcommand("explain", "Explain a job's placement: where, what it costs, the alternatives");
  cmd->add_option("jobid", opt->job_id, "A running, pending or finished job")->required();
  cmd->add_option("--snapshot", opt->snapshot, "Fabric snapshot (default: SnapshotFile of --conf)");
  auto* conf = cmd->add_option("--conf", opt->conf, "fabricfit.conf")->capture_default_str();
  cmd->add_option("--pattern", opt->pattern, "The job's pattern when no placement record says it");
  cmd->add_option("--jobs-json", opt->jobs_json,
                  "Slurm's `scontrol show jobs --json` output (default: run it)");
  cmd->add_option("--nodes-json", opt->nodes_json,
                  "Slurm's `scontrol show nodes --json` output (default: run it)");
  cmd->add_option("--health", opt->health,
                  "A health file (`fabricfit health`): the unhealthy links the placement crosses and avoided "
                  "(default: the conf's HealthFile, else the one beside the snapshot when it exists)");
  cmd->add_flag("--json", opt->json_out, "Print JSON");
  return [opt, conf] {
    opt->conf_given = conf->count() > 0;
    return run_explain(*opt);
  };
}

}  // namespace fabricfit::cli
