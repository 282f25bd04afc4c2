// SPDX-License-Identifier: GPL-2.0-or-later
// The split jobs running now, at the C edge (ff_engine_running_*): the placement record
// thread registers each allocation Slurm made on fabricfit's choice and forgets jobs that
// ended; the locality wait (wait_api.cpp) prices a split beside them.
#include <algorithm>
#include <cstdio>
#include <mutex>
#include <new>
#include <variant>
#include <vector>

#include "capi/c_edge.hpp"
#include "capi/engine_state.hpp"
#include "capi/fabricfit_api.h"
#include "placement/comm_pattern.hpp"
#include "placement/slurm/slurm_request.hpp"
#include "placement/traffic_matrix.hpp"
#include "placement/waiting/running_scan.hpp"

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

// The registered job ids (running_lock taken here).
std::vector<std::uint32_t> held_ids(ff_engine_t* engine) {
  std::vector<std::uint32_t> ids;
  const std::lock_guard<std::mutex> lock(engine->running_lock);
  ids.reserve(engine->running.size());
  for (const auto& entry : engine->running) ids.push_back(entry.first);
  return ids;
}

}  // namespace

struct ff_running_scan {
  fabricfit::RunningScan scan;
};

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
        .pattern = fabricfit::capi::pattern_of(request->pattern), .hosts = {}, .gpus = {}, .demand = {}};
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

int ff_engine_running_count(ff_engine_t* engine, uint32_t job_id, const ff_job_facts_t* facts,
                            const ff_settings_t* settings, const int* hosts, unsigned nhosts, char* err,
                            size_t err_len) {
  if (engine == nullptr || facts == nullptr || (hosts == nullptr && nhosts > 0)) {
    copy_out("internal error: missing argument", err, err_len);
    return FF_EINTERNAL;
  }
  ff_request_t request{};
  request.pattern = ff_job_pattern(facts->comm_pattern, nhosts, settings);
  const int rc = guarded(err, err_len, [&]() -> int {
    const auto load = fabricfit::load_of_running_job(fabricfit::capi::facts_of(*facts), nhosts);
    if (const auto* no = std::get_if<fabricfit::Decline>(&load)) {
      copy_out(no->reason, err, err_len);
      return FF_EDECLINE;
    }
    fabricfit::capi::fill_request(std::get<fabricfit::JobRequest>(load), &request);
    return FF_OK;
  });
  return rc != FF_OK ? rc : ff_engine_running_add(engine, job_id, &request, hosts, nhosts, err, err_len);
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

int ff_engine_running_prune(ff_engine_t* engine, ff_job_running_fn running, void* ctx, char* err,
                            size_t err_len) {
  if (engine == nullptr || running == nullptr) {
    copy_out("internal error: missing argument", err, err_len);
    return FF_EINTERNAL;
  }
  // Slurm is asked outside running_lock: evaluations take that lock under slurmctld's.
  std::vector<std::uint32_t> ended;
  int rc = guarded(err, err_len, [&] {
    for (const auto id : held_ids(engine)) {
      if (running(ctx, id) == 0) ended.push_back(id);
    }
  });
  for (const auto id : ended) {
    if (rc != FF_OK) break;
    char why[256] = "";
    rc = ff_engine_running_remove(engine, id, why, sizeof why);
    // Without allocating: the reason may be that memory ran out.
    if (rc != FF_OK && err != nullptr && err_len > 0) std::snprintf(err, err_len, "JobId=%u: %s", id, why);
  }
  return rc;
}

ff_running_scan_t* ff_running_scan_new(void) {
  return new (std::nothrow) ff_running_scan;
}

void ff_running_scan_free(ff_running_scan_t* scan) {
  delete scan;
}

int ff_running_scan_due(const ff_running_scan_t* scan, unsigned generation, long now) {
  return scan != nullptr && scan->scan.due(generation, now) ? 1 : 0;
}

void ff_running_scan_postpone(ff_running_scan_t* scan, long now) {
  if (scan != nullptr) scan->scan.postpone(now);
}

int ff_running_scan_start(ff_running_scan_t* scan, ff_engine_t* engine, unsigned generation, long now,
                          char* err, size_t err_len) {
  if (scan == nullptr || engine == nullptr) {
    copy_out("internal error: missing argument", err, err_len);
    return FF_EINTERNAL;
  }
  return guarded(err, err_len, [&] { scan->scan.start(generation, now, held_ids(engine)); });
}

int ff_running_scan_should_count(ff_running_scan_t* scan, uint32_t job_id, long start_time) {
  int count = 0;
  if (scan != nullptr)
    (void)guarded(nullptr, 0, [&] { count = scan->scan.should_count(job_id, start_time) ? 1 : 0; });
  return count;
}

int ff_running_scan_finish(ff_running_scan_t* scan, ff_engine_t* engine, int* fresh, int* running, char* err,
                           size_t err_len) {
  if (scan == nullptr || engine == nullptr) {
    copy_out("internal error: missing argument", err, err_len);
    return FF_EINTERNAL;
  }
  return guarded(err, err_len, [&] {
    const auto s = scan->scan.finish(held_ids(engine));
    if (fresh != nullptr) *fresh = s.fresh ? 1 : 0;
    if (running != nullptr) *running = s.running;
  });
}

}  // extern "C"
