// SPDX-License-Identifier: GPL-2.0-or-later
#include "replay/replay.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <queue>

#include "placement/domain_fragmentation.hpp"
#include "placement/placement_score.hpp"
#include "placement/runtime/runtime_predictor.hpp"
#include "placement/selection/health_avoidance.hpp"
#include "placement/traffic_matrix.hpp"
#include "replay/replay_metrics.hpp"
#include "site/site_config.hpp"

namespace fabricfit {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Departure {
  double at;
  int job;
  int version;  // a departure whose job was rescheduled since is stale
  friend bool operator>(const Departure& a, const Departure& b) {
    return a.at != b.at ? a.at > b.at : a.job > b.job;
  }
};

// A running job's progress: `work_s` of uncontended run time left at `since`, going at
// 1/slowdown.
struct Running {
  double work_s = 0;
  double since = 0;
  double slowdown = 1;
  double comm_share = 0;
  double cliff = 0;  // f x (R - 1) for a job spread over NVLink domains one could hold
  // f x (1 / keeps - 1) while a host of a job inside one NVLink domain has its NVLink
  // degraded: its collectives run at the degraded GPU's pace (a ring at its slowest link).
  double nvlink = 0;
  double gpu_comm_share = 0;  // gpu_comm_share_of: what NVLink carries of its time
  int version = 0;
  std::vector<BundleDemand> demand;  // as counted on the bundles (x f when time-averaged)
};

// A moment of a fault episode: a flapping link drops; a cable slows or recovers; a health
// sweep sees a state begin or end.
struct FaultTick {
  enum Kind { Drop, SlowOn, SlowOff, Seen, Cleared } kind;
  double at;
  int episode;
  friend bool operator>(const FaultTick& a, const FaultTick& b) {
    return a.at != b.at ? a.at > b.at : a.episode > b.episode;
  }
};

// Hosts a waiting job expects, until when.
struct Reservation {
  int job;
  double ready_s;
  std::vector<int> hosts;
  bool backfill = false;  // the queue's first blocked job (ReplayOptions::reserve_first_blocked)
};

class Simulation {
 public:
  Simulation(const LocalityIndex& index, const std::vector<TraceJob>& jobs, PlacementPolicy& policy,
             const FragModel& frag, const ReplayOptions& options)
      : index_(index),
        jobs_(jobs),
        policy_(policy),
        frag_(frag),
        options_(options),
        router_(index),
        bundles_(index, options.model.routing, options.fabric),
        sharing_(bundles_),
        adaptive_(options.wait.cap_s > 0 && policy.name() == "fabricfit") {
    gpus_ = GpuState::uniform(index.host_count(), options.node_gpus);
    for (int h = 0; h < index.host_count(); ++h) {
      if (index.leaf_group_of(h) < 0) gpus_.total[h] = gpus_.free[h] = 0;  // never placed on
      placeable_hosts_ += gpus_.total[h] > 0 ? 1 : 0;
      free_gpus_ += gpus_.free[h];
      cluster_gpus_ += gpus_.total[h];
    }
    allocations_.resize(jobs.size());
    counted_.assign(jobs.size(), 0);
    start_.assign(jobs.size(), -1.0);
    end_.assign(jobs.size(), -1.0);
    running_.resize(jobs.size());
    host_jobs_.resize(index.host_count());
    host_free_at_.assign(index.host_count(), 0.0);
    limit_.resize(jobs.size());
    for (std::size_t i = 0; i < jobs.size(); ++i)
      limit_[i] = replay_time_limit(jobs[i].duration_s, options.wait);
    remaining_.resize(jobs.size());
    for (std::size_t i = 0; i < jobs.size(); ++i) remaining_[i] = jobs[i].duration_s;
    failed_run_s_.assign(jobs.size(), 0.0);
    if ((options.faults.any() || !options.fault_episodes.empty()) && !jobs.empty()) plan_fault_ticks();
  }

