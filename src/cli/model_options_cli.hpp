// SPDX-License-Identifier: GPL-2.0-or-later
// The model options every command that builds a Fabric takes (--host-pattern,
// --compute-hca, --switch-pattern, --node-name-map), and how they are recorded in a
// snapshot so that `diff SNAPSHOT live` rebuilds the live fabric the same way.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "topology/fabric_builder.hpp"
#include "topology/readers/fabric_source.hpp"
#include "topology/snapshot.hpp"

namespace fabricfit::cli {

struct ModelFlags {
  ModelOptions options;  // patterns as given (defaults otherwise)
  std::string node_name_map;
  std::string slurm_nodes;          // a file with NodeName= lines, or a hostlist
  std::vector<CLI::Option*> flags;  // to tell whether any was given
};

// Adds the flags to `cmd`, writing into `flags`.
void add_model_flags(CLI::App& cmd, ModelFlags& flags);

// The ModelOptions the flags say, with the node-name-map loaded. Throws
// NodeNameMapError.
[[nodiscard]] ModelOptions model_options(const ModelFlags& flags);

// ModelOptions as recorded in SnapshotInfo::options, and back (the node-name-map file is
// read again when it still exists).
[[nodiscard]] std::vector<std::pair<std::string, std::string>> describe_options(const ModelOptions& options);
[[nodiscard]] ModelOptions options_from(const SnapshotInfo& info);

// SnapshotInfo for a Fabric built now by this fabricfit.
[[nodiscard]] SnapshotInfo snapshot_info_now(const ModelOptions& options);

// A Fabric from any source (read_fabric), one built now recorded with its options.
[[nodiscard]] Snapshot open_fabric(const std::string& source, SourceFormat format,
                                   const ModelOptions& options, const DiscoveryOptions& live = {});

}  // namespace fabricfit::cli
