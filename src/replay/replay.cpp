// SPDX-License-Identifier: GPL-2.0-or-later
#include "replay/replay.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <limits>
#include <queue>

#include "placement/placement_score.hpp"
#include "placement/traffic_matrix.hpp"

namespace fabricfit {
namespace {

struct Departure {
  double at;
  int job;
  friend bool operator>(const Departure& a, const Departure& b) {
    return a.at != b.at ? a.at > b.at : a.job > b.job;
  }
};

class Simulation {
 public:
  Simulation(const LocalityIndex& index, const std::vector<TraceJob>& jobs, PlacementPolicy& policy,
             const FragModel& frag, const ReplayOptions& options)
      : index_(index), jobs_(jobs), policy_(policy), frag_(frag), options_(options), router_(index) {
    gpus_ = GpuState::uniform(index.host_count(), options.node_gpus);
    for (int h = 0; h < index.host_count(); ++h) {
      if (index.leaf_group_of(h) < 0) gpus_.total[h] = gpus_.free[h] = 0;  // never placed on
      placeable_hosts_ += gpus_.total[h] > 0 ? 1 : 0;
      free_gpus_ += gpus_.free[h];
      cluster_gpus_ += gpus_.total[h];
    }
    allocations_.resize(jobs.size());
    start_.assign(jobs.size(), -1.0);
  }

  ReplayResult run() {
    result_.policy = policy_.name();
    if (jobs_.empty()) return result_;
    const double t0 = jobs_.front().submit_s;
    double t_prev = t0, frag_now = 0, frag_integral = 0, busy_gpu_seconds = 0;
    std::size_t next = 0;
    while (next < jobs_.size() || !running_.empty() || !retries_.empty()) {
      double t = next < jobs_.size() ? jobs_[next].submit_s : std::numeric_limits<double>::infinity();
      if (!running_.empty()) t = std::min(t, running_.top().at);
      if (!retries_.empty()) t = std::min(t, retries_.top());
      while (!retries_.empty() && retries_.top() <= t) retries_.pop();
      frag_integral += frag_now * (t - t_prev);
      t_prev = t;
      bool changed = false;
      while (!running_.empty() && running_.top().at <= t) {
        release(running_.top().job);
        running_.pop();
        changed = true;
      }
      while (next < jobs_.size() && jobs_[next].submit_s <= t) {
        const TraceJob& j = jobs_[next];
        if (j.nodes > placeable_hosts_ || j.gpus_per_node > options_.node_gpus) {
          ++result_.unplaceable;
        } else {
          pending_.push_back(static_cast<int>(next));
          if (options_.retry_after_s > 0 && j.nodes >= 2) retries_.push(j.submit_s + options_.retry_after_s);
        }
        ++next;
      }
      changed |= schedule(t);
      if (changed) frag_now = measure_fragmentation(index_, gpus_, frag_).frag;
      if (running_.empty() && next >= jobs_.size() && retries_.empty()) break;  // the rest never starts
    }
    result_.unplaceable += static_cast<int>(pending_.size());

    std::vector<double> waits;
    double end = t0, multi_wait = 0;
    int multi = 0;
    for (std::size_t i = 0; i < jobs_.size(); ++i) {
      if (start_[i] < 0) continue;
      waits.push_back(start_[i] - jobs_[i].submit_s);
      if (jobs_[i].nodes >= 2) {
        multi_wait += waits.back();
        ++multi;
      }
      end = std::max(end, start_[i] + jobs_[i].duration_s);
      busy_gpu_seconds += jobs_[i].duration_s * jobs_[i].gpus();
    }
    result_.jobs = static_cast<int>(waits.size());
    result_.makespan_s = end - t0;
    result_.frag_mean = end > t0 ? frag_integral / (end - t0) : 0.0;
    if (!waits.empty()) {
      double sum = 0;
      for (double w : waits) sum += w;
      result_.wait_mean_s = sum / static_cast<double>(waits.size());
      std::sort(waits.begin(), waits.end());
      result_.wait_p95_s =
          waits[static_cast<std::size_t>(std::ceil(0.95 * static_cast<double>(waits.size()))) - 1];
    }
    result_.wait_mean_multi_s = multi > 0 ? multi_wait / multi : 0.0;
    result_.split_share =
        result_.one_group_jobs > 0 ? static_cast<double>(result_.split_jobs) / result_.one_group_jobs : 0.0;
    result_.gpu_utilisation =
        result_.makespan_s > 0 ? busy_gpu_seconds / (static_cast<double>(cluster_gpus_) * result_.makespan_s)
                               : 0.0;
    result_.decision_us_mean = result_.decisions > 0 ? decision_seconds_ * 1e6 / result_.decisions : 0.0;
    return result_;
  }