  ReplayResult run() {
    result_.policy = policy_.name();
    result_.seed = options_.seed;
    if (jobs_.empty()) return result_;
    const double t0 = jobs_.front().submit_s;
    double t_prev = t0, frag_now = 0, frag_integral = 0, idle_fit_gpu_s = 0, over_s = 0;
    DomainFragmentation domains_now = measure_domain_fragmentation(index_, gpus_);
    double whole_domains_integral = 0, half_domains_integral = 0;
    double whole_domain_hosts_integral = 0, whole_free_hosts_integral = 0;
    std::size_t next = 0;
    // Until nothing runs, arrives or retries; fault ticks keep it going only while jobs wait
    // (a job a fault sent back waits on the ticks that clear the fabric): with none
    // pending they change nothing anyone waits for, and with none left the rest never starts.
    while (next < jobs_.size() || !departures_.empty() || !retries_.empty() ||
           (!pending_.empty() && !ticks_.empty())) {
      double t = next < jobs_.size() ? jobs_[next].submit_s : kInf;
      if (!departures_.empty()) t = std::min(t, departures_.top().at);
      if (!retries_.empty()) t = std::min(t, retries_.top());
      if (!ticks_.empty()) t = std::min(t, ticks_.top().at);
      while (!retries_.empty() && retries_.top() <= t) retries_.pop();
      const double dt = t - t_prev;
      frag_integral += frag_now * dt;
      whole_domains_integral += domains_now.whole_free_domains * dt;
      half_domains_integral += domains_now.half_domain_jobs * dt;
      whole_domain_hosts_integral += domains_now.whole_free_domain_hosts * dt;
      whole_free_hosts_integral += domains_now.whole_free_hosts * dt;
      if (index_.domain_count() > 0 && dt > 0) {
        const auto bucket = static_cast<std::size_t>(domains_now.whole_free_hosts / index_.largest_domain());
        if (bucket >= result_.share_bucket_s.size()) {
          result_.share_bucket_s.resize(bucket + 1, 0.0);
          result_.share_bucket_free_hosts.resize(bucket + 1, 0.0);
          result_.share_bucket_domain_hosts.resize(bucket + 1, 0.0);
          result_.share_bucket_half_jobs.resize(bucket + 1, 0.0);
        }
        result_.share_bucket_s[bucket] += dt;
        result_.share_bucket_free_hosts[bucket] += domains_now.whole_free_hosts * dt;
        result_.share_bucket_domain_hosts[bucket] += domains_now.whole_free_domain_hosts * dt;
        result_.share_bucket_half_jobs[bucket] += domains_now.half_domain_jobs * dt;
      }
      idle_fit_gpu_s += idle_fit_now_ * dt;
      over_s += sharing_.over_capacity() * dt;
      t_prev = t;
      bool changed = false;
      while (!departures_.empty() && departures_.top().at <= t) {
        const Departure d = departures_.top();
        departures_.pop();
        if (d.version != running_[d.job].version) continue;
        finish(d.job, t);
        changed = true;
      }
      while (!ticks_.empty() && ticks_.top().at <= t) {
        const FaultTick tick = ticks_.top();
        ticks_.pop();
        changed |= on_fault(tick, t);
      }
      while (next < jobs_.size() && jobs_[next].submit_s <= t) {
        const TraceJob& j = jobs_[next];
        if (j.nodes > placeable_hosts_ || j.gpus_per_node > options_.node_gpus) {
          ++result_.unplaceable;
        } else {
          pending_.push_back(static_cast<int>(next));
          ++pending_sizes_[j.gpus()];
          if (options_.retry_after_s > 0 && j.nodes >= 2) retries_.push(j.submit_s + options_.retry_after_s);
        }
        ++next;
      }
      changed |= schedule(t);
      if (changed) {
        frag_now = measure_fragmentation(index_, gpus_, frag_).frag;
        if (index_.domain_count() > 0) domains_now = measure_domain_fragmentation(index_, gpus_);
      }
      idle_fit_now_ = idle_while_fit();
    }
    result_.unplaceable += static_cast<int>(pending_.size());

    // A job that failed ran before its last start too: its run time counts those runs.
    for (std::size_t i = 0; i < jobs_.size(); ++i) {
      if (start_[i] >= 0) start_[i] -= failed_run_s_[i];
    }
    double end = t0, busy_gpu_seconds = 0;
    for (std::size_t i = 0; i < jobs_.size(); ++i) {
      if (start_[i] < 0) continue;
      end = std::max(end, end_[i]);
      busy_gpu_seconds += (end_[i] - start_[i]) * jobs_[i].gpus();
    }
    for (const FaultEpisode& e : episodes_) result_.faults.episodes += e.start_s < end ? 1 : 0;
    result_.makespan_s = end - t0;
    result_.frag_mean = end > t0 ? frag_integral / (end - t0) : 0.0;
    result_.domain_whole_free_mean = end > t0 ? whole_domains_integral / (end - t0) : 0.0;
    result_.domain_half_jobs_mean = end > t0 ? half_domains_integral / (end - t0) : 0.0;
    result_.domain_whole_free_share =
        whole_free_hosts_integral > 0 ? whole_domain_hosts_integral / whole_free_hosts_integral : 1.0;
    result_.share_bucket_hosts = index_.domain_count() > 0 ? index_.largest_domain() : 0;
    result_.idle_while_fit_gpu_hours = idle_fit_gpu_s / 3600;
    result_.uplink_over_capacity_s = over_s;
    result_.split_share =
        result_.one_group_jobs > 0 ? static_cast<double>(result_.split_jobs) / result_.one_group_jobs : 0.0;
    result_.domain_split_share =
        result_.domain_jobs > 0 ? static_cast<double>(result_.domain_split_jobs) / result_.domain_jobs : 0.0;
    result_.gpu_utilisation =
        result_.makespan_s > 0 ? busy_gpu_seconds / (static_cast<double>(cluster_gpus_) * result_.makespan_s)
                               : 0.0;
    result_.decision_us_mean = result_.decisions > 0 ? decision_seconds_ * 1e6 / result_.decisions : 0.0;
    fill_job_metrics(jobs_, start_, end_, index_.largest_leaf_group(), result_, index_.largest_domain());
    if (options_.keep_runs) {
      for (std::size_t i = 0; i < jobs_.size(); ++i) {
        if (start_[i] < 0) continue;
        result_.runs.push_back(JobRun{static_cast<int>(i), start_[i], end_[i], allocations_[i].hosts,
                                      alone_run_s(static_cast<int>(i))});
      }
    }
    return result_;
  }

