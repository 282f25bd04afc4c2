// SPDX-License-Identifier: GPL-2.0-or-later
#include "health/health_model.hpp"

namespace fabricfit {

std::string_view state_name(HealthState s) {
  switch (s) {
    case HealthState::Healthy: return "healthy";
    case HealthState::Congested: return "congested";
    case HealthState::SubHealthy: return "sub-healthy";
    case HealthState::Flapping: return "flapping";
    case HealthState::Down: return "down";
  }
  return "?";
}

std::optional<HealthState> parse_state(std::string_view name) {
  for (const auto s : {HealthState::Healthy, HealthState::Congested, HealthState::SubHealthy,
                       HealthState::Flapping, HealthState::Down}) {
    if (state_name(s) == name) return s;
  }
  return std::nullopt;
}

}  // namespace fabricfit
