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

// The pattern a C caller passed: its canonical text, or `ring` (a job's default when it
// gave none) for NULL or "". The one place the edge supplies a default pattern.
inline CommPattern pattern_of(const char* text) {
  return text != nullptr && text[0] != '\0' ? parse_comm_pattern(text) : CommPattern{};
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