 private:
  // Free GPUs that queued jobs could fill by count: what is idle while such a job waits.
  [[nodiscard]] double idle_while_fit() const {
    long fit = 0;
    for (const auto& [g, n] : pending_sizes_) {
      if (g > free_gpus_) break;
      fit += static_cast<long>(g) * n;
      if (fit >= free_gpus_) break;
    }
    return static_cast<double>(std::min(fit, free_gpus_));
  }

  // Hosts this job may not use: drained ones (ReplayOptions::drain_failing), and reserved
  // ones of reservations it would not end in time for.
  // mask_key_ names the set left out, so that a failure is remembered per set and the mask
  // is only rebuilt when the set changes.
  std::span<const std::uint8_t> mask_for(int i, double t) {
    // Drained hosts key the mask apart from any set of reservations (the top bit).
    mask_key_ = drained_count_ > 0 ? drain_generation_ | (1ULL << 63) : 0;
    if (reservations_.empty() && mask_key_ == 0) return {};
    // Slurm's backfill checks a job ends before a reservation by its time limit.
    const double end = t + limit_[i];
    for (const Reservation& r : reservations_) {
      if (r.job == i || end <= r.ready_s) continue;
      mask_key_ = mask_key_ * 1000003ULL + static_cast<std::uint64_t>(r.job) + 1;
    }
    if (mask_key_ == 0) return {};
    if (mask_key_ != built_key_ || mask_.empty()) {
      mask_.assign(index_.host_count(), 1);
      if (drained_count_ > 0) {
        for (int h = 0; h < index_.host_count(); ++h) mask_[h] = drained_[h] ? 0 : 1;
      }
      for (const Reservation& r : reservations_) {
        if (r.job == i || end <= r.ready_s) continue;
        for (int h : r.hosts) mask_[h] = 0;
      }
      built_key_ = mask_key_;
    }
    return mask_;
  }

  // One pass over the queue in FIFO order. Shapes that failed in this pass are not tried
  // again in it with the same hosts allowed: the cluster only fills up until the pass ends.
  bool schedule(double t) {
    bool changed = false;
    failed_.clear();
    // The first blocked job's reservation is made again on every pass, as Slurm's backfill
    // plans again on every cycle.
    if (options_.reserve_first_blocked &&
        std::erase_if(reservations_, [](const Reservation& r) { return r.backfill; }) > 0) {
      built_key_ = 0;
    }
    bool reserved = !options_.reserve_first_blocked;
    std::size_t kept = 0;
    for (std::size_t q = 0; q < pending_.size(); ++q) {
      const int i = pending_[q];
      const TraceJob& job = jobs_[i];
      const auto allowed = mask_for(i, t);
      const std::tuple<int, int, std::uint64_t> shape{job.nodes, job.gpus_per_node, mask_key_};
      const JobRequest request = request_for(i, t);
      if (job.gpus() > free_gpus_ || std::find(failed_.begin(), failed_.end(), shape) != failed_.end()) {
        if (!reserved) reserved = reserve_first_blocked(i, t, request, allowed);
        pending_[kept++] = i;
        continue;
      }
      const double f =
          options_.model.enabled ? comm_share_of(job, options_.model.comm_shares, options_.seed) : 0.0;
      // The running jobs' traffic, for a policy that keeps a split job's flows off loaded cables.
      const RunningTraffic running{
          .bundles = bundles_,
          .sharing = sharing_,
          .demand_scale = options_.model.demand == DemandMode::TimeAveraged ? f : 1.0};
      const bool communicates = f > 0 && job.nodes >= 2;
      const auto started = std::chrono::steady_clock::now();
      const PlacementContext ctx{index_, gpus_, frag_, allowed, communicates ? &running : nullptr};
      std::optional<Allocation> a;
      bool waits_for_healthy = false;
      if (health_aware_) {
        HealthAvoidance what;
        a = place_keeping_off_unhealthy(policy_, ctx, request, seen_, &what);
        result_.faults.kept_off += what.kept_off ? 1 : 0;
        result_.faults.took_degraded += what.took_degraded ? 1 : 0;
        result_.faults.waited_for_healthy += what.waits_for_healthy ? 1 : 0;
        waits_for_healthy = what.waits_for_healthy;
      } else {
        a = policy_.place(ctx, request);
      }
      decision_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      ++result_.decisions;
      if (!a) {
        failed_.push_back(shape);
        // A job that fits now but keeps off unhealthy parts is not short of hosts.
        if (!reserved && !waits_for_healthy) reserved = reserve_first_blocked(i, t, request, allowed);
        pending_[kept++] = i;
        continue;
      }
      const TrafficMatrix traffic = TrafficMatrix::build(request.pattern, a->gpus);
      std::vector<BundleDemand> demand = demand_on(traffic, a->hosts, f);
      if (adaptive_ && should_wait(i, *a, demand, f, t)) {
        pending_[kept++] = i;
        continue;
      }
      if (std::erase_if(reservations_, [&](const Reservation& r) { return r.job == i; }) > 0) built_key_ = 0;
      start(i, std::move(*a), traffic, std::move(demand), f, t);
      changed = true;
    }
    pending_.resize(kept);
    return changed;
  }

