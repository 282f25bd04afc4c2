// SPDX-License-Identifier: GPL-2.0-or-later
// `fabricfit slowdown SNAPSHOT --nodes HOSTLIST --pattern P --comm-share F [--running
// FILE|DIR]`: how much longer a job runs on these hosts than inside one leaf group with
// no contention, by the replay's run-time model (docs/placement.md, "Run-time model"):
// its pattern's traffic over its placement, max-min shared on each uplink bundle with
// the other running jobs, s = (1 - f) + f / rho. The lab's job emulator
// (bench/lab_job.sh) sleeps its base time x this.
#include <fmt/format.h>
#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/commands.hpp"
#include "cli/placement_input.hpp"
#include "cli/running_jobs.hpp"
#include "placement/comm_pattern.hpp"
#include "placement/runtime/runtime_model.hpp"
#include "placement/traffic_matrix.hpp"

namespace fabricfit::cli {
namespace {

struct SlowdownOptions {
  std::string source;
  std::string nodes;
  std::string pattern = "ring";
  int gpus_per_node = 8;
  double comm_share = 0.3;
  std::string running;
  std::string job_id;
  std::string demand = "time-averaged";
  std::string routing = "ecmp";
  bool json = false;
  bool quiet = false;
};

struct Placed {
  std::vector<int> hosts;
  std::vector<BundleDemand> demand;  // as counted on the bundles
  int leaf_groups = 0;
};

// The job's demand on the uplink bundles, as the replay counts it (replay.cpp, start()).
Placed place(const LocalityIndex& index, const UplinkBundles& bundles, const std::string& nodes,
             int gpus_per_node, const std::string& pattern, double f, DemandMode mode,
             const std::string& what) {
  Placed p;
  p.hosts = hosts_of(index, nodes);
  if (p.hosts.empty()) throw std::invalid_argument(fmt::format("{}: the node list names no host", what));
  std::set<int> groups;
  for (int h : p.hosts) {
    const int l = index.leaf_group_of(h);
    if (l < 0)
      throw std::invalid_argument(fmt::format("{}: {} is in no leaf group", what, index.host_name(h)));
    groups.insert(l);
  }
  p.leaf_groups = static_cast<int>(groups.size());
  if (p.hosts.size() < 2 || f <= 0) return p;  // one host, or no communication: no uplink demand
  const std::vector<int> gpus(p.hosts.size(), gpus_per_node);
  const TrafficMatrix traffic = TrafficMatrix::build(parse_comm_pattern(pattern), gpus);
  p.demand = bundles.demand(traffic, p.hosts);
  if (mode == DemandMode::TimeAveraged) {
    for (BundleDemand& d : p.demand) d.gbps *= f;
  }
  return p;
}

int run_slowdown(const SlowdownOptions& opt) {
  if (opt.demand != "time-averaged" && opt.demand != "peak") {
    throw CLI::ValidationError("--demand", "must be time-averaged or peak");
  }
  if (opt.routing != "ecmp" && opt.routing != "static") {
    throw CLI::ValidationError("--routing", "must be ecmp or static");
  }
  const DemandMode mode = opt.demand == "peak" ? DemandMode::Peak : DemandMode::TimeAveraged;
  const Fabric fabric = load_fabric(opt.source);
  const LocalityIndex index(fabric);
  const UplinkBundles bundles(index, opt.routing == "static" ? UplinkRouting::Static : UplinkRouting::Ecmp,
                              &fabric);
  const CommPattern pattern = parse_comm_pattern(opt.pattern);
  // One-host jobs have no inter-node traffic: f = 0 whatever was given (as in the replay).
  const Placed self = place(index, bundles, opt.nodes, opt.gpus_per_node, pattern.to_string(), opt.comm_share,
                            mode, "--nodes");
  const double f = self.hosts.size() < 2 ? 0.0 : opt.comm_share;

  BandwidthSharing alone(bundles);
  std::vector<int> changed;
  alone.add(0, self.demand, changed);
  const double rho_alone = alone.rho(self.demand);

  BandwidthSharing sharing(bundles);
  int counted = 0;
  if (!opt.running.empty()) {
    for (const RunningJob& other : read_running_jobs(opt.running)) {
      if (!opt.job_id.empty() && other.id == opt.job_id) continue;
      const Placed p = place(index, bundles, other.nodes, other.gpus_per_node, other.pattern,
                             other.comm_share, mode, fmt::format("{}: job {}", opt.running, other.id));
      sharing.add(++counted, p.demand, changed);
    }
  }
  sharing.add(0, self.demand, changed);
  const double rho = sharing.rho(self.demand);
  const double s = slowdown(f, rho, mode);
  const double s_alone = slowdown(f, rho_alone, mode);

  // The tightest bundle and the jobs met on the job's bundles.
  std::string tightest;
  double tightest_rho = 2;
  std::set<int> met;
  for (const BundleDemand& d : self.demand) {
    const double r = sharing.rho(std::span<const BundleDemand>(&d, 1));
    if (r < tightest_rho) {
      tightest_rho = r;
      tightest = bundles.name(d.bundle);
    }
    for (const auto& [job, gbps] : sharing.jobs_on(d.bundle)) {
      if (job != 0) met.insert(job);
    }
  }

  if (opt.quiet) {
    fmt::print("{:.6f}\n", s);
    return 0;
  }
  if (opt.json) {
    nlohmann::json j = {{"slowdown", s},
                        {"rho", rho},
                        {"slowdown_alone", s_alone},
                        {"rho_alone", rho_alone},
                        {"comm_share", f},
                        {"pattern", pattern.to_string()},
                        {"hosts", self.hosts.size()},
                        {"leaf_groups", self.leaf_groups},
                        {"tightest_bundle", tightest},
                        {"running_jobs_counted", counted},
                        {"jobs_sharing_bundles", met.size()},
                        {"demand", to_string(mode)},
                        {"routing", to_string(bundles.routing())}};
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("slowdown       {:.4f}  (run time on these hosts now / in one leaf group alone)\n", s);
  fmt::print("job            {} hosts in {} leaf group(s), pattern {}, comm share {:g}\n", self.hosts.size(),
             self.leaf_groups, pattern.to_string(), f);
  if (self.demand.empty()) {
    fmt::print("uplinks        none used: no traffic leaves a leaf group\n");
  } else {
    fmt::print("rho            {:.4f}  (bandwidth got / demanded on its tightest uplink bundle, {})\n", rho,
               tightest);
  }
  fmt::print("alone          {:.4f}  (its own placement only: oversubscription, degraded cables)\n", s_alone);
  if (!opt.running.empty()) {
    fmt::print("other jobs     {} running, {} on its uplink bundles\n", counted, met.size());
  }
  fmt::print("model          demand {}, routing {}\n", to_string(mode), to_string(bundles.routing()));
  return 0;
}

}  // namespace

Action add_slowdown_command(CLI::App& app) {
  auto opt = std::make_shared<SlowdownOptions>();
  auto* cmd = app.add_subcommand(
      "slowdown",
      "A job's modelled slowdown on its hosts: its pattern's traffic shared with the running jobs");
  cmd->add_option("snapshot", opt->source, "A snapshot (or an ibnetdiscover / ibnd cache file)")->required();
  cmd->add_option("--nodes", opt->nodes, "The job's hosts in rank order, a Slurm hostlist")->required();
  cmd->add_option("--pattern", opt->pattern, "ring, tree, alltoall, none or tp=T,pp=P,dp=D")
      ->capture_default_str();
  cmd->add_option("--gpus-per-node", opt->gpus_per_node, "The job's GPUs on each of its hosts")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--comm-share", opt->comm_share,
                  "Share f of its uncontended run time spent communicating (0 for a one-host job)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--running", opt->running,
                  "The other running jobs: a JSON array file, or a directory of one JSON object per job "
                  "(job, nodes, gpus_per_node, pattern, comm_share)");
  cmd->add_option("--job-id", opt->job_id, "This job's id: its own entry in --running is left out");
  cmd->add_option("--demand", opt->demand,
                  "time-averaged (peak x communication share on each uplink bundle) or peak")
      ->capture_default_str();
  cmd->add_option("--routing", opt->routing,
                  "ecmp (even spread over a bundle's uplinks) or static (destination modulo uplinks)")
      ->capture_default_str();
  cmd->add_flag("--json", opt->json, "Print JSON");
  cmd->add_flag("-q,--quiet", opt->quiet, "Print only the slowdown");
  return [opt] { return run_slowdown(*opt); };
}

}  // namespace fabricfit::cli
