// SPDX-License-Identifier: GPL-2.0-or-later
// The C edge of what slurmctld tells admins: placement records and the topology text
// (placement/slurm/fabric_status.hpp), over the engine's loaded snapshot.
#include <algorithm>
#include <ctime>
#include <shared_mutex>
#include <string>
#include <vector>

#include "capi/c_edge.hpp"
#include "capi/engine_state.hpp"
#include "capi/fabricfit_api.h"
#include "common/hostlist_expand.hpp"
#include "placement/slurm/admin_comment.hpp"
#include "placement/slurm/fabric_status.hpp"

namespace {

using fabricfit::capi::copy_out;
using fabricfit::capi::guarded;

fabricfit::GpuState gpu_state(const ff_engine_t* engine, const int* free_gpus, const int* total_gpus) {
  const int n = engine->index.host_count();
  fabricfit::GpuState g{std::vector<int>(total_gpus, total_gpus + n),
                        std::vector<int>(free_gpus, free_gpus + n)};
  for (int h = 0; h < n; ++h) {
    g.total[h] = std::clamp(g.total[h], 0, ff_engine::kMaxGpusPerHost);
    g.free[h] = std::clamp(g.free[h], 0, g.total[h]);
  }
  return g;
}

void fit_or_throw(const std::string& text, size_t len) {
  if (text.size() >= len) throw std::length_error("the text is longer than the buffer");
}

}  // namespace

extern "C" {

int ff_engine_record(const ff_engine_t* engine, const int* hosts, const int* gpus, unsigned nhosts,
                     const int* free_gpus, const int* total_gpus, const ff_pattern_t* pattern,
                     const char* fallback_reason, char* out, size_t out_len, char* err, size_t err_len) {
  const std::string reason = fallback_reason != nullptr ? fallback_reason : "";
  if ((engine == nullptr && reason.empty()) || out == nullptr) {
    copy_out("internal error: missing argument", err, err_len);
    return FF_EINTERNAL;
  }
  if (!reason.empty()) {
    return guarded(err, err_len, [&] {
      const std::string text = fabricfit::fallback_record(
          pattern != nullptr ? fabricfit::capi::pattern_of(*pattern).to_string() : "", reason);
      fit_or_throw(text, out_len);
      copy_out(text, out, out_len);
    });
  }
  return guarded(err, err_len, [&] {
    if (pattern == nullptr)
      throw fabricfit::RequestError("a record of fabricfit's placement needs its pattern");
    const auto p = fabricfit::capi::pattern_of(*pattern);
    std::vector<int> h, g;
    if (reason.empty()) {
      if (hosts == nullptr || gpus == nullptr || nhosts == 0)
        throw fabricfit::RequestError("a record needs hosts");
      const int n = engine->index.host_count();
      for (unsigned i = 0; i < nhosts; ++i) {
        if (hosts[i] < 0 || hosts[i] >= n) throw fabricfit::RequestError("host index out of range");
        h.push_back(hosts[i]);
        g.push_back(gpus[i]);
      }
    }
    std::string text;
    if (free_gpus != nullptr && total_gpus != nullptr) {
      const auto state = gpu_state(engine, free_gpus, total_gpus);
      std::optional<fabricfit::FragModel> scratch;
      // The plugin makes records in its writer thread, beside placements (fit_frag).
      const std::shared_lock reading(engine->frag_lock);
      text = fabricfit::placement_record(engine->index, &engine->frag_for(state, scratch), &state, h, g, p,
                                         reason);
    } else {
      text = fabricfit::placement_record(engine->index, nullptr, nullptr, h, g, p, reason);
    }
    fit_or_throw(text, out_len);
    copy_out(text, out, out_len);
  });
}

int ff_engine_job_record(const ff_engine_t* engine, const ff_request_t* request, const int* hosts,
                         unsigned nhosts, const int* free_gpus, const int* total_gpus, char* out,
                         size_t out_len, char* err, size_t err_len) {
  if (engine == nullptr || request == nullptr || hosts == nullptr || free_gpus == nullptr ||
      total_gpus == nullptr || out == nullptr) {
    copy_out("internal error: missing argument", err, err_len);
    return FF_EINTERNAL;
  }
  std::vector<int> ordered;
  std::vector<int> gpus;
  const int n = engine->index.host_count();
  for (unsigned i = 0; i < nhosts; ++i) {
    if (hosts[i] >= 0 && hosts[i] < n) ordered.push_back(hosts[i]);
  }
  std::ranges::sort(ordered, [&](int a, int b) { return engine->rank[a] < engine->rank[b]; });
  // The GPUs Slurm gives the job per node: as asked per node, or the total spread in order.
  int left = static_cast<int>(request->total_gpus);
  for (const int h : ordered) {
    if (request->gpus_per_node > 0) {
      gpus.push_back(static_cast<int>(request->gpus_per_node));
    } else {
      const int take = std::clamp(std::min(free_gpus[h], total_gpus[h]), 0, std::max(left, 0));
      gpus.push_back(take);
      left -= take;
    }
  }
  return ff_engine_record(engine, ordered.data(), gpus.data(), static_cast<unsigned>(ordered.size()),
                          free_gpus, total_gpus, &request->pattern, nullptr, out, out_len, err, err_len);
}

int ff_admin_comment_merge(const char* existing, const char* record, char* out, size_t out_len) {
  if (record == nullptr || out == nullptr) return FF_EINVAL;
  const std::string_view old = existing != nullptr ? existing : "";
  if (out_len < old.size() + std::string_view(record).size() + 3) return FF_EINVAL;
  char err[8];
  return guarded(err, sizeof err,
                 [&] { copy_out(fabricfit::merge_admin_comment(old, record), out, out_len); });
}

int ff_engine_topology(const ff_engine_t* engine, const int* free_gpus, const int* total_gpus,
                       const char* node_list, char* out, size_t out_len, char* err, size_t err_len) {
  if (engine == nullptr || out == nullptr || free_gpus == nullptr || total_gpus == nullptr) {
    copy_out("internal error: missing argument", err, err_len);
    return FF_EINTERNAL;
  }
  return guarded(err, err_len, [&] {
    std::vector<std::string> only;
    if (node_list != nullptr && node_list[0] != '\0') only = fabricfit::expand_hostlist(node_list);
    const std::string text = fabricfit::topology_text(
        engine->snapshot.fabric, engine->snapshot.info, gpu_state(engine, free_gpus, total_gpus), only,
        static_cast<std::int64_t>(std::time(nullptr)), &engine->health);
    fit_or_throw(text, out_len);
    copy_out(text, out, out_len);
  });
}

int ff_topology_filter(const char* text, const char* node_list, char* out, size_t out_len, char* err,
                       size_t err_len) {
  if (text == nullptr || out == nullptr) {
    copy_out("internal error: missing argument", err, err_len);
    return FF_EINTERNAL;
  }
  return guarded(err, err_len, [&] {
    std::vector<std::string> only;
    if (node_list != nullptr && node_list[0] != '\0') only = fabricfit::expand_hostlist(node_list);
    const std::string filtered = fabricfit::filter_topology_text(text, only);
    fit_or_throw(filtered, out_len);
    copy_out(filtered, out, out_len);
  });
}

}  // extern "C"