  JobRequest request_for(int i, double t) const {
    const TraceJob& job = jobs_[i];
    JobRequest request;
    request.min_nodes = job.nodes;
    request.gpus_per_node = job.gpus_per_node;
    request.pattern = options_.rule.pattern_for(job);
    request.waited_s = t - job.submit_s;
    if (asks_segment(job, options_.segment_nodes, index_.largest_domain())) {
      request.segment_nodes = options_.segment_nodes;
    }
    return request;
  }

  // Slurm's backfill, as EASY backfill has it: the first job of the queue that cannot start
  // gets the hosts the policy would give it once enough running jobs have ended (by their
  // time limits, earliest first), and no later job may take them unless its limit ends it
  // by then (mask_for). Returns whether a reservation was made; a job that could not be
  // placed even on a cluster with every running job ended (wider than the fabric, say)
  // gets none and the next blocked job is asked.
  bool reserve_first_blocked(int i, double t, const JobRequest& request,
                             std::span<const std::uint8_t> allowed) {
    // The jobs running now (on hosts: a job a fault sent back to the queue holds none), by
    // expected end; one past its limit is expected to end now.
    std::vector<int> running;
    for (const auto& on : host_jobs_) running.insert(running.end(), on.begin(), on.end());
    std::sort(running.begin(), running.end());
    running.erase(std::unique(running.begin(), running.end()), running.end());
    std::vector<std::pair<double, int>> ends;  // (expected end, running job)
    for (const int j : running) ends.emplace_back(std::max(t, start_[j] + limit_[j]), j);
    std::sort(ends.begin(), ends.end());
    // Whether the job fits once the first k of them ended; the hosts it would get.
    const auto fits_after = [&](std::size_t k) -> std::optional<Allocation> {
      GpuState future = gpus_;
      for (std::size_t e = 0; e < k; ++e) {
        const Allocation& a = allocations_[ends[e].second];
        for (std::size_t h = 0; h < a.hosts.size(); ++h) future.free[a.hosts[h]] += a.gpus[h];
      }
      const PlacementContext ctx{index_, future, frag_, allowed, nullptr};
      // As the job would be placed then: fabricfit off what the sweeps saw unhealthy.
      return health_aware_ ? place_keeping_off_unhealthy(policy_, ctx, request, seen_)
                           : policy_.place(ctx, request);
    };
    if (ends.empty()) return false;
    // Fitting only grows as hosts free (all but always): a binary search over k.
    std::size_t lo = 1, hi = ends.size();
    std::optional<Allocation> found = fits_after(hi);
    if (!found) return false;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (auto a = fits_after(mid)) {
        hi = mid;
        found = std::move(a);
      } else {
        lo = mid + 1;
      }
    }
    reservations_.push_back(Reservation{i, ends[hi - 1].first, found->hosts, true});
    built_key_ = 0;
    return true;
  }

  // A multi-host job's demand on the uplink bundles from `hosts` (x f when time-averaged);
  // none for one host or a job that does not communicate.
  std::vector<BundleDemand> demand_on(const TrafficMatrix& traffic, const std::vector<int>& hosts,
                                      double f) const {
    if (f <= 0 || hosts.size() < 2) return {};
    std::vector<BundleDemand> demand = bundles_.demand(traffic, hosts);
    if (options_.model.demand == DemandMode::TimeAveraged) {
      for (BundleDemand& d : demand) d.gbps *= f;
    }
    return demand;
  }

  // The adaptive locality wait for a multi-host job: for one leaf group when one could hold
  // it, else for the fewest groups that could.
  bool should_wait(int i, const Allocation& a, const std::vector<BundleDemand>& demand, double f, double t) {
    const TraceJob& job = jobs_[i];
    if (job.nodes < 2) return false;
    const int groups = leaf_groups_spanned(index_, a.hosts);
    const bool wide = job.nodes > index_.largest_leaf_group();
    if (groups <= (wide ? fewest_leaf_groups(index_, job.nodes) : 1)) return false;
    const double s_now = slowdown(f, sharing_.rho_if_added(demand), options_.model.demand);
    const int asked =
        asks_segment(job, options_.segment_nodes, index_.largest_domain()) ? options_.segment_nodes : 0;
    const int segment = wait_segment(index_, asked, job.nodes, index_.domain_of(a.hosts.front()).has_value());
    const GroupReadiness target = wide ? earliest_groups(index_, gpus_, free_at(t), job.nodes,
                                                         job.gpus_per_node, t, mask_for(i, t), segment)
                                       : earliest_group(index_, gpus_, free_at(t), job.nodes,
                                                        job.gpus_per_node, t, mask_for(i, t), segment);
    // The hosts that count may need as many groups as the placement now: nothing to wait for.
    if (wide && target.leaf_group >= 0 && static_cast<int>(target.leaf_groups.size()) >= groups) return false;
    // One group: no uplink traffic. Several: the job's own traffic there, beside what runs now.
    double s_best = 1.0;
    if (wide && target.leaf_group >= 0 && f > 0) {
      const std::vector<int> per_host(target.hosts.size(), job.gpus_per_node);
      const auto there =
          demand_on(TrafficMatrix::build(options_.rule.pattern_for(job), per_host), target.hosts, f);
      s_best = slowdown(f, sharing_.rho_if_added(there), options_.model.demand);
    }
    const WaitAdvice advice =
        advise_locality_wait(predicted_run(i), s_now, s_best, target, t, t - job.submit_s, options_.wait);
    if (!advice.wait || !(advice.until_s > t)) return false;
    std::erase_if(reservations_, [&](const Reservation& r) { return r.job == i; });
    reservations_.push_back(Reservation{i, target.ready_s, target.hosts});
    built_key_ = 0;
    if (!waited_[i]) {
      waited_[i] = true;
      ++result_.locality_waits;
    }
    retries_.push(advice.until_s);
    return true;
  }

