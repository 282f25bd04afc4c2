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

int ff_job_request(const ff_job_facts_t* facts, ff_request_t* out, char* reason, size_t reason_len) {
  if (facts == nullptr || out == nullptr) {
    copy_out("internal error: missing argument", reason, reason_len);
    return FF_EINTERNAL;
  }
  return guarded(reason, reason_len, [&]() -> int {
    const fabricfit::SlurmJobFacts job{
        .gpus_per_node = ff_tres_gpus(facts->tres_per_node),
        .gpus_per_job = ff_tres_gpus(facts->tres_per_job),
        .gpus_per_task = ff_tres_gpus(facts->tres_per_task),
        .gpus_per_socket = ff_tres_gpus(facts->tres_per_socket) > 0,
        .min_nodes = facts->min_nodes,
        .max_nodes = facts->max_nodes,
        .req_nodes = facts->req_nodes,
        .num_tasks = facts->num_tasks,
        .ntasks_per_node = facts->ntasks_per_node,
        .whole_node = facts->whole_node != 0,
        .required_nodes = facts->required_nodes != 0,
        .contiguous = facts->contiguous != 0,
        .spread_job = facts->spread_job != 0,
        .exclusive_topo = facts->exclusive_topo != 0,
    };
    const auto decided = fabricfit::request_of_slurm_job(job);
    if (const auto* no = std::get_if<fabricfit::Decline>(&decided)) {
      copy_out(no->reason, reason, reason_len);
      return FF_EDECLINE;
    }
    const auto& r = std::get<fabricfit::JobRequest>(decided);
    *out = ff_request_t{};
    out->min_nodes = static_cast<unsigned>(r.min_nodes);
    out->max_nodes = static_cast<unsigned>(r.max_nodes);
    out->gpus_per_node = static_cast<unsigned>(r.gpus_per_node);
    out->total_gpus = static_cast<unsigned>(r.total_gpus);
    out->exclusive = r.exclusive ? 1 : 0;
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
