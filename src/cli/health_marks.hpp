// SPDX-License-Identifier: GPL-2.0-or-later
// The health file laid over the fabric for the commands admins already read (`show`,
// `report --html`, `explain`): which hosts' HCA links and which leaf groups' uplinks are
// not healthy, and one line of evidence for each.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "health/health_model.hpp"
#include "topology/fabric.hpp"

namespace fabricfit::cli {

struct HealthMarks {
  std::vector<std::vector<LinkStatus>> hosts;    // by host index: its HCA links not healthy
  std::vector<std::vector<LinkStatus>> uplinks;  // by leaf group: its leaves' uplinks not healthy
  [[nodiscard]] bool empty() const;
};

// Links are matched to the fabric by their ends' GUIDs: names can be remapped between the
// sweep and the snapshot (node-name-map), GUIDs cannot.
[[nodiscard]] HealthMarks health_marks(const Fabric& fabric, const HealthFile& health);

// The worst state of `links` (Healthy when empty).
[[nodiscard]] HealthState worst_state(const std::vector<LinkStatus>& links);

// "a[1] -- b[2]"
[[nodiscard]] std::string link_name(const LinkStatus& link);
// The evidence a reader needs first: "LinkDownedCounter 2 in_window at gpu003 mlx5_0[1]".
[[nodiscard]] std::string main_evidence(const LinkStatus& link);

// The health file a command reads: `explicit_path` when given (it must load), else the
// conf's HealthFile when a conf is given, else the one beside `snapshot`; a default that
// does not exist is no health file, not an error. Throws HealthFileError.
[[nodiscard]] std::optional<HealthFile> find_health(const std::string& explicit_path,
                                                    const std::filesystem::path& conf_health_file,
                                                    const std::filesystem::path& snapshot);

// `fabricfit show`'s health section: text and the "health" JSON object (the shape of
// `fabricfit health --json`, plus the leaf groups with unhealthy uplinks).
[[nodiscard]] std::string show_health_text(const Fabric& fabric, const HealthFile& health);
[[nodiscard]] nlohmann::json show_health_json(const Fabric& fabric, const HealthFile& health);

}  // namespace fabricfit::cli