  void start(int i, Allocation a, const TrafficMatrix& traffic, std::vector<BundleDemand> demand, double f,
             double t) {
    const TraceJob& job = jobs_[i];
    for (std::size_t k = 0; k < a.hosts.size(); ++k) {
      gpus_.free[a.hosts[k]] -= a.gpus[k];
      free_gpus_ -= a.gpus[k];
    }
    if (--pending_sizes_[job.gpus()] == 0) pending_sizes_.erase(job.gpus());
    for (int h : a.hosts) {
      host_jobs_[h].push_back(i);
      host_free_at_[h] = std::max(host_free_at_[h], t + limit_[i]);
    }
    if (job.nodes >= 2 && start_[i] < 0) {  // a job restarted after a fault counts once
      const PlacementScore s = router_.route_hosts(traffic, a.hosts);
      const double volume = options_.rule.volume_gb(job);
      result_.cross_spine_gb += s.spine_bytes * volume;
      result_.cross_core_gb += s.core_bytes * volume;
      if (job.nodes <= index_.largest_leaf_group()) {
        ++result_.one_group_jobs;
        result_.split_jobs += s.leaf_groups > 1 ? 1 : 0;
      }
    }
    start_[i] = t;
    allocations_[i] = std::move(a);
    Running& r = running_[i];
    r.work_s = remaining_[i];
    r.since = t;
    r.comm_share = f;
    r.cliff = cliff(f, spreads_domains(i, allocations_[i]));
    r.demand = std::move(demand);
    changed_.clear();
    sharing_.add(i, r.demand, changed_);
    // f itself for a multi-host job (comm_share_of is gpu_comm_share_of there).
    r.gpu_comm_share =
        options_.model.enabled ? gpu_comm_share_of(job, options_.model.comm_shares, options_.seed) : 0.0;
    r.nvlink = nvlink_slowing(i, allocations_[i], r.gpu_comm_share);
    r.slowdown = pace(r);
    departures_.push(Departure{t + r.work_s * r.slowdown, i, r.version});
    reshare(i, t);
  }

  // Whether job i, which one NVLink domain could hold, got hosts of several (or hosts in
  // none beside a domain's); counted once per job, as split_jobs.
  bool spreads_domains(int i, const Allocation& a) {
    const TraceJob& job = jobs_[i];
    if (index_.domain_count() == 0 || job.nodes < 2 || job.nodes > index_.largest_domain()) return false;
    const bool spread = spread_over_domains(a);
    if (!counted_[i]) {
      counted_[i] = true;
      ++result_.domain_jobs;
      result_.domain_split_jobs += spread ? 1 : 0;
    }
    return spread;
  }

  void finish(int i, double t) {
    release(i);
    end_[i] = t;
    // The trace has no users: every job is one user's, as in the lab.
    predictor_.observe(0, static_cast<std::uint64_t>(i), limit_[i], t - start_[i], t);
    Running& r = running_[i];
    ++r.version;
    changed_.clear();
    sharing_.remove(i, r.demand, changed_);
    reshare(i, t);
  }

  // Job i's run alone on the fabric (JobRun::alone_s): on the hosts fabricfit gives it on an
  // empty cluster (the fewest leaf groups and domains, the uplinks that carry it best), with
  // no other job's traffic beside its own, on the fabric as given (no fault), as the
  // run-time model prices it: a reference for what placement could save it, not a proven
  // minimum over placements; a job one host holds runs its duration.
  double alone_run_s(int i) {
    const TraceJob& job = jobs_[i];
    const double f =
        options_.model.enabled ? comm_share_of(job, options_.model.comm_shares, options_.seed) : 0.0;
    if (f <= 0 || job.nodes < 2) return job.duration_s;
    if (!alone_policy_) {
      alone_policy_ = make_policy("fabricfit");
      empty_gpus_ = gpus_;
      empty_gpus_.free = empty_gpus_.total;
      // The fabric as given, not as the faults left it when the replay ended (a cable still
      // slow then would price every job on it, and differ from policy to policy).
      alone_bundles_.emplace(index_, options_.model.routing, options_.fabric);
    }
    const PlacementContext ctx{index_, empty_gpus_, frag_};
    const JobRequest request = request_for(i, job.submit_s);
    const auto a = alone_policy_->place(ctx, request);
    if (!a) return job.duration_s;
    const auto demand = demand_on(TrafficMatrix::build(request.pattern, a->gpus), a->hosts, f);
    const BandwidthSharing alone(*alone_bundles_);
    const bool spread =
        index_.domain_count() > 0 && job.nodes <= index_.largest_domain() && spread_over_domains(*a);
    return job.duration_s *
           (slowdown(f, alone.rho_if_added(demand), options_.model.demand) + cliff(f, spread));
  }

