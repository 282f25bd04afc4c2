// SPDX-License-Identifier: GPL-2.0-or-later
// The split jobs running now, at the C edge (ff_engine_running_*): the placement record
// thread registers each allocation Slurm made on fabricfit's choice and forgets jobs that
// ended; the locality wait (wait_api.cpp) prices a split beside them.
#include <algorithm>
#include <mutex>
#include <vector>

#include "capi/c_edge.hpp"
#include "capi/engine_state.hpp"
#include "capi/fabricfit_api.h"
#include "placement/comm_pattern.hpp"
#include "placement/traffic_matrix.hpp"

using fabricfit::capi::copy_out;
using fabricfit::capi::guarded;

namespace {

// BandwidthSharing reports the bundles whose share moved; nobody here needs them.
std::vector<int>& changed_scratch() {
  static thread_local std::vector<int> changed;
  changed.clear();
  return changed;
}

// Takes a registered job out of the running set and the sharing (running_lock held).
void forget(ff_engine_t* engine, std::uint32_t job_id) {
  const auto it = engine->running.find(job_id);
  if (it == engine->running.end()) return;
  engine->running_sharing().remove(static_cast<int>(job_id), it->second.demand, changed_scratch());
  engine->running.erase(it);
}

}  // namespace

extern "C" {

int ff_engine_running_add(ff_engine_t* engine, uint32_t job_id, const ff_request_t* request, const int* hosts,
                          unsigned nhosts, char* err, size_t err_len) {
  if (engine == nullptr || request == nullptr || (hosts == nullptr && nhosts > 0)) {
    copy_out("internal error: missing argument", err, err_len);
    return FF_EINTERNAL;
  }
  return guarded(err, err_len, [&]() -> int {
    const int n = engine->index.host_count();
    ff_engine::RunningJob job{
        .pattern = fabricfit::parse_comm_pattern(request->pattern != nullptr ? request->pattern : "ring"),
        .hosts = {},
        .gpus = {},
        .demand = {}};
    // Without GPUs per node, the total spread evenly: the traffic's shape per host.
    const int even = nhosts > 0 ? static_cast<int>((request->total_gpus + nhosts - 1) / nhosts) : 0;
    for (unsigned i = 0; i < nhosts; ++i) {
      if (hosts[i] < 0 || hosts[i] >= n) throw fabricfit::RequestError("running host out of range");
      job.hosts.push_back(hosts[i]);
      job.gpus.push_back(
          std::clamp(request->gpus_per_node > 0 ? static_cast<int>(request->gpus_per_node) : even, 1,
                     ff_engine::kMaxGpusPerHost));
    }
    const std::lock_guard<std::mutex> lock(engine->running_lock);
    forget(engine, job_id);
    job.demand = engine->demand_of(job);
    if (!job.demand.empty()) {
      engine->running_sharing().add(static_cast<int>(job_id), job.demand, changed_scratch());
      engine->running.emplace(job_id, std::move(job));
    }
    return FF_OK;
  });
}

unsigned ff_engine_running_jobs(ff_engine_t* engine, uint32_t* ids, unsigned max) {
  if (engine == nullptr) return 0;
  unsigned i = 0;
  (void)guarded(nullptr, 0, [&] {
    const std::lock_guard<std::mutex> lock(engine->running_lock);
    for (const auto& entry : engine->running) {
      if (i < max && ids != nullptr) ids[i] = entry.first;
      ++i;
    }
  });
  return i;
}

int ff_engine_running_remove(ff_engine_t* engine, uint32_t job_id, char* err, size_t err_len) {
  if (engine == nullptr) {
    copy_out("internal error: missing argument", err, err_len);
    return FF_EINTERNAL;
  }
  return guarded(err, err_len, [&] {
    const std::lock_guard<std::mutex> lock(engine->running_lock);
    forget(engine, job_id);
  });
}

}  // extern "C"
