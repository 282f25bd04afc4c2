// SPDX-License-Identifier: GPL-2.0-or-later
#include "site/site_config.hpp"

#include "common/atomic_file.hpp"
#include "site/config_values.hpp"
#include "site/health_settings.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>

namespace fabricfit {
namespace {

using conf::key_is;
using conf::parse_int;
using conf::parse_real;

std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// yes/no, true/false, 1/0, on/off as Slurm spells booleans; nullopt for anything else.
std::optional<bool> parse_bool(std::string_view value) {
  for (const auto* yes : {"yes", "true", "1", "on"}) {
    if (key_is(value, yes)) return true;
  }
  for (const auto* no : {"no", "false", "0", "off"}) {
    if (key_is(value, no)) return false;
  }
  return std::nullopt;
}

// One of a key's two words (any case): true for `on`, false for `off`, nullopt for any other.
std::optional<bool> parse_either(std::string_view value, std::string_view on, std::string_view off) {
  if (key_is(value, on)) return true;
  if (key_is(value, off)) return false;
  return std::nullopt;
}

}  // namespace

SiteConfig parse_site_config(const std::string& text, const std::string& origin) {
  SiteConfig config;
  std::istringstream in(text);
  std::string raw;
  int line_no = 0;
  auto fail = [&](const std::string& reason) {
    throw ConfigError(fmt::format("{}:{}: {}", origin, line_no, reason));
  };
  while (std::getline(in, raw)) {
    ++line_no;
    std::string_view line = raw;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) continue;
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) fail(fmt::format("'{}' is not Key=Value", line));
    const auto key = trim(line.substr(0, eq));
    const auto value = trim(line.substr(eq + 1));
    if (key.empty()) fail("missing key before '='");
    if (value.empty()) fail(fmt::format("{} has no value", key));
    if (key_is(key, "SnapshotFile")) {
      config.snapshot_file = std::string(value);
    } else if (key_is(key, "DefaultPattern")) {
      try {
        config.default_pattern = parse_comm_pattern(value);
      } catch (const PatternError& e) {
        fail(fmt::format("DefaultPattern: {}", e.what()));
      }
    } else if (key_is(key, "NcclSettings") || key_is(key, "Sharp") || key_is(key, "Imex")) {
      const auto flag = parse_bool(value);
      if (!flag) fail(fmt::format("{}={} is not yes or no", key, value));
      (key_is(key, "Sharp")  ? config.sharp
       : key_is(key, "Imex") ? config.imex
                             : config.nccl_settings) = *flag;
    } else if (key_is(key, "NcclIbSl") || key_is(key, "NcclIbTc") || key_is(key, "NcclIbGidIndex")) {
      const bool sl = key_is(key, "NcclIbSl");
      const int high = sl ? 15 : 255;
      const auto n = parse_int(value, 0, high);
      if (!n) fail(fmt::format("{}={} is not a number from 0 to {}", key, value, high));
      (sl ? config.nccl_ib_sl : key_is(key, "NcclIbTc") ? config.nccl_ib_tc : config.nccl_ib_gid_index) = *n;
    } else if (key_is(key, "NcclSocketIfname")) {
      if (value.find_first_of(" \t") != std::string_view::npos) fail("NcclSocketIfname has a space in it");
      config.nccl_socket_ifname = std::string(value);
    } else if (key_is(key, "LocalityWaitMax")) {
      // Seconds, at most a week (Slurm's max_switch_wait is seconds too).
      const auto n = parse_int(value, 0, 7 * 24 * 3600);
      if (!n) fail(fmt::format("LocalityWaitMax={} is not a number of seconds from 0 to 604800", value));
      config.locality_wait_max_s = *n;
    } else if (key_is(key, "LocalityWaitCommShare")) {
      const auto f = parse_real(value, 0, 1);
      if (!f) fail(fmt::format("LocalityWaitCommShare={} is not a number from 0 to 1", value));
      config.locality_wait_comm_share = *f;
    } else if (key_is(key, "LocalityWaitRouting")) {
      const auto on = parse_either(value, "static", "ecmp");
      if (!on) fail(fmt::format("LocalityWaitRouting={} is not ecmp or static", value));
      config.locality_wait_static_routing = *on;
    } else if (key_is(key, "LocalityWaitEstimate")) {
      const auto on = parse_either(value, "history", "limit");
      if (!on) fail(fmt::format("LocalityWaitEstimate={} is not limit or history", value));
      config.locality_wait_history_estimate = *on;
    } else if (key_is(key, "HealthFile")) {
      config.health_file = std::string(value);
    } else if (key_is(key, "NvlinkReport")) {
      config.nvlink_report = std::string(value);
    } else if (key_is(key, "NvlinkReportMaxAge")) {
      const auto n = parse_int(value, 0, 7 * 24 * 3600);
      if (!n) fail(fmt::format("NvlinkReportMaxAge={} is not a number of seconds from 0 to 604800", value));
      config.nvlink_report_max_age_s = *n;
    } else if (key_is(key, "HealthMaxAge")) {
      // Seconds since the health file's last sweep after which placement ignores it.
      const auto n = parse_int(value, 0, 7 * 24 * 3600);
      if (!n) fail(fmt::format("HealthMaxAge={} is not a number of seconds from 0 to 604800", value));
      config.health_max_age_s = *n;
    } else if (key_is(key, "HealthDrain")) {
      const auto flag = parse_bool(value);
      if (!flag) fail(fmt::format("HealthDrain={} is not yes or no", value));
      config.health_drain = *flag;
    } else if (key_is(key, "HealthDrainMax")) {
      const auto n = parse_int(value, 0, 100000);
      if (!n) fail(fmt::format("HealthDrainMax={} is not a number of nodes from 0 to 100000", value));
      config.health_drain_max = *n;
    } else if (is_health_key(key)) {
      if (auto error = parse_health_setting(key, value, config.health); !error.empty()) fail(error);
    } else if (key_is(key, "DebugFlags")) {
      // Comma-separated, as Slurm's DebugFlags; "none" clears them.
      config.debug_placement = false;
      std::string_view rest = value;
      while (!rest.empty()) {
        const auto comma = rest.find(',');
        const auto flag = trim(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        if (key_is(flag, "Placement")) {
          config.debug_placement = true;
        } else if (!key_is(flag, "none")) {
          fail(fmt::format("DebugFlags: unknown flag '{}' (known: Placement)", flag));
        }
      }
    } else {
      fail(fmt::format("unknown key '{}'", key));
    }
  }
  return config;
}

