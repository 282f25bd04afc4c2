// SPDX-License-Identifier: GPL-2.0-or-later
// The fabric's health at the C edge, for topology/fabricfit: a health file read off
// slurmctld's locks, and the view of it the engine places by (health_view.hpp).
#include <fmt/format.h>
#include <algorithm>
#include <memory>
#include <string>

#include "capi/c_edge.hpp"
#include "capi/engine_state.hpp"
#include "capi/fabricfit_api.h"
#include "health/health_file.hpp"
#include "placement/selection/health_view.hpp"

struct ff_health {
  fabricfit::HealthFile file;
};

namespace {

using fabricfit::capi::copy_out;
using fabricfit::capi::guarded;

}  // namespace

extern "C" {

void ff_health_path(const ff_settings_t* settings, char* out, size_t out_len) {
  if (settings == nullptr) {
    copy_out("", out, out_len);
    return;
  }
  try {
    if (settings->health_file[0] != '\0') {
      copy_out(settings->health_file, out, out_len);
    } else {
      copy_out(fabricfit::health_path_beside(settings->snapshot_file).string(), out, out_len);
    }
  } catch (...) {
    copy_out("", out, out_len);
  }
}

int ff_health_load(const char* path, ff_health_t** out, char* err, size_t err_len) {
  if (out == nullptr) return FF_EINTERNAL;
  *out = nullptr;
  return guarded(err, err_len, [&]() -> int {
    try {
      auto h = std::make_unique<ff_health>();
      h->file = fabricfit::load_health(path != nullptr ? path : "");
      *out = h.release();
      return FF_OK;
    } catch (const fabricfit::HealthFileError& e) {
      copy_out(e.what(), err, err_len);
      return FF_EINVAL;
    }
  });
}

void ff_health_free(ff_health_t* health) {
  delete health;
}

int ff_health_stale(const ff_health_t* health, long now, long max_age_s) {
  return health != nullptr && fabricfit::health_stale(health->file, now, max_age_s) ? 1 : 0;
}

long ff_health_sweep_time(const ff_health_t* health) {
  return health != nullptr ? static_cast<long>(health->file.sweep_unix) : 0;
}

int ff_engine_use_health(ff_engine_t* engine, const ff_health_t* health, char* err, size_t err_len) {
  if (engine == nullptr) {
    copy_out("internal error: missing argument", err, err_len);
    return FF_EINTERNAL;
  }
  return guarded(err, err_len, [&]() -> int {
    if (health == nullptr) {
      engine->health = {};
      return FF_OK;
    }
    try {
      // Built aside and moved in: a file that does not fit leaves the view in use.
      engine->health = fabricfit::build_health_view(engine->snapshot.fabric, health->file);
      return FF_OK;
    } catch (const fabricfit::HealthViewError& e) {
      copy_out(e.what(), err, err_len);
      return FF_EINVAL;
    }
  });
}

void ff_engine_health_describe(const ff_engine_t* engine, char* out, size_t out_len) {
  if (engine == nullptr || engine->health.all_healthy()) {
    copy_out("none", out, out_len);
    return;
  }
  try {
    const auto count = [](const auto& v, fabricfit::PartHealth p) { return std::ranges::count(v, p); };
    const auto& h = engine->health;
    using fabricfit::PartHealth;
    std::string text =
        fmt::format("hosts_failing={} hosts_degraded={} leaf_groups_failing={} leaf_groups_degraded={}",
                    count(h.host_link, PartHealth::Failing), count(h.host_link, PartHealth::Degraded),
                    count(h.uplinks, PartHealth::Failing), count(h.uplinks, PartHealth::Degraded));
    const auto nvlink_failing = count(h.nvlink, PartHealth::Failing);
    const auto nvlink_degraded = count(h.nvlink, PartHealth::Degraded);
    if (nvlink_failing + nvlink_degraded > 0) {
      text += fmt::format(" nvlink_failing={} nvlink_degraded={}", nvlink_failing, nvlink_degraded);
    }
    copy_out(text, out, out_len);
  } catch (...) {
    copy_out("(unavailable)", out, out_len);
  }
}

}  // extern "C"
