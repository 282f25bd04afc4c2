// SPDX-License-Identifier: GPL-2.0-or-later
#include "replay/fault_plan.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <random>

#include "placement/locality_index.hpp"

namespace fabricfit {
namespace {

// Llama 3 405B's training (Meta, 2024: 54 days on 16,384 H100): 35 of its 419 unexpected
// interruptions were network switches and cables, about 32,768 links (8 HCA links per host
// and as many switch links): 35 / 54 / 32,768 = 2e-5 per link and day. Sub-healthy links
// are taken as common as failing ones (no published rate per link that we could verify).
constexpr double kLlama3PerLinkDay = 2e-5;
// Stress: 1,000 times that, so that a replay of a few weeks on 80 hosts sees dozens of
// episodes: a scale to tell policies apart, not a forecast.
constexpr double kStressPerLinkDay = 2e-2;

double number(const std::string& key, const std::string& value, double lo, double hi) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || value.empty() || !std::isfinite(v)) {
    throw FaultSpecError(fmt::format("--faults: {}={}: not a number", key, value));
  }
  if (v < lo || v > hi)
    throw FaultSpecError(fmt::format("--faults: {}={}: must be in [{:g}, {:g}]", key, value, lo, hi));
  return v;
}

// Uniform in [0, 1) from 53 bits: the same draws on every platform (the standard
// distributions' algorithms are the library's choice).
double uniform(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

// Poisson episode starts over [t0, t1) at `per_day` for one link.
void draw(std::vector<FaultEpisode>& out, std::mt19937_64& rng, double per_day, FaultKind kind,
          FaultTarget target, int where, double t0, double t1, double episode_s) {
  if (per_day <= 0) return;
  const double per_s = per_day / 86400.0;
  for (double t = t0;;) {
    t += -std::log1p(-uniform(rng)) / per_s;
    if (t >= t1) return;
    out.push_back(FaultEpisode{kind, target, where, t, t + episode_s});
  }
}

// One key=value item of the spec.
void apply(FaultRates& r, const std::string& key, const std::string& value) {
  if (key == "host-flap") {
    r.host_flap = number(key, value, 0, 1e3);
  } else if (key == "uplink-flap") {
    r.uplink_flap = number(key, value, 0, 1e3);
  } else if (key == "uplink-slow") {
    r.uplink_slow = number(key, value, 0, 1e3);
  } else if (key == "nvlink-flap") {
    r.nvlink_flap = number(key, value, 0, 1e3);
  } else if (key == "nvlink-slow") {
    r.nvlink_slow = number(key, value, 0, 1e3);
  } else if (key == "slow-keeps") {
    r.slow_keeps = number(key, value, 0.01, 1);
  } else if (key == "episode") {
    r.episode_s = number(key, value, 1, 1e8);
  } else if (key == "flap-every") {
    r.flap_every_s = number(key, value, 1, 1e8);
  } else if (key == "detect") {
    r.detect_s = number(key, value, 0, 1e8);
  } else if (key == "checkpoint") {
    r.checkpoint_s = number(key, value, 1, 1e8);
  } else {
    throw FaultSpecError(
        fmt::format("--faults: {}: unknown key (host-flap, uplink-flap, uplink-slow, nvlink-flap, "
                    "nvlink-slow, slow-keeps, episode, flap-every, detect, checkpoint)",
                    key));
  }
}

}  // namespace

std::string FaultRates::to_string() const {
  // nvlink-* only when set: the IB-only runs print as they always did.
  std::string nvlink = nvlink_flap > 0 ? fmt::format(",nvlink-flap={:g}", nvlink_flap) : "";
  if (nvlink_slow > 0) nvlink += fmt::format(",nvlink-slow={:g}", nvlink_slow);
  return fmt::format(
      "host-flap={:g},uplink-flap={:g},uplink-slow={:g},slow-keeps={:g},episode={:g},flap-every={:g},detect={"
      ":g},"
      "checkpoint={:g}{}",
      host_flap, uplink_flap, uplink_slow, slow_keeps, episode_s, flap_every_s, detect_s, checkpoint_s,
      nvlink);
}

FaultRates parse_fault_spec(const std::string& spec) {
  FaultRates r;
  std::string_view text = spec;
  for (bool first = true;; first = false) {
    const auto comma = text.find(',');
    const std::string item(text.substr(0, comma));
    if (item.empty()) throw FaultSpecError(fmt::format("--faults: '{}': empty item", spec));
    const auto eq = item.find('=');
    if (eq != std::string::npos) {
      apply(r, item.substr(0, eq), item.substr(eq + 1));
    } else if (!first) {
      throw FaultSpecError(fmt::format("--faults: {}: not key=value (a preset comes first)", item));
    } else if (item == "stress" || item == "llama3") {
      r.host_flap = r.uplink_flap = r.uplink_slow = item == "stress" ? kStressPerLinkDay : kLlama3PerLinkDay;
    } else if (item != "none") {
      throw FaultSpecError(
          fmt::format("--faults: {}: unknown preset (stress, llama3, none) or key=value", item));
    }
    if (comma == std::string_view::npos) break;
    text = text.substr(comma + 1);
  }
  return r;
}

std::vector<FaultEpisode> plan_faults(const LocalityIndex& index, const FaultRates& rates, double t0,
                                      double t1, std::uint64_t seed) {
  std::vector<FaultEpisode> out;
  // One stream per kind, so that turning one kind off leaves the others' episodes as they were.
  std::mt19937_64 hosts(seed * 0x9E3779B97F4A7C15ULL + 1), flaps(seed * 0x9E3779B97F4A7C15ULL + 2),
      slows(seed * 0x9E3779B97F4A7C15ULL + 3), nvlinks(seed * 0x9E3779B97F4A7C15ULL + 4),
      nvlink_slows(seed * 0x9E3779B97F4A7C15ULL + 5);
  for (int h = 0; h < index.host_count(); ++h) {
    if (index.leaf_group_of(h) < 0) continue;
    draw(out, hosts, rates.host_flap, FaultKind::Flap, FaultTarget::HostLink, h, t0, t1, rates.episode_s);
  }
  for (int h = 0; h < index.host_count(); ++h) {
    if (!index.domain_of(h) || index.leaf_group_of(h) < 0) continue;
    draw(out, nvlinks, rates.nvlink_flap, FaultKind::Flap, FaultTarget::Nvlink, h, t0, t1, rates.episode_s);
    draw(out, nvlink_slows, rates.nvlink_slow, FaultKind::Slow, FaultTarget::Nvlink, h, t0, t1,
         rates.episode_s);
  }
  for (int l = 0; l < index.leaf_group_count(); ++l) {
    const int cables = std::max(0, index.leaf_group(l).uplinks);
    for (int c = 0; c < cables; ++c) {
      draw(out, flaps, rates.uplink_flap, FaultKind::Flap, FaultTarget::Uplink, l, t0, t1, rates.episode_s);
      draw(out, slows, rates.uplink_slow, FaultKind::Slow, FaultTarget::Uplink, l, t0, t1, rates.episode_s);
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const FaultEpisode& a, const FaultEpisode& b) { return a.start_s < b.start_s; });
  return out;
}

}  // namespace fabricfit
