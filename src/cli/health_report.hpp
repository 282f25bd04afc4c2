// SPDX-License-Identifier: GPL-2.0-or-later
// `fabricfit health` output: the links and hosts that are not healthy, with their
// evidence, as text, JSON (docs/commands.md) or Prometheus textfile metrics.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "health/health_model.hpp"

namespace fabricfit::cli {

[[nodiscard]] std::string health_text(const HealthFile& health);
// `ports`: also every port's state, hysteresis and last counters ("ports": [...]).
[[nodiscard]] std::string health_json(const HealthFile& health, bool ports = false);
// The same as a value, for the commands that embed it (`fabricfit show --json`).
[[nodiscard]] nlohmann::ordered_json health_json_value(const HealthFile& health, bool ports = false);
[[nodiscard]] std::string health_prom(const HealthFile& health);

}  // namespace fabricfit::cli
