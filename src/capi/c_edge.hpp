// SPDX-License-Identifier: GPL-2.0-or-later
// What every C entry point does at the edge: messages copied into the caller's buffer,
// and exceptions turned into status codes (bad input: FF_EINVAL; anything else:
// FF_EINTERNAL), so that none ever reaches slurmctld.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <exception>
#include <string_view>
#include <type_traits>

#include "capi/fabricfit_api.h"
#include "placement/comm_pattern.hpp"
#include "placement/job_request.hpp"
#include "placement/slurm/slurm_request.hpp"
#include "site/site_config.hpp"
#include "topology/snapshot.hpp"

namespace fabricfit::capi {

// As snprintf("%s") would: truncated to fit, always terminated.
inline void copy_out(std::string_view s, char* buf, std::size_t len) {
  if (buf == nullptr || len == 0) return;
  const std::size_t n = std::min(s.size(), len - 1);
  std::memcpy(buf, s.data(), n);
  buf[n] = '\0';
}

// `prefix` then `s`, as copy_out would copy their concatenation, without allocating:
// the edge may be reporting that memory ran out.
inline void copy_out(std::string_view prefix, std::string_view s, char* buf, std::size_t len) {
  if (buf == nullptr || len == 0) return;
  copy_out(prefix, buf, len);
  const std::size_t used = std::strlen(buf);
  copy_out(s, buf + used, len - used);
}

// The pattern a C caller carries, checked (PatternError, so FF_EINVAL, for a kind or group
// size the core does not know): the value ff_job_pattern or ff_pattern_parse made.
inline CommPattern pattern_of(const ff_pattern_t& p) {
  return make_comm_pattern(p.kind, p.tp, p.pp, p.dp);
}

// The C value of a pattern.
inline ff_pattern_t c_pattern(const CommPattern& p) noexcept {
  ff_pattern_t out{};
  out.kind = static_cast<int>(p.kind);
  out.tp = static_cast<unsigned>(p.tp);
  out.pp = static_cast<unsigned>(p.pp);
  out.dp = static_cast<unsigned>(p.dp);
  return out;
}

// fabricfit.conf's settings as both plugins read them, and where they came from.
inline void fill_settings(const SiteConfig& c, SiteConfigLoad::Source source, ff_settings_t* out) {
  copy_out(c.snapshot_file, out->snapshot_file, sizeof out->snapshot_file);
  out->default_pattern = c_pattern(c.default_pattern);
  out->debug_placement = c.debug_placement ? 1 : 0;
  out->locality_wait_max_s = c.locality_wait_max_s;
  out->locality_wait_comm_share = c.locality_wait_comm_share;
  out->locality_wait_static_routing = c.locality_wait_static_routing ? 1 : 0;
  out->locality_wait_history_estimate = c.locality_wait_history_estimate ? 1 : 0;
  copy_out(c.health_file, out->health_file, sizeof out->health_file);
  out->health_max_age_s = c.health_max_age_s;
  using Source = SiteConfigLoad::Source;
  copy_out(source == Source::File       ? "file"
           : source == Source::LastGood ? "last-good"
                                        : "defaults",
           out->source, sizeof out->source);
}

// A job record's facts as the core reads them.
inline SlurmJobFacts facts_of(const ff_job_facts_t& f) {
  return SlurmJobFacts{
      .gpus_per_node = ff_tres_gpus(f.tres_per_node),
      .gpus_per_job = ff_tres_gpus(f.tres_per_job),
      .gpus_per_task = ff_tres_gpus(f.tres_per_task),
      .gpus_per_socket = ff_tres_gpus(f.tres_per_socket) > 0,
      .min_nodes = f.min_nodes,
      .max_nodes = f.max_nodes,
      .req_nodes = f.req_nodes,
      .num_tasks = f.num_tasks,
      .ntasks_per_node = f.ntasks_per_node,
      .whole_node = f.whole_node != 0,
      .required_nodes = f.required_nodes != 0,
      .contiguous = f.contiguous != 0,
      .spread_job = f.spread_job != 0,
      .exclusive_topo = f.exclusive_topo != 0,
      .segment_size = f.segment_size,
  };
}

// A request's sizes into a C request (its pattern is left as it is).
inline void fill_request(const JobRequest& r, ff_request_t* out) {
  out->min_nodes = static_cast<unsigned>(r.min_nodes);
  out->max_nodes = static_cast<unsigned>(r.max_nodes);
  out->gpus_per_node = static_cast<unsigned>(r.gpus_per_node);
  out->total_gpus = static_cast<unsigned>(r.total_gpus);
  out->exclusive = r.exclusive ? 1 : 0;
  out->segment = static_cast<unsigned>(r.segment_nodes);
}

// Runs `body`: its status (FF_OK for a body that returns nothing), or the status of
// what it threw, with the message in `err`.
template <typename Body>
int guarded(char* err, std::size_t err_len, Body&& body) noexcept {
  const auto bad_input = [&](const std::exception& e) {
    copy_out(e.what(), err, err_len);
    return FF_EINVAL;
  };
  try {
    if constexpr (std::is_void_v<decltype(body())>) {
      body();
      return FF_OK;
    } else {
      return body();
    }
  } catch (const PatternError& e) {
    return bad_input(e);
  } catch (const ConfigError& e) {
    return bad_input(e);
  } catch (const SnapshotError& e) {
    return bad_input(e);
  } catch (const RequestError& e) {
    return bad_input(e);
  } catch (const std::exception& e) {
    copy_out("internal error: ", e.what(), err, err_len);
    return FF_EINTERNAL;
  } catch (...) {
    copy_out("internal error", err, err_len);
    return FF_EINTERNAL;
  }
}

}  // namespace fabricfit::capi
