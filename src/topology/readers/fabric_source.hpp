// SPDX-License-Identifier: GPL-2.0-or-later
// What `show`, `diff` and `discover --from` accept where a fabric is expected: a
// snapshot, an ibnetdiscover text file, an ibnd cache file (told apart by their first
// bytes), or "live" (discovery through libibnetdisc). Anything but a snapshot is built
// into a Fabric on the spot with the model options given.
#pragma once

#include <optional>
#include <string>

#include "topology/fabric_builder.hpp"
#include "topology/raw_fabric.hpp"
#include "topology/readers/ibnd_reader.hpp"
#include "topology/snapshot.hpp"

namespace fabricfit {

enum class SourceFormat { Auto, Snapshot, Text, Cache };

// "auto", "snapshot", "text", "cache"; nullopt otherwise.
[[nodiscard]] std::optional<SourceFormat> parse_source_format(const std::string& name);

// The format of a file from its first bytes (Text when nothing else fits).
[[nodiscard]] SourceFormat sniff_format(const std::string& path);

// Reads a raw fabric: "live" discovers; a path is read as `format` (Auto: sniffed).
// A snapshot is not raw: asking for one here throws ReaderError.
[[nodiscard]] RawFabric read_raw(const std::string& source, SourceFormat format,
                                 const DiscoveryOptions& live);

// A Fabric from any source: snapshots as saved, the rest built with `options` and
// described by `built` (the options as the command records them).
[[nodiscard]] Snapshot read_fabric(const std::string& source, SourceFormat format,
                                   const ModelOptions& options, const SnapshotInfo& built,
                                   const DiscoveryOptions& live = {});

}  // namespace fabricfit
