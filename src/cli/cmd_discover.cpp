// SPDX-License-Identifier: GPL-2.0-or-later
// `fabricfit discover -o SNAPSHOT`: discovers the subnet (live through libibnetdisc, or
// from an ibnetdiscover text or ibnd cache file), builds the Fabric model and writes
// it as a snapshot, atomically. A partial discovery is refused unless --allow-partial,
// and is then marked partial in the snapshot. --blocks adds the NVLink domains of a
// Slurm block topology.conf or topology.yaml, --nvlink-report those the nodes' own
// `nvidia-smi -q` report; a file that does not read whole writes no snapshot.
#include <fmt/format.h>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "cli/commands.hpp"
#include "cli/model_options_cli.hpp"
#include "common/hostlist.hpp"
#include "topology/fabric_builder.hpp"
#include "topology/readers/fabric_source.hpp"
#include "topology/readers/ibnd_planes.hpp"
#include "topology/readers/nvlink_report_domains.hpp"
#include "topology/readers/slurm_topology_yaml.hpp"
#include "topology/slurm_blocks.hpp"
#include "topology/subnet_merge.hpp"

namespace fabricfit::cli {
namespace {

// ", N host(s) in none: HOSTLIST" when some compute hosts are in no NVLink domain: a node
// whose report never came (or a rack the blocks file left out) stands out at discovery.
std::string in_no_domain(const Fabric& fabric) {
  std::vector<char> in(fabric.hosts.size(), 0);
  for (const NvlinkDomain& d : fabric.nvlink_domains) {
    for (const int h : d.hosts) in[static_cast<std::size_t>(h)] = 1;
  }
  std::vector<std::string> none;
  for (std::size_t h = 0; h < fabric.hosts.size(); ++h) {
    if (!in[h] && fabric.hosts[h].leaf_group >= 0) none.push_back(fabric.hosts[h].name);
  }
  if (none.empty()) return "";
  return fmt::format(", {} host(s) in none: {}", none.size(), compress_hostlist(none));
}

// Exit status when a partial discovery is refused: a timer unit can tell it from a
// failure to discover at all.
constexpr int kPartialRefused = 3;

struct DiscoverOptions {
  std::vector<std::string> from;  // one per subnet (rail plane)
  std::vector<std::string> cas;   // local CAs to discover from; empty: every active port
  std::string format = "auto";
  std::string output;
  std::string blocks;           // a topology.conf or .yaml with blocks: the NVLink domains
  std::string blocks_topology;  // which topology of a topology.yaml (empty: its default)
  std::string nvlink_report;    // the nodes' nvidia-smi -q: the NVLink domains they report
  bool allow_partial = false;
  bool quiet = false;
  DiscoveryOptions live;
  ModelFlags model;
};

int run_discover(const DiscoverOptions& opt) {
  const auto format = parse_source_format(opt.format);
  if (!format || *format == SourceFormat::Snapshot) {
    throw CLI::ValidationError("--format", "must be auto, text or cache");
  }
  const ModelOptions options = model_options(opt.model);
  // Read before discovering, so that a bad file fails fast; resolved against the hosts after.
  std::optional<SlurmBlocks> blocks;
  if (!opt.blocks.empty()) blocks = load_slurm_block_file(opt.blocks, opt.blocks_topology);
  std::optional<NvlinkReport> report;
  NvlinkReportDomains reported;
  if (!opt.nvlink_report.empty()) {
    report = load_nvlink_report(opt.nvlink_report);
    reported = group_nvlink_report(*report);
  }
  std::vector<RawFabric> subnets;
  if (opt.from.empty()) {
    subnets = discover_subnets(opt.live, opt.cas);
  } else {
    for (const auto& f : opt.from) subnets.push_back(read_raw(f, *format, opt.live));
  }
  const RawFabric raw = merge_subnets(std::move(subnets));
  if (raw.partial && !opt.allow_partial) {
    std::string missing;
    for (std::size_t i = 0; i < raw.unreachable.size() && i < 10; ++i) missing += "\n  " + raw.unreachable[i];
    if (raw.unreachable.size() > 10) missing += fmt::format("\n  and {} more", raw.unreachable.size() - 10);
    fmt::print(stderr,
               "fabricfit: the discovery ({}) was partial, {} node(s) or port(s) not reached:{}\n"
               "fabricfit: {} not written; rerun, or pass --allow-partial to write it marked partial\n",
               raw.origin, raw.unreachable.size(), missing, opt.output);
    return kPartialRefused;
  }
  Fabric fabric = build_fabric(raw, options);
  SnapshotInfo info = snapshot_info_now(options);
  if (blocks) {
    set_nvlink_domains(fabric, domains_of_blocks(*blocks, fabric));
    info.options.emplace_back("nvlink_blocks", std::filesystem::absolute(opt.blocks).string());
    if (!blocks->topology.empty()) info.options.emplace_back("nvlink_blocks_topology", blocks->topology);
  }
  if (report) {
    set_nvlink_domains(fabric, domains_of_nvlink_report(*report, reported, fabric, reported.warnings));
    info.options.emplace_back("nvlink_report", std::filesystem::absolute(opt.nvlink_report).string());
    // Even with --quiet: a tray left out of its domain is a fault to see, not progress.
    for (const std::string& w : reported.warnings) fmt::print(stderr, "fabricfit: warning: {}\n", w);
  }
  save_snapshot(opt.output, fabric, info);
  if (!opt.quiet) {
    fmt::print(
        "{}: {} hosts, {} leaf groups, {} rail(s), {} tier(s), {} degraded link(s), {} warning(s){}{}\n",
        opt.output, fabric.hosts.size(), fabric.leaf_groups.size(), fabric.rails, fabric.tiers,
        fabric.degraded_links.size(), fabric.warnings.size(),
        blocks || report
            ? fmt::format(", {} NVLink domain(s){}", fabric.nvlink_domains.size(), in_no_domain(fabric))
            : "",
        fabric.partial ? " (PARTIAL)" : "");
  }
  return 0;
}

}  // namespace

Action add_discover_command(CLI::App& app) {
  auto opt = std::make_shared<DiscoverOptions>();
  auto* cmd = app.add_subcommand("discover", "Discover the fabric and write a snapshot for the plugin");
  cmd->add_option("--from", opt->from,
                  "Read ibnetdiscover text or ibnd cache files instead of discovering live; several files "
                  "are several subnets (one per rail plane), merged into one fabric")
      ->check(CLI::ExistingFile);
  cmd->add_option("--format", opt->format, "How to read --from: auto, text or cache")->capture_default_str();
  cmd->add_option("--ca", opt->cas,
                  "Local CA to discover from; several: one subnet each (default: every active local port, "
                  "each subnet once)");
  cmd->add_option("--port", opt->live.ca_port, "Their port (default: the first active)");
  cmd->add_option("--timeout", opt->live.timeout_ms, "SMP timeout in ms (default: libibnetdisc's)");
  cmd->add_option("--retries", opt->live.retries, "SMP retries (default: libibnetdisc's)");
  cmd->add_option("--max-smps", opt->live.max_smps, "SMPs in flight at once (more is faster; default 2)");
  auto* blocks =
      cmd->add_option("--blocks", opt->blocks,
                      "Slurm topology.conf with topology/block BlockName=NAME Nodes=HOSTLIST lines, or "
                      "topology.yaml with a block section: each block is an NVLink domain (e.g. an NVL72 "
                      "rack); every node must be a host of the fabric")
          ->check(CLI::ExistingFile);
  cmd->add_option("--blocks-topology", opt->blocks_topology,
                  "The topology of a --blocks topology.yaml to read (default: the cluster_default one if it "
                  "has blocks, else the only one with blocks)")
      ->needs("--blocks");
  cmd->add_option("--nvlink-report", opt->nvlink_report,
                  "The nodes' `nvidia-smi -q` (pdsh or clush output, or a directory of one file per node): "
                  "nodes whose GPUs report the same Fabric ClusterUUID and CliqueId are an NVLink domain; "
                  "every node must be a host of the fabric")
      ->check(CLI::ExistingPath)
      ->excludes(blocks);
  cmd->add_flag("--allow-partial", opt->allow_partial,
                "Write a snapshot even if discovery missed part of the subnet (marked partial)");
  cmd->add_flag("-q,--quiet", opt->quiet, "Print nothing on success");
  cmd->add_option("-o,--output", opt->output, "Snapshot file to write (atomically)")->required();
  add_model_flags(*cmd, opt->model);
  return [opt] { return run_discover(*opt); };
}

}  // namespace fabricfit::cli
