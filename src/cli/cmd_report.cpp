// SPDX-License-Identifier: GPL-2.0-or-later
// `fabricfit report SNAPSHOT --html -o FILE`: the fabric, what is free and the last jobs'
// placements on one self-contained page (cli/html_report.hpp).
#include <fmt/format.h>
#include <fstream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/html_report.hpp"
#include "cli/placement_input.hpp"
#include "common/atomic_file.hpp"
#include "site/site_config.hpp"

namespace fabricfit::cli {
namespace {

struct ReportOptions {
  std::string source;
  bool html = false;
  std::string output;
  std::string busy;
  int gpus_per_node = 8;
  std::string nodes_json, jobs_json;
  bool live = false;
  std::string cluster;
  std::string health;  // empty: the conf's HealthFile with --conf, else beside the snapshot
  std::string conf;
};

int run_report(const ReportOptions& opt) {
  const Fabric fabric = load_fabric(opt.source);
  const LocalityIndex index(fabric);
  GpuState gpus = GpuState::uniform(index.host_count(), opt.gpus_per_node);
  std::vector<SlurmJob> jobs;
  std::string cluster = opt.cluster;
  if (opt.live) {
    std::string slurm_cluster;
    gpus = gpu_state_of(index, read_nodes(opt.nodes_json, &slurm_cluster));
    if (cluster.empty()) cluster = slurm_cluster;
    jobs = read_jobs(opt.jobs_json);
  } else if (!opt.busy.empty()) {
    gpus = busy_state(index, opt.busy, opt.gpus_per_node);
  }
  const std::string conf_health = opt.conf.empty() ? std::string() : load_site_config(opt.conf).health_file;
  const auto health = find_health(opt.health, conf_health, opt.source);
  const std::string page = html_report(fabric, index, gpus, jobs, cluster, health ? &*health : nullptr);
  if (opt.output.empty() || opt.output == "-") {
    fmt::print("{}", page);
  } else {
    write_file_atomically(opt.output, page);
  }
  return 0;
}

}  // namespace

Action add_report_command(CLI::App& app) {
  auto opt = std::make_shared<ReportOptions>();
  auto* cmd = app.add_subcommand("report", "A self-contained HTML page of the fabric, free GPUs and jobs");
  cmd->add_option("snapshot", opt->source, "A snapshot (or an ibnetdiscover / ibnd cache file)")->required();
  cmd->add_flag("--html", opt->html, "Write HTML (the only format)")->required();
  cmd->add_option("-o,--output", opt->output, "File to write (default: standard output)");
  auto* live =
      cmd->add_flag("--live", opt->live, "Free GPUs and jobs from the running cluster (scontrol --json)");
  cmd->add_option("--busy", opt->busy,
                  "Busy hosts instead: a hostlist or a file of 'HOSTLIST [GPUS_BUSY]' lines")
      ->excludes(live);
  cmd->add_option("--gpus-per-node", opt->gpus_per_node, "GPUs on every host (without --live)")
      ->capture_default_str();
  cmd->add_option("--nodes-json", opt->nodes_json,
                  "With --live: `scontrol show nodes --json` output to read");
  cmd->add_option("--jobs-json", opt->jobs_json, "With --live: `scontrol show jobs --json` output to read");
  cmd->add_option("--cluster", opt->cluster,
                  "The cluster's name, the page's title (default with --live: Slurm's ClusterName)");
  cmd->add_option(
      "--health", opt->health,
      "A health file (`fabricfit health`) whose unhealthy HCA links and uplinks to mark (default: "
      "the conf's HealthFile with --conf, else the one beside the snapshot when it exists)");
  cmd->add_option("--conf", opt->conf, "fabricfit.conf whose HealthFile to read (default: none)");
  return [opt] { return run_report(*opt); };
}

}  // namespace fabricfit::cli
