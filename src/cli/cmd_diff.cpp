// SPDX-License-Identifier: GPL-2.0-or-later
// `fabricfit diff A B`: what changed between two fabrics (snapshots, discovery files or
// "live"): links gone or added, speed/width changes, hosts missing or moved, leaf groups
// that lost capacity.
#include <fmt/format.h>
#include <memory>

#include "cli/commands.hpp"
#include "cli/fabric_report.hpp"
#include "cli/model_options_cli.hpp"
#include "topology/fabric_diff.hpp"
#include "topology/readers/fabric_source.hpp"

namespace fabricfit::cli {
namespace {

struct DiffOptions {
  std::string before, after;
  bool json = false;
  DiscoveryOptions live;
  ModelFlags model;
};

int print(const Snapshot& before, const Snapshot& after, const DiffOptions& opt) {
  const FabricDiff d = diff_fabrics(before.fabric, after.fabric);
  if (opt.json) {
    fmt::print("{}\n", diff_json(d, opt.before, opt.after).dump(2));
  } else {
    fmt::print("{}", diff_text(d, opt.before, opt.after));
  }
  return 0;
}

bool is_snapshot(const std::string& source) {
  return source != "live" && sniff_format(source) == SourceFormat::Snapshot;
}

int run_diff(const DiffOptions& opt) {
  const bool model_flags_given = std::any_of(opt.model.flags.begin(), opt.model.flags.end(),
                                             [](const CLI::Option* o) { return o->count() > 0; });
  const ModelOptions flags = model_options(opt.model);
  // A discovery compared with a snapshot is built the way the snapshot was, unless the
  // command line says otherwise: the same subnet then gives no differences. (Snapshots
  // are initialised, never assigned: assigning a Fabric copies its graph.)
  if (!model_flags_given && !is_snapshot(opt.before) && is_snapshot(opt.after)) {
    const Snapshot after = load_snapshot(opt.after);
    const Snapshot before = open_fabric(opt.before, SourceFormat::Auto, options_from(after.info), opt.live);
    return print(before, after, opt);
  }
  const Snapshot before = open_fabric(opt.before, SourceFormat::Auto, flags, opt.live);
  const bool reuse = !model_flags_given && is_snapshot(opt.before);
  const Snapshot after =
      open_fabric(opt.after, SourceFormat::Auto, reuse ? options_from(before.info) : flags, opt.live);
  return print(before, after, opt);
}

}  // namespace

Action add_diff_command(CLI::App& app) {
  auto opt = std::make_shared<DiffOptions>();
  auto* cmd = app.add_subcommand("diff",
                                 "Compare two fabrics: links gone or added, speed/width changes, hosts "
                                 "missing or moved, capacity lost");
  cmd->add_option("before", opt->before,
                  "A snapshot, an ibnetdiscover text file, an ibnd cache file, or 'live'")
      ->required();
  cmd->add_option("after", opt->after, "The same kinds of source, e.g. 'live'")->required();
  cmd->add_flag("--json", opt->json, "Print JSON");
  cmd->add_option("--ca", opt->live.ca, "live: local CA to discover from (default: the first)");
  cmd->add_option("--port", opt->live.ca_port, "live: its port (default: the first active)");
  add_model_flags(*cmd, opt->model);
  return [opt] { return run_diff(*opt); };
}

}  // namespace fabricfit::cli