namespace {

// The text of a regular file; nullopt when it does not exist. Throws ConfigError.
std::optional<std::string> read_config_text(const std::filesystem::path& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found) return std::nullopt;
  if (status.type() != std::filesystem::file_type::regular) {
    throw ConfigError(fmt::format("{}: not a regular file", path.string()));
  }
  std::ifstream in(path);
  if (!in) throw ConfigError(fmt::format("{}: cannot be read", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ConfigError(fmt::format("{}: read error", path.string()));
  return text.str();
}

}  // namespace

SiteConfigLoad load_site_config_keeping_last_good(const std::filesystem::path& path,
                                                  const std::filesystem::path& last_good) {
  SiteConfigLoad result;
  try {
    const auto text = read_config_text(path);
    result.config = text ? parse_site_config(*text, path.string()) : SiteConfig{};
    result.source = SiteConfigLoad::Source::File;
    if (!last_good.empty()) {
      try {
        write_file_atomically(last_good, text.value_or(""));
      } catch (const std::exception&) {
        // Keeping a copy is a convenience; the file itself was good.
      }
    }
    return result;
  } catch (const ConfigError& e) {
    result.error = e.what();
  }
  if (!last_good.empty()) {
    try {
      if (const auto text = read_config_text(last_good)) {
        result.config = parse_site_config(*text, last_good.string());
        result.source = SiteConfigLoad::Source::LastGood;
        return result;
      }
    } catch (const ConfigError&) {
      // A damaged copy is no better than none: fall through to the defaults.
    }
  }
  result.config = SiteConfig{};
  result.source = SiteConfigLoad::Source::Defaults;
  return result;
}

std::filesystem::path default_site_config_path(const char* slurm_conf) {
  if (slurm_conf == nullptr || *slurm_conf == '\0') return "/etc/slurm/fabricfit.conf";
  const std::filesystem::path dir = std::filesystem::path(slurm_conf).parent_path();
  return (dir.empty() ? std::filesystem::path(".") : dir) / "fabricfit.conf";
}

SiteConfig load_site_config(const std::filesystem::path& path) {
  const auto text = read_config_text(path);
  return text ? parse_site_config(*text, path.string()) : SiteConfig{};
}

}  // namespace fabricfit
