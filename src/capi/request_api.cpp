// SPDX-License-Identifier: GPL-2.0-or-later
// A Slurm job's request at the C edge (placement/slurm/slurm_request.hpp): which jobs fabricfit
// places and with what request, --switches, and nodes' GPU counts.
#include <algorithm>
#include <set>
#include <variant>

#include "capi/c_edge.hpp"
#include "capi/fabricfit_api.h"
#include "placement/slurm/slurm_request.hpp"

using fabricfit::capi::copy_out;
using fabricfit::capi::guarded;

extern "C" {

int ff_job_request(const ff_job_facts_t* facts, const ff_settings_t* settings, ff_request_t* out,
                   char* reason, size_t reason_len) {
  if (facts == nullptr || out == nullptr) {
    copy_out("internal error: missing argument", reason, reason_len);
    return FF_EINTERNAL;
  }
  *out = ff_request_t{};
  return guarded(reason, reason_len, [&]() -> int {
    const auto decided = fabricfit::request_of_slurm_job(fabricfit::capi::facts_of(*facts));
    if (const auto* no = std::get_if<fabricfit::Decline>(&decided)) {
      copy_out(no->reason, reason, reason_len);
      return FF_EDECLINE;
    }
    fabricfit::capi::fill_request(std::get<fabricfit::JobRequest>(decided), out);
    // On the nodes it may get: a job that fits one node has no traffic between nodes.
    out->pattern = ff_job_pattern(facts->comm_pattern, out->max_nodes, settings);
    return FF_OK;
  });
}

int ff_switches_allow(unsigned switches, unsigned leaf_groups, long waited_s, long wait_limit_s) {
  return fabricfit::switches_allow(switches, leaf_groups, waited_s, wait_limit_s) ? 1 : 0;
}

int ff_node_gpus(unsigned long long reported, const char* config_gres) {
  try {
    return fabricfit::node_gpu_count(reported, config_gres).value_or(-1);
  } catch (...) {
    return -1;
  }
}

unsigned ff_engine_leaf_groups_of(const ff_engine_t* engine, const int* hosts, unsigned count) {
  if (engine == nullptr || hosts == nullptr) return 0;
  try {
    std::set<int> groups;
    for (unsigned i = 0; i < count; ++i) groups.insert(ff_engine_host_leaf_group(engine, hosts[i]));
    return static_cast<unsigned>(groups.size());
  } catch (...) {
    return 0;
  }
}

}  // extern "C"
