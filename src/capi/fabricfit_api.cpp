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
#include "site/site_config.hpp"

namespace {

using fabricfit::capi::copy_out;
using fabricfit::capi::guarded;

void fill(const fabricfit::SiteConfig& config, ff_settings_t* out) {
  copy_out(config.snapshot_file, out->snapshot_file, sizeof out->snapshot_file);
  copy_out(config.default_pattern.to_string(), out->default_pattern, sizeof out->default_pattern);
  out->debug_placement = config.debug_placement ? 1 : 0;
  out->locality_wait_max_s = config.locality_wait_max_s;
  out->locality_wait_comm_share = config.locality_wait_comm_share;
  out->locality_wait_static_routing = config.locality_wait_static_routing ? 1 : 0;
  out->locality_wait_history_estimate = config.locality_wait_history_estimate ? 1 : 0;
}

}  // namespace

extern "C" {

int ff_pattern_check(const char* text, char* canonical, size_t canonical_len, char* err, size_t err_len) {
  return guarded(err, err_len, [&] {
    const auto pattern = fabricfit::parse_comm_pattern(text != nullptr ? text : "");
    copy_out(pattern.to_string(), canonical, canonical_len);
  });
}

int ff_settings_load(const char* path, const char* last_good, ff_settings_t* out, char* err, size_t err_len) {
  if (out == nullptr) return FF_EINTERNAL;
  fill(fabricfit::SiteConfig{}, out);
  copy_out("defaults", out->source, sizeof out->source);
  int rc = FF_OK;
  const int guard = guarded(err, err_len, [&] {
    const auto load = fabricfit::load_site_config_keeping_last_good(path != nullptr ? path : "",
                                                                    last_good != nullptr ? last_good : "");
    fill(load.config, out);
    using Source = fabricfit::SiteConfigLoad::Source;
    copy_out(load.source == Source::File       ? "file"
             : load.source == Source::LastGood ? "last-good"
                                               : "defaults",
             out->source, sizeof out->source);
    if (!load.error.empty()) {
      copy_out(load.error, err, err_len);
      rc = FF_EINVAL;
    }
  });
  return guard != FF_OK ? guard : rc;
}

int ff_effective_pattern(const char* requested, unsigned max_nodes, const ff_settings_t* settings, char* out,
                         size_t out_len, char* err, size_t err_len) {
  return guarded(err, err_len, [&] {
    const auto site_default =
        fabricfit::parse_comm_pattern(settings != nullptr ? settings->default_pattern : "ring");
    std::optional<fabricfit::CommPattern> asked;
    if (requested != nullptr && requested[0] != '\0') asked = fabricfit::parse_comm_pattern(requested);
    const auto pattern = fabricfit::effective_pattern(asked ? &*asked : nullptr, max_nodes, site_default);
    copy_out(pattern.to_string(), out, out_len);
  });
}

void ff_job_pattern(const char* requested, unsigned max_nodes, const ff_settings_t* settings, char* out,
                    size_t out_len) {
  if (ff_effective_pattern(requested, max_nodes, settings, out, out_len, nullptr, 0) != FF_OK)
    copy_out("ring", out, out_len);  // CommPattern{}'s spelling, without allocating
}

const char* ff_version(void) {
  return PACKAGE_NAME " " PACKAGE_VERSION;
}

}  // extern "C"