  // Hosts of two domains, or of a domain and none; a job wholly on hosts in no domain is on
  // InfiniBand by choice of the site, not spread.
  [[nodiscard]] bool spread_over_domains(const Allocation& a) const {
    const auto first = index_.domain_of(a.hosts.front());
    return std::ranges::any_of(a.hosts, [&](int h) { return index_.domain_of(h) != first; });
  }

  // The cliff's slowing of a job of communication share f spread over domains one could
  // hold: its time in collectives at InfiniBand's bandwidth, not NVLink's.
  [[nodiscard]] double cliff(double f, bool spread) const {
    return spread ? f * (options_.model.domain_cliff - 1) : 0.0;
  }

  // The job's hosts and GPUs back.
  void release(int i) {
    const Allocation& a = allocations_[i];
    for (std::size_t k = 0; k < a.hosts.size(); ++k) {
      gpus_.free[a.hosts[k]] += a.gpus[k];
      free_gpus_ += a.gpus[k];
      auto& on = host_jobs_[a.hosts[k]];
      std::erase(on, i);
      double latest = 0;
      for (int j : on) latest = std::max(latest, start_[j] + limit_[j]);
      host_free_at_[a.hosts[k]] = latest;
    }
  }

  // Fault episodes as ticks: a flapping link drops at its start and every flap_every_s
  // until repaired; a sub-healthy cable slows at its start and recovers at its end; a
  // health sweep sees each state detect_s after it begins and after it ends.
  void plan_fault_ticks() {
    const FaultRates& f = options_.faults;
    double last = jobs_.front().submit_s;
    double longest = 0;
    for (const TraceJob& j : jobs_) {
      last = std::max(last, j.submit_s);
      longest = std::max(longest, j.duration_s);
    }
    // Long enough for a replay whose queue drains well after the last arrival.
    episodes_ = !options_.fault_episodes.empty() ? options_.fault_episodes
                                                 : plan_faults(index_, f, jobs_.front().submit_s,
                                                               last + 4 * longest + 86400, options_.seed);
    for (int e = 0; e < static_cast<int>(episodes_.size()); ++e) {
      const FaultEpisode& ep = episodes_[e];
      if (ep.kind == FaultKind::Flap) {
        for (double at = ep.start_s; at < ep.end_s; at += f.flap_every_s)
          ticks_.push({FaultTick::Drop, at, e});
      } else {
        ticks_.push({FaultTick::SlowOn, ep.start_s, e});
        ticks_.push({FaultTick::SlowOff, ep.end_s, e});
      }
      ticks_.push({FaultTick::Seen, ep.start_s + f.detect_s, e});
      ticks_.push({FaultTick::Cleared, ep.end_s + f.detect_s, e});
    }
    seen_.host_link.assign(index_.host_count(), PartHealth::Healthy);
    seen_.uplinks.assign(index_.leaf_group_count(), PartHealth::Healthy);
    seen_.nvlink.assign(index_.host_count(), PartHealth::Healthy);
    host_seen_.assign(index_.host_count(), {0, 0});
    nvlink_seen_.assign(index_.host_count(), {0, 0});
    drained_.assign(index_.host_count(), 0);
    uplink_seen_.assign(index_.leaf_group_count(), {0, 0});
    slow_count_.assign(index_.leaf_group_count(), 0);
    nvlink_slow_.assign(index_.host_count(), 0);
    nvlink_slow_hosts_ = 0;
    health_aware_ = policy_.name() == "fabricfit";
  }

  bool on_fault(const FaultTick& tick, double t) {
    const FaultEpisode& ep = episodes_[tick.episode];
    const bool host = ep.target == FaultTarget::HostLink;
    switch (tick.kind) {
      case FaultTick::Drop: return drop(ep, t);
      case FaultTick::SlowOn:
      case FaultTick::SlowOff: {
        if (ep.target == FaultTarget::Nvlink) {
          int& n = nvlink_slow_[ep.where];
          const bool was = n > 0;
          n += tick.kind == FaultTick::SlowOn ? 1 : -1;
          nvlink_slow_hosts_ += (n > 0 ? 1 : 0) - (was ? 1 : 0);
          if (was != (n > 0)) slow_nvlink(ep.where, t);
          return false;
        }
        int& n = slow_count_[ep.where];
        const bool was = n > 0;
        n += tick.kind == FaultTick::SlowOn ? 1 : -1;
        if (was != (n > 0)) slow_uplinks(ep.where, n > 0, t);
        return false;
      }
      case FaultTick::Seen:
      case FaultTick::Cleared: {
        const bool nvlink = ep.target == FaultTarget::Nvlink;
        auto& n = (nvlink ? nvlink_seen_ : host ? host_seen_ : uplink_seen_)[ep.where];
        (ep.kind == FaultKind::Flap ? n.first : n.second) += tick.kind == FaultTick::Seen ? 1 : -1;
        (nvlink ? seen_.nvlink
         : host ? seen_.host_link
                : seen_.uplinks)[ep.where] = n.first > 0    ? PartHealth::Failing
                                             : n.second > 0 ? PartHealth::Degraded
                                                            : PartHealth::Healthy;
        if (options_.drain_failing && ep.target != FaultTarget::Uplink) {
          const bool drain = seen_.host(ep.where) == PartHealth::Failing;
          if (drain != (drained_[ep.where] != 0)) {
            drained_[ep.where] = drain ? 1 : 0;
            drained_count_ += drain ? 1 : -1;
            ++drain_generation_;  // a mask key of its own: no cached mask or failed shape holds
            built_key_ = 0;
          }
        }
        return true;  // what the placement may use changed: the queue is looked at again
      }
    }
    return false;
  }

