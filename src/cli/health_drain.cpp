// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli/health_drain.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <map>

#include "cli/health_marks.hpp"

namespace fabricfit::cli {
namespace {

bool has_flag(const SlurmNode& node, std::string_view flag) {
  return ("+" + node.state + "+").find(fmt::format("+{}+", flag)) != std::string::npos;
}

}  // namespace

bool drained_by_fabricfit(const SlurmNode& node) {
  return has_flag(node, "DRAIN") && node.reason.starts_with(kDrainReasonPrefix);
}

DrainPlan plan_drains(const Fabric& f, const HealthFile& health, const std::vector<SlurmNode>& nodes,
                      int max_drained) {
  const HealthMarks marks = health_marks(f, health);
  std::map<std::string, const std::vector<LinkStatus>*, std::less<>> host_links;
  for (std::size_t h = 0; h < f.hosts.size(); ++h)
    host_links[f.hosts[h].name] = h < marks.hosts.size() ? &marks.hosts[h] : nullptr;
  const auto flapping = [](const std::vector<LinkStatus>* links) {
    return links != nullptr &&
           std::ranges::any_of(*links, [](const LinkStatus& l) { return l.state == HealthState::Flapping; });
  };
  // Hosts whose NVLink fails (not merely degraded: that only slows their jobs).
  std::map<std::string, const NvlinkHostStatus*, std::less<>> nvlink_failing;
  for (const NvlinkHostStatus& n : health.nvlink)
    if (n.state == HealthState::Down) nvlink_failing[n.host] = &n;

  DrainPlan plan;
  int drained = 0;
  // Resume first: a node whose link came back frees its place under the cap.
  for (const SlurmNode& n : nodes) {
    if (!drained_by_fabricfit(n)) continue;
    const auto it = host_links.find(n.name);
    if (it == host_links.end()) {
      ++drained;  // not a fabric host now: its health is unknown, so it stays drained
      plan.held.push_back({n.name, "drained by fabricfit, but not a host of the fabric: left drained"});
    } else if (flapping(it->second) ||
               (it->second != nullptr && worst_state(*it->second) == HealthState::Down) ||
               nvlink_failing.contains(n.name)) {
      ++drained;  // a flapping link that went down for good is no reason to resume
    } else {
      plan.resume.push_back({n.name, n.reason.find("NVLink") != std::string::npos
                                         ? "its NVLink no longer fails"
                                         : "its HCA link no longer flaps"});
    }
  }
  std::map<std::string, const SlurmNode*, std::less<>> by_name;
  for (const SlurmNode& n : nodes) by_name[n.name] = &n;
  for (std::size_t h = 0; h < f.hosts.size(); ++h) {
    const std::string& name = f.hosts[h].name;
    const bool flaps = h < marks.hosts.size() && flapping(&marks.hosts[h]);
    const auto nvlink = nvlink_failing.find(name);
    if (!flaps && nvlink == nvlink_failing.end()) continue;
    const auto it = by_name.find(name);
    if (it == by_name.end()) {
      plan.held.push_back({name, "not a Slurm node"});
      continue;
    }
    const SlurmNode& n = *it->second;
    if (drained_by_fabricfit(n)) continue;  // drained already, counted above
    if (!n.reason.empty()) {
      plan.held.push_back(
          {name, fmt::format("it has a Reason of its own (\"{}\"): left to whoever set it", n.reason)});
      continue;
    }
    if (drained >= max_drained) {
      plan.held.push_back(
          {name, fmt::format("HealthDrainMax={} nodes are drained by fabricfit already", max_drained)});
      continue;
    }
    if (flaps) {
      const auto& links = marks.hosts[h];
      const auto flap =
          std::ranges::find_if(links, [](const LinkStatus& l) { return l.state == HealthState::Flapping; });
      plan.drain.push_back(
          {name, fmt::format("{}HCA link flapping ({})", kDrainReasonPrefix, main_evidence(*flap))});
    } else {
      plan.drain.push_back(
          {name, fmt::format("{}NVLink failing ({})", kDrainReasonPrefix, nvlink->second->reason)});
    }
    ++drained;
  }
  return plan;
}

}  // namespace fabricfit::cli
