// SPDX-License-Identifier: GPL-2.0-or-later
// `fabricfit frag SNAPSHOT --busy ...` or `--live`: free capacity per leaf group and the
// fragmentation metric (docs/placement.md), as text, JSON or Prometheus text format. With
// --live the busy GPUs are the running cluster's (Slurm's JSON output), and the running
// jobs' cross-spine share is reported too. On a fabric with NVLink domains, each domain's
// free GPUs and wholly free hosts, and the domain- and half-domain jobs they still hold.
#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/live_jobs.hpp"
#include "cli/placement_input.hpp"
#include "cli/prom_label.hpp"
#include "cli/slurm_cluster.hpp"
#include "placement/domain_fragmentation.hpp"
#include "placement/fragmentation.hpp"

namespace fabricfit::cli {
namespace {

struct FragOptions {
  std::string source;
  std::string busy;
  std::string mix;
  int gpus_per_node = 8;
  bool json = false;
  bool prom = false;
  bool live = false;
  std::string nodes_json, jobs_json;  // --live from files instead of scontrol
  std::string topology_text;          // --live: `scontrol show topology` output from a file
};

int run_frag(const FragOptions& opt) {
  const Fabric fabric = load_fabric(opt.source);
  const LocalityIndex index(fabric);
  if (!opt.live && opt.busy.empty()) throw std::invalid_argument("give --busy or --live");
  const GpuState gpus = opt.live ? gpu_state_of(index, read_nodes(opt.nodes_json))
                                 : busy_state(index, opt.busy, opt.gpus_per_node);
  const int gpus_per_node = opt.live ? std::max(1, gpus.max_gpus_per_host()) : opt.gpus_per_node;
  const WorkloadMix mix =
      opt.mix.empty() ? WorkloadMix::standard(gpus_per_node) : WorkloadMix::parse(opt.mix);
  const FragModel model(mix, gpus_per_node, index.largest_leaf_group());
  const FragmentationReport r = measure_fragmentation(index, gpus, model);
  const DomainFragmentation dom = measure_domain_fragmentation(index, gpus);
  const LiveJobs jobs = opt.live ? live_jobs(index, read_jobs(opt.jobs_json)) : LiveJobs{};
  // slurmctld's view of the snapshot file (the cluster's, not files of another one).
  const std::optional<std::string> ctld_snapshot =
      opt.live && (opt.nodes_json.empty() || !opt.topology_text.empty())
          ? read_slurmctld_snapshot_status(opt.topology_text)
          : std::nullopt;

  if (opt.json) {
    nlohmann::json j = {{"mix", mix.to_string()},     {"free_gpus", r.free_gpus},
                        {"total_gpus", r.total_gpus}, {"unusable_gpus", r.unusable},
                        {"fragmentation", r.frag},    {"leaf_groups", nlohmann::json::array()}};
    for (int l = 0; l < index.leaf_group_count(); ++l) {
      const auto& g = r.leaf_groups[l];
      j["leaf_groups"].push_back({{"name", index.leaf_group(l).name},
                                  {"hosts", g.hosts},
                                  {"whole_free_hosts", g.whole_free_hosts},
                                  {"free_gpus", g.free_gpus},
                                  {"unusable_gpus", g.unusable},
                                  {"fragmentation", g.frag}});
    }
    if (!dom.domains.empty()) {
      j["nvlink_domains"] = nlohmann::json::array();
      for (int d = 0; d < index.domain_count(); ++d) {
        const auto& c = dom.domains[static_cast<std::size_t>(d)];
        j["nvlink_domains"].push_back({{"name", index.domain_name(d)},
                                       {"hosts", c.hosts},
                                       {"whole_free_hosts", c.whole_free_hosts},
                                       {"free_gpus", c.free_gpus},
                                       {"total_gpus", c.total_gpus}});
      }
      j["whole_free_domains"] = dom.whole_free_domains;
      j["half_domain_jobs"] = dom.half_domain_jobs;
    }
    if (opt.live) j["running_jobs"] = jobs.to_json();
    if (ctld_snapshot) {
      j["slurmctld_snapshot"] = {{"ok", snapshot_status_ok(*ctld_snapshot)}, {"status", *ctld_snapshot}};
    }
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  if (opt.prom) {
    fmt::print("# HELP fabricfit_fragmentation Share of free GPUs the workload mix cannot use (0-1).\n");
    fmt::print("# TYPE fabricfit_fragmentation gauge\nfabricfit_fragmentation {}\n", r.frag);
    fmt::print("# HELP fabricfit_free_gpus Free GPUs in the fabric's leaf groups.\n");
    fmt::print("# TYPE fabricfit_free_gpus gauge\nfabricfit_free_gpus {}\n", r.free_gpus);
    fmt::print("# HELP fabricfit_unusable_gpus Free GPUs the workload mix cannot use (weighted).\n");
    fmt::print("# TYPE fabricfit_unusable_gpus gauge\nfabricfit_unusable_gpus {}\n", r.unusable);
    const auto per_group = [&](const char* name, const char* help, auto value) {
      fmt::print("# HELP {} {}\n# TYPE {} gauge\n", name, help, name);
      for (int l = 0; l < index.leaf_group_count(); ++l) {
        fmt::print("{}{{leaf_group=\"{}\"}} {}\n", name, prom_label(index.leaf_group(l).name),
                   value(r.leaf_groups[l]));
      }
    };
    per_group("fabricfit_leaf_group_fragmentation", "Share of the leaf group's free GPUs the mix cannot use.",
              [](const LeafGroupFragmentation& g) { return g.frag; });
    per_group("fabricfit_leaf_group_free_gpus", "Free GPUs in the leaf group.",
              [](const LeafGroupFragmentation& g) { return static_cast<double>(g.free_gpus); });
    per_group("fabricfit_leaf_group_whole_free_hosts", "Hosts with every GPU free in the leaf group.",
              [](const LeafGroupFragmentation& g) { return static_cast<double>(g.whole_free_hosts); });
    per_group("fabricfit_leaf_group_unusable_gpus",
              "Free GPUs in the leaf group the workload mix cannot use.",
              [](const LeafGroupFragmentation& g) { return g.unusable; });
    if (!dom.domains.empty()) {
      const auto per_domain = [&](const char* name, const char* help, auto value) {
        fmt::print("# HELP {} {}\n# TYPE {} gauge\n", name, help, name);
        for (int d = 0; d < index.domain_count(); ++d) {
          fmt::print("{}{{domain=\"{}\"}} {}\n", name, prom_label(index.domain_name(d)),
                     value(dom.domains[static_cast<std::size_t>(d)]));
        }
      };
      per_domain("fabricfit_nvlink_domain_free_gpus", "Free GPUs in the NVLink domain.",
                 [](const DomainFreeCapacity& c) { return c.free_gpus; });
      per_domain("fabricfit_nvlink_domain_whole_free_hosts",
                 "Hosts with every GPU free in the NVLink domain.",
                 [](const DomainFreeCapacity& c) { return c.whole_free_hosts; });
      fmt::print(
          "# HELP fabricfit_nvlink_whole_free_domains NVLink domains with every host free: the "
          "domain-sized jobs that still fit.\n"
          "# TYPE fabricfit_nvlink_whole_free_domains gauge\nfabricfit_nvlink_whole_free_domains {}\n"
          "# HELP fabricfit_nvlink_half_domain_jobs Half-domain jobs of whole hosts the free hosts still "
          "hold, each inside one domain.\n"
          "# TYPE fabricfit_nvlink_half_domain_jobs gauge\nfabricfit_nvlink_half_domain_jobs {}\n",
          dom.whole_free_domains, dom.half_domain_jobs);
    }
    if (opt.live) fmt::print("{}", jobs.to_prometheus());
    if (ctld_snapshot) {
      fmt::print(
          "# HELP fabricfit_snapshot_ok 1 when slurmctld loaded its SnapshotFile; 0 when the file is missing "
          "or bad and slurmctld and the nodes' tasks use a last good copy (scontrol show topology: "
          "Snapshot=).\n"
          "# TYPE fabricfit_snapshot_ok gauge\nfabricfit_snapshot_ok {}\n",
          snapshot_status_ok(*ctld_snapshot) ? 1 : 0);
    }
    return 0;
  }
  fmt::print("{:<24} {:>6} {:>11} {:>10} {:>10} {:>6}\n", "leaf group", "hosts", "whole free", "free GPUs",
             "unusable", "frag");
  for (int l = 0; l < index.leaf_group_count(); ++l) {
    const auto& g = r.leaf_groups[l];
    fmt::print("{:<24} {:>6} {:>11} {:>10} {:>10.1f} {:>6.3f}\n", index.leaf_group(l).name, g.hosts,
               g.whole_free_hosts, g.free_gpus, g.unusable, g.frag);
  }
  fmt::print("\ncluster: {} of {} GPUs free, {:.1f} unusable by the mix: fragmentation {:.3f}\nmix: {}\n",
             r.free_gpus, r.total_gpus, r.unusable, r.frag, mix.to_string());
  if (!dom.domains.empty()) {
    fmt::print("\n{:<24} {:>6} {:>11} {:>10}\n", "NVLink domain", "hosts", "whole free", "free GPUs");
    for (int d = 0; d < index.domain_count(); ++d) {
      const auto& c = dom.domains[static_cast<std::size_t>(d)];
      fmt::print("{:<24} {:>6} {:>11} {:>6}/{:<3}\n", index.domain_name(d), c.hosts, c.whole_free_hosts,
                 c.free_gpus, c.total_gpus);
    }
    fmt::print("domains: {} of {} wholly free; {} half-domain job(s) of whole hosts still fit\n",
               dom.whole_free_domains, dom.domains.size(), dom.half_domain_jobs);
  }
  if (opt.live) fmt::print("{}", jobs.to_text());
  if (ctld_snapshot) fmt::print("slurmctld's snapshot: {}\n", *ctld_snapshot);
  return 0;
}

}  // namespace

Action add_frag_command(CLI::App& app) {
  auto opt = std::make_shared<FragOptions>();
  auto* cmd = app.add_subcommand("frag", "Free capacity per leaf group and the fragmentation metric");
  cmd->add_option("snapshot", opt->source, "A snapshot (or an ibnetdiscover / ibnd cache file)")->required();
  auto* busy =
      cmd->add_option("--busy", opt->busy,
                      "Busy hosts: a hostlist (every GPU busy) or a file of 'HOSTLIST [GPUS_BUSY]' lines");
  cmd->add_flag("--live", opt->live, "Busy GPUs and running jobs from the running cluster (scontrol --json)")
      ->excludes(busy);
  cmd->add_option("--nodes-json", opt->nodes_json,
                  "With --live: `scontrol show nodes --json` output to read");
  cmd->add_option("--jobs-json", opt->jobs_json, "With --live: `scontrol show jobs --json` output to read");
  cmd->add_option("--topology-text", opt->topology_text,
                  "With --live: `scontrol show topology` output to read (slurmctld's snapshot status)");
  cmd->add_option(
      "--mix", opt->mix,
      "Job sizes the metric counts for, GPUS or NODESxGPUS with :WEIGHT, e.g. 1:0.4,8:0.3,2x8:0.3 "
      "(default: 1,2,4,8,2x8,4x8,8x8 equally)");
  cmd->add_option("--gpus-per-node", opt->gpus_per_node, "GPUs on every host")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  auto* json = cmd->add_flag("--json", opt->json, "Print JSON");
  cmd->add_flag("--prom", opt->prom, "Print Prometheus text exposition format")->excludes(json);
  return [opt] { return run_frag(*opt); };
}

}  // namespace fabricfit::cli