  // A link drops: every job whose traffic crosses it fails. A host's link carries its
  // multi-host jobs' traffic; a leaf group's uplinks carry that of every job split over
  // that group (ECMP and static alike: a job's flows use all the group's cables); a host's
  // NVLink that of its multi-host jobs and of its one-host jobs of more than one GPU.
  bool drop(const FaultEpisode& ep, double t) {
    failing_.clear();
    const auto consider = [&](int h) {
      for (int j : host_jobs_[h]) {
        if (ep.target == FaultTarget::Nvlink) {
          if (jobs_[j].nodes >= 2 || jobs_[j].gpus() >= 2) failing_.push_back(j);
          continue;
        }
        if (jobs_[j].nodes < 2) continue;
        if (ep.target == FaultTarget::HostLink || spans_groups(allocations_[j])) failing_.push_back(j);
      }
    };
    if (ep.target != FaultTarget::Uplink) {
      consider(ep.where);
    } else {
      for (int h : index_.hosts_of(ep.where)) consider(h);
    }
    std::sort(failing_.begin(), failing_.end());
    failing_.erase(std::unique(failing_.begin(), failing_.end()), failing_.end());
    for (int j : failing_) fail(j, t);
    return !failing_.empty();
  }

  [[nodiscard]] bool spans_groups(const Allocation& a) const {
    const int first = index_.leaf_group_of(a.hosts.front());
    return std::any_of(a.hosts.begin(), a.hosts.end(),
                       [&](int h) { return index_.leaf_group_of(h) != first; });
  }

  // The job stops; it goes back to the queue (in its arrival order, as Slurm requeues it)
  // to run again from its last checkpoint, taken every checkpoint_s of its work.
  void fail(int i, double t) {
    const TraceJob& job = jobs_[i];
    Running& r = running_[i];
    const double left = std::max(0.0, r.work_s - (t - r.since) / r.slowdown);
    const double done = job.duration_s - left;
    const double restart_point = job.duration_s - remaining_[i];
    const double ckpt = options_.faults.checkpoint_s;
    const double kept = std::max(restart_point, std::floor(done / ckpt) * ckpt);
    result_.faults.gpu_hours_redone += (done - kept) * r.slowdown * job.gpus() / 3600;
    ++result_.faults.jobs_failed;
    remaining_[i] = job.duration_s - kept;
    failed_run_s_[i] += t - start_[i];
    release(i);
    ++r.version;
    changed_.clear();
    sharing_.remove(i, r.demand, changed_);
    reshare(i, t);
    const auto at = std::lower_bound(pending_.begin(), pending_.end(), i);
    pending_.insert(at, i);
    ++pending_sizes_[job.gpus()];
  }

  // A sub-healthy cable keeps slow_keeps of its rate: under ECMP the whole group's
  // capacity follows its slowest cable.
  void slow_uplinks(int leaf, bool slow, double t) {
    changed_.clear();
    for (int b : bundles_.slowed_by_cable(leaf)) {
      if (slow) base_capacity_[b] = bundles_.capacity_gbps(b);
      bundles_.set_capacity(b, slow ? base_capacity_[b] * options_.faults.slow_keeps : base_capacity_[b]);
      sharing_.capacity_changed(b, changed_);
    }
    reshare(-1, t);
  }

  // The run time the wait takes for job i: its time limit, or the prediction.
  [[nodiscard]] double predicted_run(int i) const {
    return options_.wait.estimate == RunEstimate::History ? predictor_.predict_run(0, limit_[i]) : limit_[i];
  }

  // When each host's jobs are expected to end: by their limits (host_free_at_), or as
  // the predictor says now, as slurmctld asks it at each evaluation (a job past its
  // prediction at its limit).
  std::span<const double> free_at(double t) {
    if (options_.wait.estimate != RunEstimate::History) return host_free_at_;
    free_at_now_.assign(host_free_at_.size(), 0.0);
    for (std::size_t h = 0; h < host_jobs_.size(); ++h) {
      for (int j : host_jobs_[h]) {
        free_at_now_[h] = std::max(free_at_now_[h], predictor_.predict_end(0, limit_[j], start_[j], t));
      }
    }
    return free_at_now_;
  }

  // The slowing of job i on `a` by degraded NVLink (Running::nvlink): a job NVLink paces
  // (crossed_parts: inside one domain, several hosts or several GPUs on its one host; across
  // domains only with tensor parallel groups) with a degraded host among its own. Its time
  // in collectives (`f`: gpu_comm_share_of, 0 for one GPU) takes 1 / keeps as long; across
  // domains the InfiniBand between them paces ring, tree and all-to-all traffic.
  [[nodiscard]] double nvlink_slowing(int i, const Allocation& a, double f) const {
    if (nvlink_slow_hosts_ == 0 || f <= 0 || a.hosts.empty()) return 0.0;
    if (!crossed_parts(index_, a, options_.rule.pattern_for(jobs_[i])).nvlink_paced) return 0.0;
    const bool slowed = std::ranges::any_of(a.hosts, [&](int h) { return nvlink_slow_[h] > 0; });
    return slowed ? f * (1.0 / options_.faults.slow_keeps - 1.0) : 0.0;
  }

