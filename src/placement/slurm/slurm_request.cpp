// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/slurm/slurm_request.hpp"

#include <algorithm>
#include <charconv>
#include <string_view>

namespace fabricfit {

namespace {

// Largest GPU count a node can plausibly report; above it the count is a sentinel.
constexpr unsigned long long kMaxPlausibleGpus = 1u << 16;

Decline decline(std::string reason) {
  return Decline{std::move(reason)};
}

}  // namespace

std::variant<JobRequest, Decline> request_of_slurm_job(const SlurmJobFacts& job) {
  if (job.gpus_per_node == 0 && job.gpus_per_job == 0 && job.gpus_per_task == 0) {
    return job.gpus_per_socket ? decline("gpus-per-socket") : decline("no-gpus");
  }
  // Shapes whose meaning is a node set or order fabricfit does not choose: Slurm's own
  // selection honours them.
  if (job.gpus_per_socket) return decline("gpus-per-socket");
  if (job.required_nodes) return decline("required-nodes");
  if (job.contiguous) return decline("contiguous");
  if (job.spread_job) return decline("spread-job");

  JobRequest r;
  const unsigned min_nodes = std::max(job.min_nodes, 1u);
  const unsigned max_nodes = std::max(job.max_nodes, min_nodes);
  r.min_nodes = static_cast<int>(min_nodes);
  // --exclusive=topo needs no rule here: Slurm offers such a job only wholly free NVLink
  // domains (topology_p_whole_topo) and blocks the rest of those it takes. Its hosts are not
  // asked whole: --mem-per-gpu may leave fewer GPUs usable than a host has.
  r.exclusive = job.whole_node;
  r.segment_nodes = static_cast<int>(job.segment_size);
  if (job.gpus_per_node > 0) {
    // Slurm gives a -N MIN-MAX job as many nodes as it can, up to what it aims for.
    r.gpus_per_node = static_cast<int>(job.gpus_per_node);
    r.max_nodes = static_cast<int>(std::clamp(job.req_nodes, min_nodes, max_nodes));
    return r;
  }
  unsigned total = job.gpus_per_job;
  unsigned most = max_nodes;
  if (total == 0) {
    // --gpus-per-task: the tasks' GPUs in total; --ntasks-per-node fixes them per node.
    if (job.num_tasks == 0) return decline("gpus-per-task-without-ntasks");
    if (job.ntasks_per_node > 0) {
      r.gpus_per_node = static_cast<int>(job.gpus_per_task * job.ntasks_per_node);
      r.max_nodes = static_cast<int>(std::clamp(job.req_nodes, min_nodes, max_nodes));
      return r;
    }
    total = job.gpus_per_task * job.num_tasks;
  }
  // No more nodes than tasks (Slurm's own limit) or than GPUs (each node holds one at least).
  if (job.num_tasks > 0 && job.ntasks_per_node == 0)
    most = std::min(most, std::max(job.num_tasks, min_nodes));
  most = std::min(most, std::max(total, min_nodes));
  if (total < min_nodes) return decline("fewer-gpus-than-nodes");
  r.total_gpus = static_cast<int>(total);
  r.max_nodes = static_cast<int>(most);
  return r;
}

std::variant<JobRequest, Decline> load_of_running_job(SlurmJobFacts job, unsigned nodes) {
  job.required_nodes = job.contiguous = job.spread_job = job.exclusive_topo = false;
  job.min_nodes = job.max_nodes = job.req_nodes = nodes;
  return request_of_slurm_job(job);
}

CommPattern job_pattern(std::string_view requested, unsigned max_nodes,
                        const CommPattern& site_default) noexcept {
  try {
    if (requested.empty()) return effective_pattern(nullptr, max_nodes, site_default);
    const CommPattern asked = parse_comm_pattern(requested);
    return effective_pattern(&asked, max_nodes, site_default);
  } catch (...) {  // a bad text, or memory for its message
    return CommPattern{};
  }
}

bool switches_allow(unsigned switches, unsigned leaf_groups, long waited_s, long wait_limit_s) {
  if (switches == 0 || leaf_groups <= switches) return true;
  return waited_s >= wait_limit_s;
}

std::optional<int> node_gpu_count(unsigned long long reported, const char* config_gres) {
  if (reported > 0 && reported < kMaxPlausibleGpus) return static_cast<int>(reported);
  if (config_gres == nullptr) return std::nullopt;
  // slurm.conf's Gres=: comma-separated name[:type]:count[(S:sockets)] items.
  long long gpus = 0;
  bool any = false;
  std::string_view rest(config_gres);
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    auto item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    if (const auto paren = item.find('('); paren != std::string_view::npos) item = item.substr(0, paren);
    if (item.substr(0, item.find(':')) != "gpu") continue;
    const auto colon = item.rfind(':');
    if (colon == std::string_view::npos) {
      gpus += 1;  // "gpu" alone: one
      any = true;
      continue;
    }
    auto digits = item.substr(colon + 1);
    long long mult = 1;
    if (!digits.empty()) {
      switch (digits.back()) {
        case 'k':
        case 'K': mult = 1024; break;
        case 'm':
        case 'M': mult = 1024 * 1024; break;
        default: break;
      }
      if (mult > 1) digits.remove_suffix(1);
    }
    long long count = 0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), count);
    // "gpu:h100" names a type and no count: one.
    gpus += (ec != std::errc{} || ptr != digits.data() + digits.size()) ? 1 : count * mult;
    any = true;
  }
  if (!any || gpus <= 0 || static_cast<unsigned long long>(gpus) >= kMaxPlausibleGpus) return std::nullopt;
  return static_cast<int>(gpus);
}

}  // namespace fabricfit
