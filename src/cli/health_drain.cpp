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

namespace {

// Why a fabric host is (or stays) drained now, most urgent first: each a Reason's kind and
// the Reason with its evidence. A flapping HCA link or a failing NVLink drains; a link that
// went down for good keeps a drain but starts none (placement keeps jobs off it).
struct DrainCause {
  std::string kind;    // "fabricfit: HCA link flapping"
  std::string reason;  // kind + " (evidence)"
  bool drains = true;
};

std::vector<DrainCause> causes_of(const std::vector<LinkStatus>* links, const NvlinkHostStatus* nvlink) {
  std::vector<DrainCause> out;
  const auto add = [&](std::string_view what, const std::string& evidence, bool drains) {
    std::string kind = fmt::format("{}{}", kDrainReasonPrefix, what);
    out.push_back({kind, fmt::format("{} ({})", kind, evidence), drains});
  };
  const auto with = [&](HealthState state) {  // links is not null
    return std::ranges::find_if(*links, [&](const LinkStatus& l) { return l.state == state; });
  };
  if (links != nullptr)
    if (const auto flap = with(HealthState::Flapping); flap != links->end())
      add("HCA link flapping", main_evidence(*flap), true);
  if (nvlink != nullptr) add("NVLink failing", nvlink->reason, true);
  if (links != nullptr)
    if (const auto down = with(HealthState::Down); down != links->end())
      add("HCA link down", main_evidence(*down), false);
  return out;
}

}  // namespace

DrainPlan plan_drains(const Fabric& f, const HealthFile& health, const std::vector<SlurmNode>& nodes,
                      int max_drained) {
  const HealthMarks marks = health_marks(f, health);
  // Hosts whose NVLink fails (not merely degraded: that only slows their jobs).
  std::map<std::string, const NvlinkHostStatus*, std::less<>> nvlink_failing;
  for (const NvlinkHostStatus& n : health.nvlink)
    if (n.state == HealthState::Down) nvlink_failing[n.host] = &n;
  std::map<std::string, std::vector<DrainCause>, std::less<>> causes;  // every fabric host
  for (std::size_t h = 0; h < f.hosts.size(); ++h) {
    const auto nv = nvlink_failing.find(f.hosts[h].name);
    causes[f.hosts[h].name] = causes_of(h < marks.hosts.size() ? &marks.hosts[h] : nullptr,
                                        nv == nvlink_failing.end() ? nullptr : nv->second);
  }

  DrainPlan plan;
  int drained = 0;
  // Resume first: a node whose link came back frees its place under the cap.
  for (const SlurmNode& n : nodes) {
    if (!drained_by_fabricfit(n)) continue;
    const auto it = causes.find(n.name);
    if (it == causes.end()) {
      ++drained;  // not a fabric host now: its health is unknown, so it stays drained
      plan.held.push_back({n.name, "drained by fabricfit, but not a host of the fabric: left drained"});
    } else if (!it->second.empty()) {
      ++drained;  // a flapping link that went down for good is no reason to resume
      // Its Reason names a cause that has ended while another holds it: say the one that does,
      // so that sinfo -R and the resume that follows tell the admin the truth.
      const bool still = std::ranges::any_of(
          it->second, [&](const DrainCause& c) { return n.reason.starts_with(c.kind + " ("); });
      if (!still) plan.reason.push_back({n.name, it->second.front().reason});
    } else {
      const auto was = [&](std::string_view kind) {
        return n.reason.starts_with(fmt::format("{}{}", kDrainReasonPrefix, kind));
      };
      plan.resume.push_back({n.name, was("NVLink")          ? "its NVLink no longer fails"
                                     : was("HCA link down") ? "its HCA link is up again"
                                                            : "its HCA link no longer flaps"});
    }
  }
  std::map<std::string, const SlurmNode*, std::less<>> by_name;
  for (const SlurmNode& n : nodes) by_name[n.name] = &n;
  for (const auto& host : f.hosts) {
    const std::vector<DrainCause>& why = causes[host.name];
    if (why.empty() || !why.front().drains) continue;
    const auto it = by_name.find(host.name);
    if (it == by_name.end()) {
      plan.held.push_back({host.name, "not a Slurm node"});
      continue;
    }
    const SlurmNode& n = *it->second;
    if (drained_by_fabricfit(n)) continue;  // drained already, counted above
    if (!n.reason.empty()) {
      plan.held.push_back(
          {host.name, fmt::format("it has a Reason of its own (\"{}\"): left to whoever set it", n.reason)});
      continue;
    }
    if (drained >= max_drained) {
      plan.held.push_back(
          {host.name, fmt::format("HealthDrainMax={} nodes are drained by fabricfit already", max_drained)});
      continue;
    }
    plan.drain.push_back({host.name, why.front().reason});
    ++drained;
  }
  return plan;
}

}  // namespace fabricfit::cli
