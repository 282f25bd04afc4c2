// SPDX-License-Identifier: GPL-2.0-or-later
// Each admin subcommand registers itself on the CLI11 app and runs when chosen.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace fabricfit::cli {

// Adds the subcommand to `app`; returns the action to run when it is selected.
using Action = std::function<int()>;
Action add_generate_command(CLI::App& app);
Action add_discover_command(CLI::App& app);
Action add_show_command(CLI::App& app);
Action add_diff_command(CLI::App& app);
// Placement (docs/placement.md): score, frag, replay.
Action add_score_command(CLI::App& app);
Action add_frag_command(CLI::App& app);
Action add_replay_command(CLI::App& app);
// A job's modelled slowdown on its hosts (the lab's job emulator).
Action add_slowdown_command(CLI::App& app);
// What a job got (docs/commands.md): explain.
Action add_explain_command(CLI::App& app);
Action add_report_command(CLI::App& app);
// Fabric link health (docs/health-format.md): health.
Action add_health_command(CLI::App& app);

}  // namespace fabricfit::cli
