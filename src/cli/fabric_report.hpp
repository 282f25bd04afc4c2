// SPDX-License-Identifier: GPL-2.0-or-later
// `fabricfit show`: a Fabric as text for people and as JSON for programs (the JSON keys
// are listed in docs/commands.md and the man page).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "topology/fabric_diff.hpp"
#include "topology/snapshot.hpp"

namespace fabricfit::cli {

[[nodiscard]] std::string fabric_text(const Snapshot& snapshot);
[[nodiscard]] nlohmann::json fabric_json(const Snapshot& snapshot);

[[nodiscard]] std::string diff_text(const FabricDiff& diff, const std::string& before,
                                    const std::string& after);
[[nodiscard]] nlohmann::json diff_json(const FabricDiff& diff, const std::string& before,
                                       const std::string& after);

// "1.00:1"
[[nodiscard]] std::string ratio_text(double oversubscription);

}  // namespace fabricfit::cli
