// SPDX-License-Identifier: GPL-2.0-or-later
// `fabricfit health [--sweep] [--json | --prom]`: the fabric's link health. With --sweep,
// reads every port's Performance Management counters of the snapshot's cables, updates
// the health file beside the snapshot (atomically) and then reports; without, reports
// what the last sweep wrote. Lists the links and hosts that are not healthy, with evidence.
// With --nvlink-report (or the conf's NvlinkReport) a sweep also judges the NVLink of each
// node from its own report (health/nvlink_health.hpp). With HealthDrain=yes in the conf, a
// sweep then drains the nodes whose HCA link flaps or whose NVLink fails and resumes those
// it drained (cli/health_drain.hpp).
#include <fmt/format.h>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "cli/commands.hpp"
#include "cli/health_drain.hpp"
#include "cli/health_report.hpp"
#include "common/hostlist.hpp"
#include "health/collect/health_sweep.hpp"
#include "health/health_file.hpp"
#include "health/nvlink_health.hpp"
#include "site/site_config.hpp"
#include "topology/readers/nvlink_report.hpp"
#include "topology/snapshot.hpp"

namespace fabricfit::cli {
namespace {

struct HealthOptions {
  std::string conf = default_site_config_path(std::getenv("SLURM_CONF")).string();
  std::string snapshot;       // empty: the conf's SnapshotFile
  std::string health;         // empty: the conf's HealthFile, or beside the snapshot
  std::string nvlink_report;  // empty: the conf's NvlinkReport
  bool sweep = false;
  bool clear = false;
  bool json = false;
  bool prom = false;
  bool quiet = false;
  bool ports = false;
  bool no_drain = false;
  DiscoveryOptions live;
};

// One scontrol update per action: State=RESUME, or State=DRAIN with the action's Reason
// (a drain, or a drained node's Reason rewritten). `done` and `failed` are the stderr lines
// ({0}: the node; {1}: why, or the error). False when a call failed.
bool update_nodes(const std::vector<NodeAction>& actions, bool drain, std::string_view done,
                  std::string_view failed) {
  bool ok = true;
  for (const auto& a : actions) {
    try {
      scontrol_update(
          drain ? std::vector<std::string>{"update", "NodeName=" + a.node, "State=DRAIN", "Reason=" + a.why}
                : std::vector<std::string>{"update", "NodeName=" + a.node, "State=RESUME"});
      fmt::print(stderr, fmt::runtime(done), a.node, a.why);
    } catch (const SlurmError& e) {
      fmt::print(stderr, fmt::runtime(failed), a.node, e.what());
      ok = false;
    }
  }
  return ok;
}

// Drains and resumes as `plan` says, one scontrol call each; every action and every node
// left alone is said on stderr (the timer's journal). False when an scontrol call failed.
bool apply_drains(const DrainPlan& plan) {
  bool ok = update_nodes(plan.resume, false, "fabricfit: resumed {0}: {1}\n",
                         "fabricfit: could not resume {0}: {1}\n");
  ok = update_nodes(plan.drain, true, "fabricfit: drained {0}: {1}\n",
                    "fabricfit: could not drain {0}: {1}\n") &&
       ok;
  ok = update_nodes(plan.reason, true, "fabricfit: {0} stays drained, its cause now: {1}\n",
                    "fabricfit: could not rewrite the Reason of {0}: {1}\n") &&
       ok;
  for (const auto& a : plan.held) fmt::print(stderr, "fabricfit: not draining {}: {}\n", a.node, a.why);
  return ok;
}

// The sweep's NVLink part: `health` gets the hosts of `report` that are not healthy. The
// last states stand until a report reads whole (one garbled file must not clear a failing
// host that placement keeps jobs off), and a host without a current report keeps its own.
// What it kept and why is said on stderr (the timer's journal). False when the report did
// not read.
bool judge_nvlink_reports(const std::string& report, const SiteConfig& site, const Fabric& fabric,
                          const HealthFile& previous, HealthFile& health) {
  health.nvlink_report = previous.nvlink_report;
  health.nvlink = previous.nvlink;
  NvlinkJudgement j;
  std::vector<std::string> unknown;
  try {
    const NvlinkReport r = load_nvlink_report(report);
    for (const NvlinkHostReport& h : r.hosts)
      if (!fabric.host_index(h.host)) unknown.push_back(h.host);
    j = judge_nvlink(r, previous.nvlink, health.sweep_unix, site.nvlink_report_max_age_s);
  } catch (const NvlinkReportError& e) {
    fmt::print(stderr, "fabricfit: NVLink report not read, the last NVLink states kept: {}\n", e.what());
    return false;
  }
  health.nvlink = std::move(j.hosts);
  health.nvlink_report = std::filesystem::absolute(report).string();
  if (!j.stale.empty()) {
    fmt::print(
        stderr,
        "fabricfit: NVLink: {} report(s) older than NvlinkReportMaxAge={} s, their last state kept: {}\n",
        j.stale.size(), site.nvlink_report_max_age_s, compress_hostlist(j.stale));
  }
  if (!j.unreported.empty()) {
    fmt::print(stderr,
               "fabricfit: NVLink: {} host(s) not healthy before with no current report, kept so: {}\n",
               j.unreported.size(), compress_hostlist(j.unreported));
  }
  if (!unknown.empty()) {
    fmt::print(
        stderr,
        "fabricfit: NVLink: {} report(s) of nodes the snapshot has no host of (names as Slurm's and the "
        "fabric's?), placement cannot use them: {}\n",
        unknown.size(), compress_hostlist(unknown));
  }
  return true;
}

int run_health(const HealthOptions& opt) {
  const SiteConfig site = load_site_config(opt.conf);
  const std::filesystem::path snapshot = opt.snapshot.empty() ? site.snapshot_file : opt.snapshot;
  const std::filesystem::path path = !opt.health.empty()         ? std::filesystem::path(opt.health)
                                     : !site.health_file.empty() ? std::filesystem::path(site.health_file)
                                                                 : health_path_beside(snapshot);
  HealthFile health;
  bool drain_failed = false;
  bool nvlink_failed = false;
  if (opt.sweep) {
    HealthFile previous;
    if (std::filesystem::exists(path)) previous = load_health(path);  // a bad file stops the sweep: say so
    const Snapshot snap = load_snapshot(snapshot);
    SweepOptions sweep{opt.live, site.health, opt.clear};
    SweepStats stats;
    health = sweep_health(cables_of(snap.fabric), previous, sweep, &stats);
    health.snapshot = snapshot.string();
    // No NvlinkReport (any more): no NVLink states, none kept from before.
    const std::string report = !opt.nvlink_report.empty() ? opt.nvlink_report : site.nvlink_report;
    if (!report.empty()) nvlink_failed = !judge_nvlink_reports(report, site, snap.fabric, previous, health);
    save_health(path, health);
    if (!opt.quiet) {
      fmt::print(stderr, "fabricfit: swept {} ports in {:.2f} s: {} read, {} down, {} missed{}; wrote {}\n",
                 health.ports.size(), stats.seconds, stats.read, stats.down, stats.missed,
                 opt.clear ? ", counters cleared" : "", path.string());
    }
    // The file is written first: slurmctld's placement never waits on Slurm's answers here.
    if (site.health_drain && !opt.no_drain) {
      try {
        const auto nodes = read_nodes("");
        drain_failed = !apply_drains(plan_drains(snap.fabric, health, nodes, site.health_drain_max));
      } catch (const SlurmError& e) {
        fmt::print(stderr, "fabricfit: HealthDrain: cannot read Slurm's nodes, none drained or resumed: {}\n",
                   e.what());
        drain_failed = true;
      }
    }
  } else {
    health = load_health(path);
  }
  if (!opt.quiet || opt.json || opt.prom) {
    fmt::print("{}", opt.json   ? health_json(health, opt.ports)
                     : opt.prom ? health_prom(health)
                                : health_text(health));
  }
  return drain_failed || nvlink_failed ? 1 : 0;
}

}  // namespace

Action add_health_command(CLI::App& app) {
  auto opt = std::make_shared<HealthOptions>();
  auto* cmd =
      app.add_subcommand("health", "Fabric link health from the ports' error and congestion counters");
  auto* sweep =
      cmd->add_flag("--sweep", opt->sweep, "Read every port's counters now and update the health file first");
  cmd->add_flag("--clear", opt->clear,
                "With --sweep: clear each port's counters after reading them (never by default)");
  cmd->add_flag("--no-drain", opt->no_drain,
                "With --sweep: do not drain or resume nodes even where the conf says HealthDrain=yes");
  cmd->add_option("--conf", opt->conf, "fabricfit.conf (thresholds, SnapshotFile, HealthFile)")
      ->capture_default_str();
  cmd->add_option("--snapshot", opt->snapshot,
                  "The snapshot whose cables to sweep (default: the conf's SnapshotFile)");
  cmd->add_option("--health-file", opt->health,
                  "The health file (default: the conf's HealthFile, or beside the snapshot)");
  auto* nvlink =
      cmd->add_option("--nvlink-report", opt->nvlink_report,
                      "With --sweep: the nodes' nvidia-smi -q (a directory of one file per node, or pdsh "
                      "output) to judge their NVLink by (default: the conf's NvlinkReport)");
  nvlink->needs(sweep);
  auto* json = cmd->add_flag("--json", opt->json, "Print JSON");
  cmd->add_flag("--ports", opt->ports, "With --json: every port's state and last counters too")->needs(json);
  cmd->add_flag("--prom", opt->prom, "Print Prometheus textfile metrics")->excludes(json);
  cmd->add_flag("--quiet", opt->quiet, "With --sweep: print nothing unless --json or --prom");
  cmd->add_option("--ca", opt->live.ca, "Local CA the queries go out of (default: the first)");
  cmd->add_option("--ca-port", opt->live.ca_port, "Its port (default: the first active)");
  cmd->add_option("--timeout", opt->live.timeout_ms,
                  "SMP timeout of the discovery in ms (default: libibnetdisc's)");
  return [opt] { return run_health(*opt); };
}

}  // namespace fabricfit::cli
