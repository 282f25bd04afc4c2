// SPDX-License-Identifier: GPL-2.0-or-later
#include "replay/replay_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <future>
#include <memory>

#include <boost/math/distributions/students_t.hpp>

namespace fabricfit {
namespace {

// splitmix64: a fixed, well-mixed hash (the standard library's std::hash may differ
// between implementations, and results must not).
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t hash_id(const std::string& id) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
  for (unsigned char c : id) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

// Two-sided 95 % Student t quantile for df degrees of freedom (Boost.Math: a table that
// stopped at 30 and took the normal 1.96 beyond drew 100-seed intervals 1 % too narrow).
double t95(int df) {
  if (df < 1) return 0;
  return boost::math::quantile(boost::math::students_t(df), 0.975);
}

}  // namespace

double gpu_comm_share_of(const TraceJob& job, const std::vector<double>& shares, std::uint64_t seed) {
  if (job.gpus() < 2) return 0;
  if (job.comm_share >= 0) return job.comm_share;
  if (shares.empty()) return 0;
  return shares[mix(hash_id(job.id) ^ mix(seed)) % shares.size()];
}

double comm_share_of(const TraceJob& job, const std::vector<double>& shares, std::uint64_t seed) {
  return job.nodes < 2 ? 0.0 : gpu_comm_share_of(job, shares, seed);
}

JobWidth job_class_of(const TraceJob& job, int largest_leaf_group) {
  if (job.nodes <= 1) return JobWidth::OneHost;
  return job.nodes <= largest_leaf_group ? JobWidth::WithinGroup : JobWidth::Wider;
}

double p95(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(std::ceil(0.95 * static_cast<double>(values.size()))) - 1];
}

void fill_job_metrics(const std::vector<TraceJob>& jobs, const std::vector<double>& start,
                      const std::vector<double>& end, int largest_leaf_group, ReplayResult& result,
                      int largest_domain) {
  struct Acc {
    std::vector<double> jct, wait;
    double gpu_s = 0, gpu_wait = 0, gpus = 0, bsld = 0;
  };
  std::array<Acc, 6> acc;  // the four JobWidth classes, the multi-domain jobs, the in-domain ones
  double multi_wait = 0;
  int multi = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (start[i] < 0) continue;
    const TraceJob& j = jobs[i];
    const double wait = start[i] - j.submit_s, run = end[i] - start[i], jct = end[i] - j.submit_s;
    const double bsld = std::max(1.0, jct / std::max(j.duration_s, kBoundedSlowdownFloor));
    const int width = static_cast<int>(job_class_of(j, largest_leaf_group));
    const bool multi_domain = largest_domain > 0 && j.nodes > largest_domain;
    const bool in_domain = largest_domain > 0 && j.nodes >= 2 && !multi_domain;
    for (int c : {0, width, multi_domain ? 4 : -1, in_domain ? 5 : -1}) {
      if (c < 0) continue;
      Acc& a = acc[c];
      a.jct.push_back(jct);
      a.wait.push_back(wait);
      a.gpu_s += run * j.gpus();
      a.gpu_wait += wait * j.gpus();
      a.gpus += j.gpus();
      a.bsld += bsld;
    }
    if (j.nodes >= 2) {
      multi_wait += wait;
      ++multi;
    }
  }
  for (int c = 0; c < 6; ++c) {
    const Acc& a = acc[c];
    ClassMetrics& m = c < 4 ? result.classes[c] : c == 4 ? result.multi_domain : result.in_domain;
    m.jobs = static_cast<int>(a.jct.size());
    if (m.jobs == 0) continue;
    double sum = 0;
    for (double x : a.jct) sum += x;
    m.jct_mean_s = sum / m.jobs;
    m.jct_p95_s = p95(a.jct);
    m.gpu_hours = a.gpu_s / 3600;
    m.wait_gpu_weighted_s = a.gpus > 0 ? a.gpu_wait / a.gpus : 0;
    m.wait_p95_s = p95(a.wait);
    m.bounded_slowdown_mean = a.bsld / m.jobs;
  }
  const auto& all = acc[0];
  result.jobs = static_cast<int>(all.wait.size());
  double wsum = 0;
  for (double w : all.wait) wsum += w;
  result.wait_mean_s = result.jobs > 0 ? wsum / result.jobs : 0;
  result.wait_p95_s = p95(all.wait);
  result.wait_mean_multi_s = multi > 0 ? multi_wait / multi : 0.0;
  int slowed = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (start[i] >= 0 && end[i] - start[i] > jobs[i].duration_s * 1.01 + 1e-9) ++slowed;
  }
  result.slowed_jobs_share = result.jobs > 0 ? static_cast<double>(slowed) / result.jobs : 0;
}

