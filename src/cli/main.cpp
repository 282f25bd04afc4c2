// SPDX-License-Identifier: GPL-2.0-or-later
// fabricfit: the admin command.
#include <fmt/format.h>
#include <exception>
#include <utility>
#include <vector>

#include "cli/commands.hpp"
#include "ff_config.h"

namespace {

int run(int argc, char** argv) {
  CLI::App app{"fabricfit: topology-aware GPU job placement for Slurm on InfiniBand fabrics"};
  app.set_version_flag("--version", std::string("fabricfit ") + PACKAGE_VERSION);
  app.require_subcommand(1);

  std::vector<std::pair<CLI::App*, fabricfit::cli::Action>> actions;
  const auto remember = [&](fabricfit::cli::Action action) {
    actions.emplace_back(app.get_subcommands({}).back(), std::move(action));
  };
  remember(fabricfit::cli::add_generate_command(app));
  remember(fabricfit::cli::add_discover_command(app));
  remember(fabricfit::cli::add_show_command(app));
  remember(fabricfit::cli::add_diff_command(app));
  remember(fabricfit::cli::add_score_command(app));
  remember(fabricfit::cli::add_frag_command(app));
  remember(fabricfit::cli::add_replay_command(app));
  remember(fabricfit::cli::add_slowdown_command(app));
  remember(fabricfit::cli::add_explain_command(app));
  remember(fabricfit::cli::add_report_command(app));
  remember(fabricfit::cli::add_health_command(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  for (auto& [sub, action] : actions) {
    if (sub->parsed()) return action();
  }
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "fabricfit: {}\n", e.what());
  } catch (...) {
    fmt::print(stderr, "fabricfit: unexpected error\n");
  }
  return 1;
}
