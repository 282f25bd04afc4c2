// SPDX-License-Identifier: GPL-2.0-or-later
// The fabric snapshot: the Fabric model as `fabricfit discover` built it, saved so that
// the controller loads it without discovering or interpreting anything. A versioned
// binary file with CRC-32C checksums, written atomically; docs/snapshot-format.md
// describes every byte. A snapshot that is truncated, corrupt or of a format version
// this fabricfit does not read is refused whole, never half-loaded.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "topology/fabric.hpp"

namespace fabricfit {

// Written: version 2 (NVLink domains after the warnings) for a fabric with NVLink domains,
// else version 1, which older releases read too. Read: 1 (no domains) and 2.
inline constexpr std::uint32_t kSnapshotVersion = 2;
inline constexpr std::uint32_t kSnapshotOldestVersion = 1;
inline constexpr std::size_t kSnapshotHeaderBytes = 32;

// Where a snapshot came from; not part of the model.
struct SnapshotInfo {
  std::string producer;           // "fabricfit 0.1.0"
  std::int64_t created_unix = 0;  // seconds since the epoch
  // How the model was built (ModelOptions as text: host_pattern, compute_hca_pattern,
  // switch_pattern, node_name_map), so that the same build can be repeated.
  std::vector<std::pair<std::string, std::string>> options;
  friend bool operator==(const SnapshotInfo&, const SnapshotInfo&) = default;
};

struct Snapshot {
  Fabric fabric;
  SnapshotInfo info;
};

// what() names the file and what is wrong with it: "fabric.snap: truncated: ...".
class SnapshotError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[nodiscard]] std::string encode_snapshot(const Fabric& fabric, const SnapshotInfo& info);
// `origin` names the bytes in errors. Throws SnapshotError.
[[nodiscard]] Snapshot decode_snapshot(std::string_view bytes, const std::string& origin);

// Writes through a temporary file and a rename (common/atomic_file.hpp). Throws
// std::system_error.
void save_snapshot(const std::filesystem::path& path, const Fabric& fabric, const SnapshotInfo& info);
// Throws SnapshotError (unreadable files too).
[[nodiscard]] Snapshot load_snapshot(const std::filesystem::path& path);

// What load_snapshot_keeping_last_good used.
struct LastGoodLoad {
  bool from_last_good = false;  // the copy: `error` says why the file itself was not used
  std::string error;            // empty when the file itself was used
};

// Takes a snapshot that loaded (moved from), `origin` naming its file; throws
// SnapshotError naming `origin` to refuse it (a snapshot of another fabric, ...).
using SnapshotUse = std::function<void(Snapshot&& snapshot, const std::string& origin)>;

// The rule both plugins keep a snapshot by (slurmctld's watcher, slurmstepd's tasks):
// loads `path` and hands it to `use`; a snapshot without hosts is refused before that.
// When `use` takes it, a copy of its bytes is kept at `last_good` (empty: none), written
// atomically and only when the copy there differs, so that a reader calling this often
// does not rewrite it. When `path` is missing, does not load or is refused, the copy at
// `last_good` is handed to `use` instead (from_last_good, `error` the file's own error);
// when there is none that loads and is taken, throws the file's SnapshotError. A file
// that does not load never replaces the copy.
LastGoodLoad load_snapshot_keeping_last_good(const std::filesystem::path& path,
                                             const std::filesystem::path& last_good, const SnapshotUse& use);

// True if `prefix` (the first bytes of a file) starts with the snapshot magic.
[[nodiscard]] bool looks_like_snapshot(std::string_view prefix);

}  // namespace fabricfit
