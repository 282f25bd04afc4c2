// SPDX-License-Identifier: GPL-2.0-or-later
#include "site/health_settings.hpp"

#include <fmt/format.h>
#include <array>

#include "site/config_values.hpp"

namespace fabricfit {
namespace {

struct RealKey {
  std::string_view name;
  double HealthThresholds::*field;
  double low, high;
};
struct IntKey {
  std::string_view name;
  int HealthThresholds::*field;
  int low, high;
};

constexpr std::array kReals{
    RealKey{"HealthSymbolBer", &HealthThresholds::symbol_ber, 0, 1},
    RealKey{"HealthLinkErrorsPerHour", &HealthThresholds::link_errors_per_hour, 0, 1e9},
    RealKey{"HealthPacketErrorsPerHour", &HealthThresholds::packet_errors_per_hour, 0, 1e12},
    RealKey{"HealthFlapWindow", &HealthThresholds::flap_window_s, 1, 7 * 24 * 3600},
    RealKey{"HealthCongestionShare", &HealthThresholds::congestion_share, 0, 1},
    RealKey{"HealthSweepTimeout", &HealthThresholds::sweep_timeout_s, 1, 3600},
};
constexpr std::array kInts{
    IntKey{"HealthFlapCount", &HealthThresholds::flap_count, 1, 255},
    IntKey{"HealthEnterSweeps", &HealthThresholds::enter_sweeps, 1, 100},
    IntKey{"HealthLeaveSweeps", &HealthThresholds::leave_sweeps, 1, 100},
    IntKey{"HealthQueryTimeout", &HealthThresholds::query_timeout_ms, 1, 60000},
};

}  // namespace

bool is_health_key(std::string_view key) {
  for (const auto& k : kReals)
    if (conf::key_is(key, k.name)) return true;
  for (const auto& k : kInts)
    if (conf::key_is(key, k.name)) return true;
  return false;
}

std::string parse_health_setting(std::string_view key, std::string_view value, HealthThresholds& t) {
  for (const auto& k : kReals) {
    if (!conf::key_is(key, k.name)) continue;
    const auto x = conf::parse_real(value, k.low, k.high);
    if (!x) return fmt::format("{}={} is not a number from {} to {}", k.name, value, k.low, k.high);
    t.*k.field = *x;
    return {};
  }
  for (const auto& k : kInts) {
    if (!conf::key_is(key, k.name)) continue;
    const auto n = conf::parse_int(value, k.low, k.high);
    if (!n) return fmt::format("{}={} is not a whole number from {} to {}", k.name, value, k.low, k.high);
    t.*k.field = *n;
    return {};
  }
  return fmt::format("unknown key '{}'", key);
}

}  // namespace fabricfit
