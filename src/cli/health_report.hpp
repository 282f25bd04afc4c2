// SPDX-License-Identifier: GPL-2.0-or-later
// `fabricfit health` output: the links and hosts that are not healthy, with their
// evidence, as text, JSON (docs/commands.md) or Prometheus textfile metrics.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "health/health_model.hpp"

namespace fabricfit::cli {

[[nodiscard]] std::string health_text(const HealthFile& health);
// `ports`: also every port's state, hysteresis and last counters ("ports": [...]).
[[nodiscard]] std::string health_json(const HealthFile& health, bool ports = false);
// The same as a value, for the commands that embed it (`fabricfit show --json`).
[[nodiscard]] nlohmann::ordered_json health_json_value(const HealthFile& health, bool ports = false);
[[nodiscard]] std::string health_prom(const HealthFile& health);
// The hosts whose NVLink is not healthy, as health_text lists them ("" when no report was
// read); and a host's NVLink state in placement's words: "degraded" or "failing".
[[nodiscard]] std::string nvlink_health_text(const HealthFile& health);
[[nodiscard]] std::string_view nvlink_state_name(HealthState state);

}  // namespace fabricfit::cli
