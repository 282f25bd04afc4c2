// SPDX-License-Identifier: GPL-2.0-or-later
// The placement engine at the C edge, for topology/fabricfit in slurmctld: a snapshot
// loaded once, its LocalityIndex, and the fabricfit selector. Exceptions become status
// codes here.
#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "capi/c_edge.hpp"
#include "capi/engine_state.hpp"
#include "capi/fabricfit_api.h"
#include "placement/comm_pattern.hpp"
#include "placement/fragmentation.hpp"
#include "placement/gpu_state.hpp"
#include "placement/job_request.hpp"
#include "placement/locality_index.hpp"
#include "placement/runtime/runtime_model.hpp"
#include "placement/selection/baselines.hpp"
#include "placement/selection/health_avoidance.hpp"
#include "placement/selection/placement_policy.hpp"
#include "placement/selection/selector.hpp"
#include "topology/snapshot.hpp"

namespace {

using fabricfit::capi::copy_out;
using fabricfit::capi::guarded;

// The selector as a policy for place_keeping_off_unhealthy, keeping each decision it made
// (the score of the one placed goes into the summary).
class DecidingPolicy final : public fabricfit::PlacementPolicy {
 public:
  explicit DecidingPolicy(fabricfit::FabricfitSelector& selector) : selector_(selector) {}
  [[nodiscard]] std::string name() const override { return selector_.name(); }
  [[nodiscard]] std::optional<fabricfit::Allocation> place(const fabricfit::PlacementContext& ctx,
                                                           const fabricfit::JobRequest& request) override {
    auto d = selector_.decide(ctx, request, 0, fabricfit::FabricfitSelector::ScoreDetail::Traffic);
    if (!d) return std::nullopt;
    decisions.push_back(std::move(*d));
    return decisions.back().chosen.allocation;
  }
  // The decision that placed `a`.
  [[nodiscard]] const fabricfit::Decision* of(const fabricfit::Allocation& a) const {
    for (auto it = decisions.rbegin(); it != decisions.rend(); ++it) {
      if (it->chosen.allocation.hosts == a.hosts && it->chosen.allocation.gpus == a.gpus) return &*it;
    }
    return nullptr;
  }
  std::vector<fabricfit::Decision> decisions;

 private:
  fabricfit::FabricfitSelector& selector_;
};

}  // namespace