Interval interval_of(const std::vector<double>& values) {
  Interval iv;
  if (values.empty()) return iv;
  const double n = static_cast<double>(values.size());
  double sum = 0;
  for (double v : values) sum += v;
  iv.mean = iv.lo = iv.hi = sum / n;
  if (values.size() < 2) return iv;
  double ss = 0;
  for (double v : values) ss += (v - iv.mean) * (v - iv.mean);
  const double half = t95(static_cast<int>(values.size()) - 1) * std::sqrt(ss / (n - 1) / n);
  iv.lo = iv.mean - half;
  iv.hi = iv.mean + half;
  return iv;
}

std::string RuntimeModelOptions::describe() const {
  if (!enabled) return "off: every job runs its trace duration";
  std::string s = "duration = run time in one leaf group without contention; f from the trace, else one of {";
  for (std::size_t i = 0; i < comm_shares.size(); ++i)
    s += (i ? "," : "") + std::to_string(comm_shares[i]).substr(0, 4);
  s += "} per job; demand " + to_string(demand) + "; routing " + to_string(routing);
  return s;
}

std::vector<std::vector<ReplayResult>> replay_policies(const LocalityIndex& index,
                                                       const std::vector<TraceJob>& jobs,
                                                       const std::vector<std::string>& policies,
                                                       const FragModel& frag, const ReplayOptions& options,
                                                       const PolicyOptions& policy_options, int seeds) {
  seeds = std::max(1, seeds);
  std::vector<std::vector<ReplayResult>> results(policies.size(), std::vector<ReplayResult>(seeds));
  std::vector<std::pair<std::size_t, int>> tasks;
  for (std::size_t p = 0; p < policies.size(); ++p) {
    for (int s = 0; s < seeds; ++s) tasks.emplace_back(p, s);
  }
  const auto run = [&](std::size_t p, int s) {
    PolicyOptions po = policy_options;
    po.seed = policy_options.seed + static_cast<std::uint64_t>(s);
    ReplayOptions ro = options;
    ro.seed = options.seed + static_cast<std::uint64_t>(s);
    ro.keep_runs = options.keep_runs && s == 0;  // --per-job writes the first seed's
    auto policy = make_policy(policies[p], po);
    results[p][s] = replay_trace(index, jobs, *policy, frag, ro);
    if (ro.faults.any() || !ro.fault_episodes.empty()) {
      // The same policy and seed on a healthy fabric: what the faults cost is the difference.
      ro.faults = FaultRates{};
      ro.fault_episodes.clear();
      auto twin = make_policy(policies[p], po);
      const ReplayResult healthy = replay_trace(index, jobs, *twin, frag, ro);
      results[p][s].faults.gpu_hours_lost = results[p][s].classes[0].gpu_hours - healthy.classes[0].gpu_hours;
    }
  };
  // Two at a time: the machines this runs on are small and shared.
  for (std::size_t k = 0; k < tasks.size(); k += 2) {
    auto first = std::async(std::launch::async, [&, k] { run(tasks[k].first, tasks[k].second); });
    if (k + 1 < tasks.size()) run(tasks[k + 1].first, tasks[k + 1].second);
    first.get();
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