  // Host h's NVLink turned degraded or recovered: its jobs progress at their new pace.
  void slow_nvlink(int h, double t) {
    for (int j : host_jobs_[h]) {
      Running& r = running_[j];
      r.nvlink = nvlink_slowing(j, allocations_[j], r.gpu_comm_share);
      rerate(j, t);
    }
  }

  // A running job's slowdown now: its bandwidth share, the cliff, degraded NVLink.
  [[nodiscard]] double pace(const Running& r) const {
    return slowdown(r.comm_share, sharing_.rho(r.demand), options_.model.demand) + r.cliff + r.nvlink;
  }

  // Job j progresses at its pace of now from t on.
  void rerate(int j, double t) {
    Running& r = running_[j];
    const double s = pace(r);
    if (std::abs(s - r.slowdown) < 1e-12) return;
    r.work_s = std::max(0.0, r.work_s - (t - r.since) / r.slowdown);
    r.since = t;
    r.slowdown = s;
    ++r.version;
    departures_.push(Departure{t + r.work_s * s, j, r.version});
  }

  // Jobs on the bundles whose sharing changed progress at their new pace from now on.
  void reshare(int except, double t) {
    touched_.clear();
    for (int b : changed_) {
      for (const auto& [j, gbps] : sharing_.jobs_on(b)) {
        if (j != except) touched_.push_back(j);
      }
    }
    std::sort(touched_.begin(), touched_.end());
    touched_.erase(std::unique(touched_.begin(), touched_.end()), touched_.end());
    for (int j : touched_) rerate(j, t);
  }

  const LocalityIndex& index_;
  const std::vector<TraceJob>& jobs_;
  PlacementPolicy& policy_;
  const FragModel& frag_;
  const ReplayOptions& options_;
  TrafficRouter router_;
  UplinkBundles bundles_;
  BandwidthSharing sharing_;
  bool adaptive_;
  GpuState gpus_;
  int placeable_hosts_ = 0;
  long free_gpus_ = 0;
  long cluster_gpus_ = 0;
  std::vector<Allocation> allocations_;
  std::vector<double> start_, end_, host_free_at_, limit_, free_at_now_;
  RunTimePredictor predictor_;
  std::vector<Running> running_;
  std::vector<std::vector<int>> host_jobs_;
  std::vector<int> pending_;
  std::map<int, int> pending_sizes_;  // GPUs -> queued jobs of that size
  double idle_fit_now_ = 0;
  std::vector<std::tuple<int, int, std::uint64_t>> failed_;
  std::uint64_t mask_key_ = 0, built_key_ = 0;
  // Hosts drained by a health check (ReplayOptions::drain_failing), how many, and a count
  // of the changes (nonzero once any: it keys the mask).
  std::vector<std::uint8_t> drained_;
  int drained_count_ = 0;
  std::uint64_t drain_generation_ = 0;
  std::vector<Reservation> reservations_;
  std::vector<std::uint8_t> mask_;
  std::map<int, bool> waited_;
  std::vector<char> counted_;  // domain_jobs counts a restarted job once
  std::vector<int> changed_, touched_;
  // Faults: the episodes, their ticks, what health sweeps have seen (per host and group:
  // episodes seen and not yet cleared), slowed groups and their cables' healthy capacity.
  std::vector<double> remaining_, failed_run_s_;
  std::vector<FaultEpisode> episodes_;
  std::priority_queue<FaultTick, std::vector<FaultTick>, std::greater<>> ticks_;
  FabricHealthView seen_;
  // Per host and group: flapping and sub-healthy episodes seen and not yet cleared.
  std::vector<std::pair<int, int>> host_seen_, uplink_seen_, nvlink_seen_;
  std::vector<int> slow_count_, failing_;
  std::vector<int> nvlink_slow_;  // per host: its NVLink's degraded episodes now
  int nvlink_slow_hosts_ = 0;     // hosts with one
  std::map<int, double> base_capacity_;
  bool health_aware_ = false;
  std::priority_queue<Departure, std::vector<Departure>, std::greater<>> departures_;
  std::priority_queue<double, std::vector<double>, std::greater<>> retries_;
  double decision_seconds_ = 0;
  // alone_run_s: fabricfit on an empty cluster.
  std::unique_ptr<PlacementPolicy> alone_policy_;
  GpuState empty_gpus_;
  std::optional<UplinkBundles> alone_bundles_;
  ReplayResult result_;
};

}  // namespace

ReplayResult replay_trace(const LocalityIndex& index, const std::vector<TraceJob>& jobs,
                          PlacementPolicy& policy, const FragModel& frag, const ReplayOptions& options) {
  return Simulation(index, jobs, policy, frag, options).run();
}

bool asks_segment(const TraceJob& job, int segment, int largest_domain) {
  return segment > 0 && largest_domain > 0 && job.nodes > largest_domain && job.nodes % segment == 0;
}

LocalityWaitSettings plugin_default_wait() {
  const SiteConfig site;
  LocalityWaitSettings wait;
  wait.cap_s = site.locality_wait_max_s;
  wait.estimate = site.locality_wait_history_estimate ? RunEstimate::History : RunEstimate::TimeLimit;
  return wait;
}

}  // namespace fabricfit