extern "C" {

int ff_engine_load(const char* snapshot_path, ff_engine_t** out, char* err, size_t err_len) {
  if (out == nullptr) return FF_EINTERNAL;
  *out = nullptr;
  return guarded(err, err_len, [&]() -> int {
    auto engine =
        std::make_unique<ff_engine>(fabricfit::load_snapshot(snapshot_path != nullptr ? snapshot_path : ""));
    if (engine->index.host_count() == 0) {
      throw fabricfit::SnapshotError(fmt::format("{}: the fabric has no hosts", snapshot_path));
    }
    *out = engine.release();
    return FF_OK;
  });
}

namespace {

// A snapshot for this cluster has at least one of its Slurm nodes as a host; one with
// none is of another fabric (or names hosts otherwise) and must not be used.
void require_cluster_nodes(const ff_engine& engine, const std::string& path, const char* const* nodes,
                           size_t node_count) {
  if (nodes == nullptr || node_count == 0) return;
  for (size_t i = 0; i < node_count; ++i) {
    if (nodes[i] != nullptr && engine.index.find_host(nodes[i])) return;
  }
  throw fabricfit::SnapshotError(
      fmt::format("{}: none of the cluster's {} Slurm nodes is a host of this fabric (a snapshot of another "
                  "fabric?)",
                  path, node_count));
}

}  // namespace

int ff_engine_load_keeping_last_good(const char* snapshot_path, const char* last_good,
                                     const char* const* nodes, size_t node_count, ff_engine_t** out,
                                     int* from_last_good, char* err, size_t err_len) {
  if (out == nullptr || from_last_good == nullptr) return FF_EINTERNAL;
  *out = nullptr;
  *from_last_good = 0;
  return guarded(err, err_len, [&]() -> int {
    std::unique_ptr<ff_engine> engine;
    // The copy is what a restart falls back to (topology/snapshot.hpp: the rule slurmstepd
    // keeps its own copy by too).
    const auto load = fabricfit::load_snapshot_keeping_last_good(
        snapshot_path != nullptr ? snapshot_path : "", last_good != nullptr ? last_good : "",
        [&](fabricfit::Snapshot&& snapshot, const std::string& origin) {
          auto fresh = std::make_unique<ff_engine>(std::move(snapshot));
          require_cluster_nodes(*fresh, origin, nodes, node_count);
          engine = std::move(fresh);
        });
    *out = engine.release();
    if (!load.from_last_good) return FF_OK;
    *from_last_good = 1;
    copy_out(load.error, err, err_len);
    return FF_EINVAL;
  });
}

void ff_engine_free(ff_engine_t* engine) {
  delete engine;
}

void ff_engine_describe(const ff_engine_t* engine, char* out, size_t out_len) {
  if (engine == nullptr) {
    copy_out("none", out, out_len);
    return;
  }
  try {
    const auto& f = engine->snapshot.fabric;
    copy_out(
        fmt::format("hosts={} leaf_groups={} pods={} rails={} tiers={} degraded_links={} warnings={}",
                    engine->index.host_count(), engine->index.leaf_group_count(), engine->index.pod_count(),
                    engine->index.rails(), engine->index.tiers(), f.degraded_links.size(), f.warnings.size()),
        out, out_len);
  } catch (...) {
    copy_out("(unavailable)", out, out_len);
  }
}

int ff_engine_host_count(const ff_engine_t* engine) {
  return engine != nullptr ? engine->index.host_count() : 0;
}

int ff_engine_host(const ff_engine_t* engine, const char* node_name) {
  if (engine == nullptr || node_name == nullptr) return -1;
  try {
    const auto host = engine->index.find_host(node_name);
    return host ? *host : -1;
  } catch (...) {
    return -1;
  }
}

const char* ff_engine_host_name(const ff_engine_t* engine, int host) {
  if (engine == nullptr || host < 0 || host >= engine->index.host_count()) return nullptr;
  return engine->index.host_name(host).c_str();
}

int ff_engine_host_rank(const ff_engine_t* engine, int host) {
  if (engine == nullptr || host < 0 || host >= engine->index.host_count()) return -1;
  return engine->rank[host];
}

int ff_engine_host_leaf_group(const ff_engine_t* engine, int host) {
  if (engine == nullptr || host < 0 || host >= engine->index.host_count()) return -1;
  return engine->index.leaf_group_of(host);
}

int ff_engine_mark_whole_domains(const ff_engine_t* engine, unsigned char* hosts, int count) {
  if (engine == nullptr || hosts == nullptr || count != engine->index.host_count()) return -1;
  try {
    return fabricfit::mark_whole_domains(engine->index, {hosts, static_cast<std::size_t>(count)});
  } catch (...) {
    return -1;
  }
}

int ff_engine_segments(const ff_engine_t* engine, const int* hosts, unsigned nhosts, unsigned segment,
                       int* segment_of) {
  if (engine == nullptr || hosts == nullptr || segment_of == nullptr || segment == 0 || nhosts == 0)
    return -1;
  try {
    const auto segments =
        fabricfit::domain_segments(engine->index, {hosts, nhosts}, static_cast<int>(segment));
    if (segments.empty()) return -1;
    std::unordered_map<int, int> of_host;
    for (std::size_t s = 0; s < segments.size(); ++s) {
      for (const int h : segments[s]) of_host[h] = static_cast<int>(s);
    }
    for (unsigned i = 0; i < nhosts; ++i) segment_of[i] = of_host.at(hosts[i]);
    return static_cast<int>(segments.size());
  } catch (...) {
    return -1;
  }
}

int ff_engine_place(ff_engine_t* engine, const ff_request_t* request, const unsigned char* allowed,
                    const int* free_gpus, const int* total_gpus, int* chosen, unsigned* nchosen,
                    char* summary, size_t summary_len, char* err, size_t err_len) {
  if (engine == nullptr || request == nullptr || allowed == nullptr || free_gpus == nullptr ||
      total_gpus == nullptr || chosen == nullptr || nchosen == nullptr) {
    copy_out("internal error: missing argument", err, err_len);
    return FF_EINTERNAL;
  }
  *nchosen = 0;
  return guarded(err, err_len, [&]() -> int {
    const int n = engine->index.host_count();
    auto& gpus = engine->gpus;
    gpus.total.assign(total_gpus, total_gpus + n);
    gpus.free.assign(free_gpus, free_gpus + n);
    for (int h = 0; h < n; ++h) {
      gpus.total[h] = std::clamp(gpus.total[h], 0, ff_engine::kMaxGpusPerHost);
      gpus.free[h] = std::clamp(gpus.free[h], 0, gpus.total[h]);
    }
    engine->fit_frag(gpus);
    fabricfit::JobRequest job;
    job.min_nodes = static_cast<int>(std::min<unsigned>(request->min_nodes, static_cast<unsigned>(n)));
    job.max_nodes = static_cast<int>(std::min<unsigned>(request->max_nodes, static_cast<unsigned>(n)));
    job.gpus_per_node = static_cast<int>(request->gpus_per_node);
    job.total_gpus = static_cast<int>(request->total_gpus);
    job.exclusive = request->exclusive != 0;
    job.segment_nodes = static_cast<int>(std::min<unsigned>(request->segment, static_cast<unsigned>(n) + 1));
    job.pattern = fabricfit::capi::pattern_of(request->pattern);

    fabricfit::PlacementContext ctx{engine->index, gpus, engine->frag,
                                    std::span<const std::uint8_t>(allowed, static_cast<std::size_t>(n))};
    // The running jobs' sharing is read in place, under running_lock: its writers (the
    // record thread, the job-list scan) also hold a slurmctld job lock, which excludes
    // evaluations today; the mutex keeps that true if they ever stop. Their demands are
    // at peak, as the locality wait counts them.
    const std::lock_guard<std::mutex> lock(engine->running_lock);
    std::optional<fabricfit::RunningTraffic> running;
    if (!engine->running.empty()) {
      running.emplace(fabricfit::RunningTraffic{.bundles = engine->uplink_bundles(),
                                                .sharing = engine->running_sharing()});
      ctx.running = &*running;
    }
    // The fragmentation figures of the score are for explain: placing never reads them.
    std::optional<fabricfit::Decision> decision;
    fabricfit::HealthAvoidance health;
    if (engine->health.all_healthy()) {
      decision = engine->selector.decide(ctx, job, 0, fabricfit::FabricfitSelector::ScoreDetail::Traffic);
    } else {
      DecidingPolicy policy(engine->selector);
      const auto a = fabricfit::place_keeping_off_unhealthy(policy, ctx, job, engine->health, &health);
      if (health.waits_for_healthy) {
        copy_out("health=waits", summary, summary_len);
        return FF_EHEALTH;
      }
      if (a) {
        const fabricfit::Decision* d = policy.of(*a);
        if (d == nullptr) throw std::logic_error("the placement kept off unhealthy links has no decision");
        decision = *d;
      }
    }
    if (!decision) {
      // Hosts in NVLink domains were offered, none held the job, and yet the free GPUs hold
      // it by count: Slurm's own pick would span domains, so the job waits, as under
      // topology/block. A job that fits nowhere is Slurm's no-fit, as on any fabric.
      bool offered_domain_hosts = false;
      for (int h = 0; h < n && engine->index.domain_count() > 0 && !offered_domain_hosts; ++h)
        offered_domain_hosts = allowed[h] != 0 && engine->index.domain_of(h).has_value();
      if (offered_domain_hosts && fabricfit::FirstFitPolicy{}.place(ctx, job)) {
        copy_out("domain=waits", summary, summary_len);
        return FF_EDOMAIN;
      }
      return FF_ENOFIT;
    }
    const auto& a = decision->chosen.allocation;
    const auto& s = decision->chosen.score;
    for (std::size_t i = 0; i < a.hosts.size(); ++i) chosen[i] = a.hosts[i];
    *nchosen = static_cast<unsigned>(a.hosts.size());
    // The DebugFlags=Placement line: the placement record's units (GB crossing a spine per GB
    // of message volume, ms per GB on the busiest uplink), not the selector's internal cost.
    // One buffer on the stack, not a string per part: this runs in every evaluation.
    fmt::memory_buffer line;
    auto out = fmt::appender(line);
    fmt::format_to(out, "leaf_groups={} cross_spine_gb={:.3g}", s.leaf_groups, s.spine_bytes);
    if (s.pods > 0) fmt::format_to(out, " pods={} cross_core_gb={:.3g}", s.pods, s.core_bytes);
    if (s.nvlink_domains > 0) fmt::format_to(out, " nvlink_domains={}", s.nvlink_domains);
    fmt::format_to(out, " uplink_ms={:.3g}", 1000 * s.max_uplink_load);
    if (!s.bottleneck.empty()) fmt::format_to(out, " busiest_uplink={}", s.bottleneck);
    if (decision->uplink_share) fmt::format_to(out, " uplink_share={:.3g}", *decision->uplink_share);
    if (health.kept_off) fmt::format_to(out, " health=kept_off");
    if (health.took_degraded) fmt::format_to(out, " health=took_degraded");
    copy_out(std::string_view(line.data(), line.size()), summary, summary_len);
    return FF_OK;
  });
}

int ff_engine_use_routing(ff_engine_t* engine, int static_routing, char* err, size_t err_len) {
  if (engine == nullptr) {
    copy_out("internal error: missing argument", err, err_len);
    return FF_EINTERNAL;
  }
  return guarded(err, err_len, [&]() -> int {
    const std::lock_guard<std::mutex> lock(engine->running_lock);
    engine->use_routing(static_routing != 0 ? fabricfit::UplinkRouting::Static
                                            : fabricfit::UplinkRouting::Ecmp);
    return FF_OK;
  });
}

int ff_engine_fragmentation(const ff_engine_t* engine, const int* free_gpus, const int* total_gpus,
                            double* share, double* unusable_gpus, char* err, size_t err_len) {
  if (engine == nullptr || free_gpus == nullptr || total_gpus == nullptr || share == nullptr ||
      unusable_gpus == nullptr) {
    return FF_EINTERNAL;
  }
  return guarded(err, err_len, [&]() -> int {
    const int n = engine->index.host_count();
    fabricfit::GpuState gpus{std::vector<int>(total_gpus, total_gpus + n),
                             std::vector<int>(free_gpus, free_gpus + n)};
    for (int h = 0; h < n; ++h) {
      gpus.total[h] = std::clamp(gpus.total[h], 0, ff_engine::kMaxGpusPerHost);
      gpus.free[h] = std::clamp(gpus.free[h], 0, gpus.total[h]);
    }
    std::optional<fabricfit::FragModel> scratch;
    const auto report =
        fabricfit::measure_fragmentation(engine->index, gpus, engine->frag_for(gpus, scratch));
    *share = report.frag;
    *unusable_gpus = report.unusable;
    return FF_OK;
  });
}

unsigned ff_tres_gpus(const char* tres) {
  if (tres == nullptr) return 0;
  // Comma-separated "gres/gpu[:type]:count" (or "=count") items; other TRES are not GPUs.
  unsigned gpus = 0;
  std::string_view rest(tres);
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const auto item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    // "gres/gpu:8" (tres_per_node, tres_per_job) or "gres/gpu=2" (tres_per_task).
    if (item.rfind("gres/gpu", 0) != 0 || (item.size() > 8 && item[8] != ':' && item[8] != '=')) continue;
    const auto colon = item.find_last_of(":=");
    if (colon == std::string_view::npos) continue;
    unsigned count = 0;
    const auto digits = item.substr(colon + 1);
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), count);
    if (ec == std::errc{} && ptr == digits.data() + digits.size()) gpus += count;
  }
  return gpus;
}

}  // extern "C"