 private:
  // One pass over the queue in FIFO order. Shapes that failed in this pass are not tried
  // again in it: the cluster only fills up until the pass ends.
  bool schedule(double t) {
    bool changed = false;
    failed_.clear();
    std::size_t kept = 0;
    for (std::size_t q = 0; q < pending_.size(); ++q) {
      const int i = pending_[q];
      const TraceJob& job = jobs_[i];
      const std::pair<int, int> shape{job.nodes, job.gpus_per_node};
      if (job.gpus() > free_gpus_ || std::find(failed_.begin(), failed_.end(), shape) != failed_.end()) {
        pending_[kept++] = i;
        continue;
      }
      JobRequest request;
      request.min_nodes = job.nodes;
      request.gpus_per_node = job.gpus_per_node;
      request.pattern = options_.rule.pattern_for(job);
      request.waited_s = t - job.submit_s;
      const auto started = std::chrono::steady_clock::now();
      auto a = policy_.place(PlacementContext{index_, gpus_, frag_}, request);
      decision_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      ++result_.decisions;
      if (!a) {
        failed_.push_back(shape);
        pending_[kept++] = i;
        continue;
      }
      start(i, std::move(*a), request.pattern, t);
      changed = true;
    }
    pending_.resize(kept);
    return changed;
  }

  void start(int i, Allocation a, const CommPattern& pattern, double t) {
    const TraceJob& job = jobs_[i];
    for (std::size_t k = 0; k < a.hosts.size(); ++k) {
      gpus_.free[a.hosts[k]] -= a.gpus[k];
      free_gpus_ -= a.gpus[k];
    }
    if (job.nodes >= 2) {
      const PlacementScore s = router_.route_hosts(TrafficMatrix::build(pattern, a.gpus), a.hosts);
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
    running_.push(Departure{t + job.duration_s, i});
  }

  void release(int i) {
    const Allocation& a = allocations_[i];
    for (std::size_t k = 0; k < a.hosts.size(); ++k) {
      gpus_.free[a.hosts[k]] += a.gpus[k];
      free_gpus_ += a.gpus[k];
    }
  }

  const LocalityIndex& index_;
  const std::vector<TraceJob>& jobs_;
  PlacementPolicy& policy_;
  const FragModel& frag_;
  const ReplayOptions& options_;
  TrafficRouter router_;
  GpuState gpus_;
  int placeable_hosts_ = 0;
  long free_gpus_ = 0;
  long cluster_gpus_ = 0;
  std::vector<Allocation> allocations_;
  std::vector<double> start_;
  std::vector<int> pending_;
  std::vector<std::pair<int, int>> failed_;
  std::priority_queue<Departure, std::vector<Departure>, std::greater<>> running_;
  std::priority_queue<double, std::vector<double>, std::greater<>> retries_;
  double decision_seconds_ = 0;
  ReplayResult result_;
};

}  // namespace

ReplayResult replay_trace(const LocalityIndex& index, const std::vector<TraceJob>& jobs,
                          PlacementPolicy& policy, const FragModel& frag, const ReplayOptions& options) {
  return Simulation(index, jobs, policy, frag, options).run();
}

std::vector<ReplayResult> replay_policies(const LocalityIndex& index, const std::vector<TraceJob>& jobs,
                                          const std::vector<std::string>& policies, const FragModel& frag,
                                          const ReplayOptions& options, const PolicyOptions& policy_options) {
  std::vector<std::unique_ptr<PlacementPolicy>> made;
  made.reserve(policies.size());
  for (const auto& name : policies) made.push_back(make_policy(name, policy_options));
  std::vector<ReplayResult> results(policies.size());
  // Two at a time: the machines this runs on are small and shared.
  for (std::size_t i = 0; i < made.size(); i += 2) {
    auto first =
        std::async(std::launch::async, [&, i] { return replay_trace(index, jobs, *made[i], frag, options); });
    if (i + 1 < made.size()) results[i + 1] = replay_trace(index, jobs, *made[i + 1], frag, options);
    results[i] = first.get();
  }
  return results;
}

WorkloadMix workload_mix_of(const std::vector<TraceJob>& jobs) {
  std::vector<JobClass> classes;
  classes.reserve(jobs.size());
  for (const TraceJob& j : jobs) {
    classes.push_back(JobClass{j.nodes, j.gpus_per_node, static_cast<double>(j.gpus())});
  }
  return WorkloadMix(classes);
}

double offered_load(const std::vector<TraceJob>& jobs, long cluster_gpus) {
  if (jobs.size() < 2 || cluster_gpus <= 0) return 0;
  double work = 0;
  for (const TraceJob& j : jobs) work += j.duration_s * j.gpus();
  const double span = jobs.back().submit_s - jobs.front().submit_s;
  return span > 0 ? work / (span * static_cast<double>(cluster_gpus)) : 0.0;
}

std::vector<TraceJob> compress_arrivals(std::vector<TraceJob> jobs, double factor) {
  if (jobs.empty() || factor <= 0) return jobs;
  const double t0 = jobs.front().submit_s;
  for (TraceJob& j : jobs) j.submit_s = t0 + (j.submit_s - t0) / factor;
  return jobs;
}

}  // namespace fabricfit
