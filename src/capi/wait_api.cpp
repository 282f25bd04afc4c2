// SPDX-License-Identifier: GPL-2.0-or-later
// The adaptive locality wait at the C edge (ff_engine_wait_advice): Slurm's facts in,
// the core's decision (placement/waiting/wait_decision.hpp) out.
#include <algorithm>
#include <mutex>
#include <span>
#include <vector>

#include "capi/c_edge.hpp"
#include "capi/engine_state.hpp"
#include "capi/fabricfit_api.h"
#include "placement/comm_pattern.hpp"
#include "placement/waiting/wait_decision.hpp"

using fabricfit::capi::copy_out;
using fabricfit::capi::guarded;

extern "C" {

int ff_engine_wait_advice(ff_engine_t* engine, const ff_request_t* request, const int* placed,
                          unsigned nplaced, const unsigned char* usable, const int* free_gpus,
                          const int* total_gpus, const double* host_free_at, const ff_wait_facts_t* facts,
                          ff_wait_advice_t* out, int* hosts, char* err, size_t err_len) {
  if (engine == nullptr || request == nullptr || placed == nullptr || usable == nullptr ||
      free_gpus == nullptr || total_gpus == nullptr || host_free_at == nullptr || facts == nullptr ||
      out == nullptr || hosts == nullptr) {
    copy_out("internal error: missing argument", err, err_len);
    return FF_EINTERNAL;
  }
  *out = ff_wait_advice_t{};
  out->leaf_group = -1;
  copy_out("not-candidate", out->verdict, sizeof out->verdict);
  return guarded(err, err_len, [&]() -> int {
    const int n = engine->index.host_count();
    if (nplaced > static_cast<unsigned>(n))
      throw fabricfit::RequestError("more placed hosts than the fabric has");
    fabricfit::GpuState gpus{std::vector<int>(total_gpus, total_gpus + n),
                             std::vector<int>(free_gpus, free_gpus + n)};
    for (int h = 0; h < n; ++h) {
      gpus.total[h] = std::clamp(gpus.total[h], 0, ff_engine::kMaxGpusPerHost);
      gpus.free[h] = std::clamp(gpus.free[h], 0, gpus.total[h]);
    }
    // The placement now, with the GPUs each host gives the job (a total spread in order).
    fabricfit::Allocation now;
    unsigned left = request->total_gpus;
    for (unsigned i = 0; i < nplaced; ++i) {
      const int h = placed[i];
      if (h < 0 || h >= n) throw fabricfit::RequestError("placed host out of range");
      int g = static_cast<int>(request->gpus_per_node);
      if (g <= 0) {
        g = std::min<int>(gpus.free[h], static_cast<int>(left));
        left -= static_cast<unsigned>(std::max(g, 0));
      }
      now.hosts.push_back(h);
      now.gpus.push_back(std::max(g, 1));
    }
    const fabricfit::WaitFacts f{.now = facts->now,
                                 .eligible = facts->eligible,
                                 .time_limit_s = facts->time_limit_s,
                                 .comm_share = facts->comm_share,
                                 .cap_s = facts->cap_s,
                                 // Clamped as ff_engine_place clamps it: never negative.
                                 .segment_nodes = static_cast<int>(
                                     std::min<unsigned>(request->segment, static_cast<unsigned>(n) + 1))};
    // The running jobs' sharing is read in place (its what-if query changes nothing), on
    // the routing ff_engine_use_routing last set.
    const std::lock_guard<std::mutex> lock(engine->running_lock);
    const auto d = fabricfit::decide_locality_wait(
        engine->index, engine->uplink_bundles(), gpus,
        std::span<const double>(host_free_at, static_cast<std::size_t>(n)),
        std::span<const std::uint8_t>(usable, static_cast<std::size_t>(n)),
        fabricfit::capi::pattern_of(request->pattern), static_cast<int>(request->gpus_per_node), now, f,
        &engine->running_sharing());
    out->wait = d.wait ? 1 : 0;
    out->leaf_group = d.leaf_group;
    out->leaf_groups = static_cast<unsigned>(d.leaf_groups);
    out->slowdown_now = d.slowdown_now;
    out->gain_s = d.gain_s;
    out->expected_wait_s = d.expected_wait_s;
    out->ready_at = d.ready_at;
    out->until = d.until;
    out->nhosts = static_cast<unsigned>(d.hosts.size());
    std::copy(d.hosts.begin(), d.hosts.end(), hosts);
    copy_out(fabricfit::to_string(d.verdict), out->verdict, sizeof out->verdict);
    return FF_OK;
  });
}

}  // extern "C"
