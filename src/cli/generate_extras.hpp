// SPDX-License-Identifier: GPL-2.0-or-later
// `fabricfit generate` options for what a site's fabric has besides its Clos: storage
// rail, management hosts, cross-tier cables (topology/generate/clos_extras.hpp).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "topology/generate/clos_extras.hpp"
#include "topology/generate/clos_generator.hpp"

namespace fabricfit::cli {

void add_extras_options(CLI::App& cmd, ClosExtras& extras);

// `generate --planes`: one net file per rail plane next to `output`; returns the exit status.
int write_planes(const ClosSpec& spec, const std::string& output, bool print_nodes);

}  // namespace fabricfit::cli
