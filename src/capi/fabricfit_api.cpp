// SPDX-License-Identifier: GPL-2.0-or-later
// Turns the core's exceptions into status codes at the C edge.
#include "capi/fabricfit_api.h"

#include "capi/c_edge.hpp"

#include <cstdio>
#include <exception>
#include <optional>
#include <string>

#include "ff_config.h"
#include "placement/comm_pattern.hpp"
#include "placement/slurm/slurm_request.hpp"
#include "site/site_config.hpp"

namespace {

using fabricfit::capi::copy_out;
using fabricfit::capi::guarded;

// The site's default pattern (ring without settings).
fabricfit::CommPattern site_default(const ff_settings_t* settings) {
  return settings != nullptr ? fabricfit::capi::pattern_of(settings->default_pattern)
                             : fabricfit::CommPattern{};
}

}  // namespace

extern "C" {

int ff_pattern_parse(const char* text, ff_pattern_t* out, char* err, size_t err_len) {
  if (out == nullptr) {
    copy_out("internal error: missing argument", err, err_len);
    return FF_EINTERNAL;
  }
  return guarded(err, err_len, [&] {
    *out = fabricfit::capi::c_pattern(fabricfit::parse_comm_pattern(text != nullptr ? text : ""));
  });
}

void ff_pattern_name(const ff_pattern_t* pattern, char* out, size_t out_len) {
  if (pattern == nullptr) {
    copy_out("-", out, out_len);
    return;
  }
  // Without allocating: a log line may be reporting that memory ran out.
  switch (pattern->kind) {
    case FF_PATTERN_RING: copy_out("ring", out, out_len); return;
    case FF_PATTERN_TREE: copy_out("tree", out, out_len); return;
    case FF_PATTERN_ALLTOALL: copy_out("alltoall", out, out_len); return;
    case FF_PATTERN_NONE: copy_out("none", out, out_len); return;
    case FF_PATTERN_PARALLEL:
      if (out != nullptr && out_len > 0)
        std::snprintf(out, out_len, "tp=%u,pp=%u,dp=%u", pattern->tp, pattern->pp, pattern->dp);
      return;
    default: copy_out("?", out, out_len);
  }
}

int ff_settings_load(const char* path, const char* last_good, ff_settings_t* out, char* err, size_t err_len) {
  if (out == nullptr) return FF_EINTERNAL;
  fabricfit::capi::fill_settings(fabricfit::SiteConfig{}, fabricfit::SiteConfigLoad::Source::Defaults, out);
  int rc = FF_OK;
  const int guard = guarded(err, err_len, [&] {
    const auto load = fabricfit::load_site_config_keeping_last_good(path != nullptr ? path : "",
                                                                    last_good != nullptr ? last_good : "");
    fabricfit::capi::fill_settings(load.config, load.source, out);
    if (!load.error.empty()) {
      copy_out(load.error, err, err_len);
      rc = FF_EINVAL;
    }
  });
  return guard != FF_OK ? guard : rc;
}

int ff_effective_pattern(const ff_pattern_t* requested, unsigned max_nodes, const ff_settings_t* settings,
                         ff_pattern_t* out, char* err, size_t err_len) {
  if (out == nullptr) {
    copy_out("internal error: missing argument", err, err_len);
    return FF_EINTERNAL;
  }
  return guarded(err, err_len, [&] {
    std::optional<fabricfit::CommPattern> asked;
    if (requested != nullptr) asked = fabricfit::capi::pattern_of(*requested);
    *out = fabricfit::capi::c_pattern(
        fabricfit::effective_pattern(asked ? &*asked : nullptr, max_nodes, site_default(settings)));
  });
}

ff_pattern_t ff_job_pattern(const char* requested, unsigned max_nodes, const ff_settings_t* settings) {
  ff_pattern_t out{};  // ring
  (void)guarded(nullptr, 0, [&] {
    out = fabricfit::capi::c_pattern(
        fabricfit::job_pattern(requested != nullptr ? requested : "", max_nodes, site_default(settings)));
  });
  return out;
}

const char* ff_version(void) {
  return PACKAGE_NAME " " PACKAGE_VERSION;
}

}  // extern "C"
