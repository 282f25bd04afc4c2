// SPDX-License-Identifier: GPL-2.0-or-later
// The Health* keys of fabricfit.conf: the thresholds of link health (docs/configuration.md).
#pragma once

#include <string>
#include <string_view>

#include "health/health_thresholds.hpp"

namespace fabricfit {

// One of the threshold keys (HealthSymbolBer, HealthFlapCount, ...), any case.
[[nodiscard]] bool is_health_key(std::string_view key);
// Sets the key's value in `t`; the reason when the value is bad (empty when it was taken).
[[nodiscard]] std::string parse_health_setting(std::string_view key, std::string_view value,
                                               HealthThresholds& t);

}  // namespace fabricfit
