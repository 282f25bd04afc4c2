// SPDX-License-Identifier: GPL-2.0-or-later
// `fabricfit show SOURCE`: tiers, leaf groups, oversubscription, degraded links and
// warnings of a snapshot (or of a discovery file or the live subnet, built on the spot);
// as text, JSON, or a Slurm topology.conf (topology/tree's switches, or topology/block's
// blocks from the NVLink domains).
#include <fmt/format.h>
#include <memory>

#include "cli/commands.hpp"
#include "cli/fabric_report.hpp"
#include "cli/health_marks.hpp"
#include "cli/model_options_cli.hpp"
#include "site/site_config.hpp"
#include "topology/readers/fabric_source.hpp"
#include "topology/slurm_blocks.hpp"
#include "topology/slurm_topology.hpp"

namespace fabricfit::cli {
namespace {

struct ShowOptions {
  std::string source;
  std::string format = "auto";
  bool json = false;
  bool topology_conf = false;
  bool block_conf = false;
  std::string health;  // empty: the conf's HealthFile with --conf, else beside a snapshot
  std::string conf;    // empty: none (show reads no conf unless told to)
  ModelFlags model;
};

int run_show(const ShowOptions& opt) {
  const auto format = parse_source_format(opt.format);
  if (!format) throw CLI::ValidationError("--format", "must be auto, snapshot, text or cache");
  const bool model_flags_given = std::any_of(opt.model.flags.begin(), opt.model.flags.end(),
                                             [](const CLI::Option* o) { return o->count() > 0; });
  const bool is_snapshot =
      opt.source != "live" &&
      (*format == SourceFormat::Snapshot ||
       (*format == SourceFormat::Auto && sniff_format(opt.source) == SourceFormat::Snapshot));
  if (is_snapshot && model_flags_given) {
    throw std::invalid_argument(
        fmt::format("{} is a snapshot, already built; --host-pattern, --compute-hca, --switch-pattern and "
                    "--node-name-map "
                    "apply to discoveries (rerun `fabricfit discover` with them)",
                    opt.source));
  }
  const Snapshot s = open_fabric(opt.source, *format, model_options(opt.model));
  if (opt.topology_conf) {
    fmt::print("{}", slurm_topology_conf(s.fabric));
    return 0;
  }
  if (opt.block_conf) {
    // What a site going back to topology/block (or to it for the first time) needs: its
    // BlockName lines, the domains as the snapshot has them however they were found.
    if (s.fabric.nvlink_domains.empty()) {
      throw std::invalid_argument(
          fmt::format("{} has no NVLink domains: nothing to write as topology/block's BlockName lines "
                      "(discover with --blocks or --nvlink-report)",
                      opt.source));
    }
    fmt::print("{}", slurm_block_lines(blocks_of_domains(s.fabric), s.fabric.origin));
    return 0;
  }
  const std::string conf_health = opt.conf.empty() ? std::string() : load_site_config(opt.conf).health_file;
  const auto health = find_health(opt.health, conf_health, is_snapshot ? opt.source : std::string());
  if (opt.json) {
    auto j = fabric_json(s);
    if (health) j["health"] = show_health_json(s.fabric, *health);
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}{}", fabric_text(s), health ? show_health_text(s.fabric, *health) : "");
  }
  return 0;
}

}  // namespace

Action add_show_command(CLI::App& app) {
  auto opt = std::make_shared<ShowOptions>();
  auto* cmd = app.add_subcommand(
      "show", "Show a fabric: tiers, leaf groups, oversubscription, degraded links and warnings");
  cmd->add_option("source", opt->source,
                  "A snapshot, an ibnetdiscover text file, an ibnd cache file, or 'live'")
      ->required();
  cmd->add_option("--format", opt->format, "How to read SOURCE: auto, snapshot, text or cache")
      ->capture_default_str();
  auto* json = cmd->add_flag("--json", opt->json, "Print JSON (keys in docs/commands.md)");
  auto* tree = cmd->add_flag("--slurm-topology-conf", opt->topology_conf,
                             "Print a Slurm topology.conf (topology/tree) for the fabric, with a single root")
                   ->excludes(json);
  auto* block =
      cmd->add_flag("--slurm-block-conf", opt->block_conf,
                    "Print the NVLink domains as Slurm topology.conf BlockName= lines (topology/block)")
          ->excludes(json)
          ->excludes(tree);
  cmd->add_option("--health", opt->health,
                  "A health file (`fabricfit health`) whose unhealthy links to mark (default: the conf's "
                  "HealthFile with --conf, else the one beside a snapshot SOURCE when it exists)")
      ->excludes(tree)
      ->excludes(block);
  cmd->add_option("--conf", opt->conf, "fabricfit.conf whose HealthFile to read (default: none)");
  add_model_flags(*cmd, opt->model);
  return [opt] { return run_show(*opt); };
}

}  // namespace fabricfit::cli
