// SPDX-License-Identifier: GPL-2.0-or-later
// The engine behind the C API's opaque ff_engine_t: a loaded snapshot, its
// LocalityIndex, the fragmentation model and the selector (engine_api.cpp, report_api.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <vector>

#include "capi/fabricfit_api.h"
#include "placement/comm_pattern.hpp"
#include "placement/fragmentation.hpp"
#include "placement/gpu_state.hpp"
#include "placement/locality_index.hpp"
#include "placement/runtime/runtime_model.hpp"
#include "placement/selection/health_avoidance.hpp"
#include "placement/selection/selector.hpp"
#include "placement/traffic_matrix.hpp"
#include "topology/snapshot.hpp"

struct ff_engine {
  explicit ff_engine(fabricfit::Snapshot loaded)
      : snapshot(std::move(loaded)),
        index(snapshot.fabric),
        frag(fabricfit::WorkloadMix::standard(8), 8, std::max(1, index.largest_leaf_group())) {
    rank.assign(index.host_count(), -1);
    int next = 0;
    for (int g = 0; g < index.leaf_group_count(); ++g) {
      for (const int h : index.hosts_of(g)) rank[h] = next++;
    }
    for (int h = 0; h < index.host_count(); ++h) {
      if (rank[h] < 0) rank[h] = next++;  // hosts in no leaf group go last
    }
  }
  // GPU counts above this are garbage from the caller (an unset count read as a huge
  // number), not hosts.
  static constexpr int kMaxGpusPerHost = 64;

  // The fragmentation model follows the cluster's GPUs per host (4-GPU and 8-GPU hosts need
  // different job mixes). frag_for() leaves the engine alone, as callers that only read it
  // (fragmentation for backfill, records) may run beside a placement: it returns the
  // engine's model when it fits, else one built in `scratch` (no copy on backfill's path).
  // fit_frag() keeps the placement's model, rebuilt only when the largest host changes;
  // callers that may run beside a placement (the record thread) hold frag_lock shared
  // while they use the model, so that it is not replaced under them.
  [[nodiscard]] const fabricfit::FragModel& frag_for(const fabricfit::GpuState& state,
                                                     std::optional<fabricfit::FragModel>& scratch) const {
    const int g = std::clamp(state.max_gpus_per_host(), 1, kMaxGpusPerHost);
    if (g == frag.max_gpus()) return frag;
    return scratch.emplace(fabricfit::WorkloadMix::standard(g), g, std::max(1, index.largest_leaf_group()));
  }
  void fit_frag(const fabricfit::GpuState& state) {
    std::optional<fabricfit::FragModel> fitted;
    if (&frag_for(state, fitted) != &frag) {
      const std::unique_lock replacing(frag_lock);
      frag = std::move(*fitted);
    }
  }

  fabricfit::Snapshot snapshot;
  fabricfit::LocalityIndex index;
  fabricfit::FragModel frag;  // see fit_frag
  mutable std::shared_mutex frag_lock;
  fabricfit::FabricfitSelector selector;
  std::vector<int> rank;
  fabricfit::GpuState gpus;  // reused across decisions
  // The fabric's health placement keeps multi-host jobs off (ff_engine_use_health; empty:
  // all healthy). Replaced where the engine is (slurmctld's locks held).
  fabricfit::FabricHealthView health;
  // The split jobs running now (by Slurm job id): what their traffic is, and their peak
  // uplink demands under the current routing; their max-min fair sharing of the uplinks is
  // what the locality wait asks what a split would get beside (running_api.cpp,
  // wait_api.cpp). Filled by the placement record thread and read by evaluations: the
  // bundles, the running jobs and their sharing are all guarded by running_lock.
  struct RunningJob {
    fabricfit::CommPattern pattern;
    std::vector<int> hosts, gpus;
    std::vector<fabricfit::BundleDemand> demand;
  };
  std::mutex running_lock;
  std::map<std::uint32_t, RunningJob> running;

  // The uplink bundles of the run-time model under the routing LocalityWaitRouting names,
  // built at the first question (running_lock held).
  const fabricfit::UplinkBundles& uplink_bundles() {
    if (!bundles) bundles = std::make_unique<fabricfit::UplinkBundles>(index, routing, &snapshot.fabric);
    return *bundles;
  }
  fabricfit::BandwidthSharing& running_sharing() {
    if (!sharing) sharing = std::make_unique<fabricfit::BandwidthSharing>(uplink_bundles());
    return *sharing;
  }
  // A job's demands on the bundles (empty: no traffic leaves a leaf group).
  static std::vector<fabricfit::BundleDemand> demand_on(const fabricfit::UplinkBundles& on,
                                                        const RunningJob& job) {
    return on.demand(fabricfit::TrafficMatrix::build(job.pattern, job.gpus), job.hosts);
  }
  std::vector<fabricfit::BundleDemand> demand_of(const RunningJob& job) {
    return demand_on(uplink_bundles(), job);
  }
  // A change of LocalityWaitRouting (a reconfigure) rebuilds the bundles and prices the
  // running jobs again on them (running_lock held). All is built aside and swapped in, so
  // a failure (out of memory) leaves the old routing whole.
  void use_routing(fabricfit::UplinkRouting wanted) {
    if (wanted == routing) return;
    auto fresh = std::make_unique<fabricfit::UplinkBundles>(index, wanted, &snapshot.fabric);
    auto shared = std::make_unique<fabricfit::BandwidthSharing>(*fresh);
    std::vector<std::vector<fabricfit::BundleDemand>> demands;
    demands.reserve(running.size());
    std::vector<int> changed;
    for (const auto& [id, job] : running) {
      demands.push_back(demand_on(*fresh, job));
      if (!demands.back().empty()) shared->add(static_cast<int>(id), demands.back(), changed);
    }
    auto next = demands.begin();
    for (auto it = running.begin(); it != running.end(); ++next) {
      it->second.demand = std::move(*next);
      it = it->second.demand.empty() ? running.erase(it) : std::next(it);
    }
    sharing = std::move(shared);
    bundles = std::move(fresh);
    routing = wanted;
  }

 private:
  fabricfit::UplinkRouting routing = fabricfit::UplinkRouting::Ecmp;
  std::unique_ptr<fabricfit::UplinkBundles> bundles;
  std::unique_ptr<fabricfit::BandwidthSharing> sharing;  // refers to *bundles
};
