// SPDX-License-Identifier: GPL-2.0-or-later
// fabricfit: the admin command.
#include <fmt/format.h>
#include <exception>
#include <utility>
#include <vector>

#include "cli/commands.hpp"
#include "ff_config.h"

int main(int argc, char** argv) {
  CLI::App app{"fabricfit: topology-aware GPU job placement for Slurm on InfiniBand fabrics"};
  app.set_version_flag("--version", std::string("fabricfit ") + PACKAGE_VERSION);
  app.require_subcommand(1);

  std::vector<std::pair<CLI::App*, fabricfit::cli::Action>> actions;
  const auto remember = [&](fabricfit::cli::Action action) {
    actions.emplace_back(app.get_subcommands({}).back(), std::move(action));
  };
  remember(fabricfit::cli::add_generate_command(app));

  CLI11_PARSE(app, argc, argv);
  try {
    for (auto& [sub, action] : actions) {
      if (sub->parsed()) return action();
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "fabricfit: {}\n", e.what());
    return 1;
  }
  return 2;
}
