// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/slurm/fabric_status.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "common/hostlist.hpp"
#include "common/hostlist_expand.hpp"
#include "placement/fragmentation.hpp"
#include "placement/placement_score.hpp"

namespace fabricfit {
namespace {

std::string one_word(std::string_view s) {
  std::string out(s);
  std::ranges::replace_if(
      out, [](char c) { return c == ' ' || c == '\t' || c == '\n'; }, '_');
  return out;
}

}  // namespace

std::string placement_record(const LocalityIndex& index, const FragModel* frag, const GpuState* free,
                             std::span<const int> hosts, std::span<const int> gpus,
                             const CommPattern& pattern, std::string_view fallback_reason) {
  if (!fallback_reason.empty()) return fallback_record(pattern.to_string(), fallback_reason);
  const std::vector<std::string> groups = leaf_group_names_of(index, hosts);
  const PlacementScore s = score_hosts(index, hosts, gpus, pattern);
  std::string record =
      fmt::format("fabricfit placement=fabricfit leaf_groups={} groups={} cross_spine_gb={:.3g}",
                  groups.size(), one_word(fmt::format("{}", fmt::join(groups, ","))), s.spine_bytes);
  if (s.pods > 0) record += fmt::format(" pods={} cross_core_gb={:.3g}", s.pods, s.core_bytes);
  if (index.domain_count() > 0) {
    record += fmt::format(" nvlink_domains={} domains={}", s.nvlink_domains,
                          one_word(fmt::format("{}", fmt::join(domain_names_of(index, hosts), ","))));
  }
  record += fmt::format(" uplink_ms={:.3g}", 1000 * s.max_uplink_load);
  if (frag != nullptr && free != nullptr)
    record += fmt::format(" unusable_gpus={:+.1f}", unusable_delta(index, *free, *frag, hosts, gpus));
  return record + " pattern=" + pattern.to_string();
}

std::string fallback_record(std::string_view pattern, std::string_view reason) {
  if (pattern.empty() || pattern == "-")
    return fmt::format("fabricfit placement=slurm reason={}", one_word(reason));
  return fmt::format("fabricfit placement=slurm reason={} pattern={}", one_word(reason), one_word(pattern));
}

std::string topology_text(const Fabric& fabric, const SnapshotInfo& info, const GpuState& gpus,
                          const std::vector<std::string>& only, std::int64_t now_unix,
                          const FabricHealthView* health) {
  std::set<int> groups;
  if (only.empty()) {
    for (std::size_t g = 0; g < fabric.leaf_groups.size(); ++g) groups.insert(static_cast<int>(g));
  } else {
    for (const auto& n : only) {
      if (const auto h = fabric.host_index(n); h && fabric.hosts[*h].leaf_group >= 0)
        groups.insert(fabric.hosts[*h].leaf_group);
    }
  }
  const auto age = info.created_unix > 0 ? std::max<std::int64_t>(0, now_unix - info.created_unix) : -1;
  std::string out = fmt::format(
      "Fabric={} SnapshotAge={} Producer=\"{}\" Hosts={} LeafGroups={} Pods={} Rails={} Tiers={} "
      "DegradedLinks={} "
      "Warnings={}{}{}\n",
      fabric.origin.empty() ? "(unknown)" : one_word(fabric.origin),
      age >= 0 ? fmt::format("{}s", age) : "unknown", info.producer, fabric.hosts.size(),
      fabric.leaf_groups.size(), fabric.pods.size(), fabric.rails, fabric.tiers, fabric.degraded_links.size(),
      fabric.warnings.size(),
      fabric.nvlink_domains.empty() ? "" : fmt::format(" NvlinkDomains={}", fabric.nvlink_domains.size()),
      fabric.partial ? " Partial=yes" : "");
  std::set<int> pods;
  std::set<std::string> leaf_names;
  for (int g : groups) {
    const LeafGroup& lg = fabric.leaf_groups[static_cast<std::size_t>(g)];
    std::vector<std::string> names;
    int free = 0, total = 0;
    for (int h : lg.hosts) {
      names.push_back(fabric.hosts[static_cast<std::size_t>(h)].name);
      if (static_cast<std::size_t>(h) < gpus.total.size()) {
        free += gpus.free[h];
        total += gpus.total[h];
      }
    }
    for (const Vertex v : lg.leaves) {
      if (v != FabricGraph::null_vertex()) leaf_names.insert(fabric.graph[v].name);
    }
    if (lg.pod >= 0) pods.insert(lg.pod);
    const double lost = lg.expected_up_gbps - lg.up_gbps;
    out += fmt::format(
        "LeafGroup={} Hosts={} FreeGpus={}/{} Uplinks={} UplinkGbps={:.0f} Oversubscription={:.2f}{}{}\n",
        one_word(lg.name), compress_hostlist(names), free, total, lg.uplinks, lg.up_gbps,
        lg.oversubscription(), lost > 1e-9 ? fmt::format(" UplinkGbpsLost={:.0f}", lost) : "",
        lg.pod >= 0 ? fmt::format(" Pod={}", one_word(fabric.pods[static_cast<std::size_t>(lg.pod)].name))
                    : "");
  }
  for (int p : pods) {
    const Pod& pod = fabric.pods[static_cast<std::size_t>(p)];
    std::vector<std::string> members;
    for (int g : pod.leaf_groups)
      members.push_back(one_word(fabric.leaf_groups[static_cast<std::size_t>(g)].name));
    out += fmt::format("Pod={} LeafGroups={} Uplinks={} UplinkGbps={:.0f}\n", one_word(pod.name),
                       fmt::join(members, ","), pod.uplinks, pod.up_gbps);
  }
  // NVLink domains under the leaf groups shown: where a job that must stay inside one
  // still fits (free GPUs, and hosts with every GPU free for whole-node jobs).
  for (const NvlinkDomain& d : fabric.nvlink_domains) {
    const auto under = leaf_groups_of(fabric, d);
    if (std::ranges::none_of(under, [&](int g) { return groups.contains(g); })) continue;
    std::vector<std::string> names;
    std::vector<std::string> group_names;
    int free = 0, total = 0, whole = 0, failing = 0, degraded = 0;
    for (int h : d.hosts) {
      names.push_back(fabric.hosts[static_cast<std::size_t>(h)].name);
      if (health != nullptr && static_cast<std::size_t>(h) < health->nvlink.size()) {
        failing += health->nvlink[h] == PartHealth::Failing ? 1 : 0;
        degraded += health->nvlink[h] == PartHealth::Degraded ? 1 : 0;
      }
      if (static_cast<std::size_t>(h) < gpus.total.size()) {
        free += gpus.free[h];
        total += gpus.total[h];
        if (gpus.total[h] > 0 && gpus.free[h] == gpus.total[h]) ++whole;
      }
    }
    for (int g : under) group_names.push_back(one_word(fabric.leaf_groups[static_cast<std::size_t>(g)].name));
    out +=
        fmt::format("NvlinkDomain={} Hosts={} FreeGpus={}/{} WholeFreeHosts={} LeafGroups={}{}{}\n",
                    one_word(d.name), compress_hostlist(names), free, total, whole,
                    fmt::join(group_names, ","), failing > 0 ? fmt::format(" NvlinkFailing={}", failing) : "",
                    degraded > 0 ? fmt::format(" NvlinkDegraded={}", degraded) : "");
  }
  // The leaf group a degraded link touches, so that a client can filter the text.
  std::map<std::string, std::string> group_of_leaf;
  for (const auto& lg : fabric.leaf_groups) {
    for (const Vertex v : lg.leaves) {
      if (v != FabricGraph::null_vertex()) group_of_leaf[fabric.graph[v].name] = one_word(lg.name);
    }
  }
  for (const DegradedLink& d : fabric.degraded_links) {
    if (!only.empty() && !leaf_names.contains(d.a) && !leaf_names.contains(d.b)) continue;
    const auto g = group_of_leaf.contains(d.a) ? group_of_leaf.find(d.a) : group_of_leaf.find(d.b);
    out += fmt::format("DegradedLink={}[{}]-{}[{}] Rate={} Expected={}{}\n", one_word(d.a), d.port_a,
                       one_word(d.b), d.port_b, d.rate.to_string(), d.expected_rate.to_string(),
                       g != group_of_leaf.end() ? " LeafGroup=" + g->second : std::string());
  }
  return out;
}

namespace {

// The value of "Key=" in a line of Key=Value words, up to the next space; "" if absent.
std::string value_of(std::string_view line, std::string_view key) {
  const std::string needle = fmt::format("{}=", key);
  std::size_t at = 0;
  if (!line.starts_with(needle)) {
    at = line.find(" " + needle);
    if (at == std::string_view::npos) return {};
    ++at;
  }
  const auto start = at + needle.size();
  const auto end = line.find(' ', start);
  return std::string(
      line.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

}  // namespace

std::string filter_topology_text(std::string_view text, const std::vector<std::string>& nodes) {
  if (nodes.empty()) return std::string(text);
  const std::set<std::string> wanted(nodes.begin(), nodes.end());
  std::set<std::string> groups;
  std::vector<std::string> lines;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  for (const auto& line : lines) {
    if (!line.starts_with("LeafGroup=")) continue;
    const auto hosts = expand_hostlist(value_of(line, "Hosts"));
    if (std::ranges::any_of(hosts, [&](const std::string& h) { return wanted.contains(h); }))
      groups.insert(value_of(line, "LeafGroup"));
  }
  std::string out;
  for (const auto& line : lines) {
    bool keep = line.starts_with("Fabric=");
    if (line.starts_with("LeafGroup=")) keep = groups.contains(value_of(line, "LeafGroup"));
    if (line.starts_with("Pod=")) {
      for (const auto& g : split_commas(value_of(line, "LeafGroups"))) keep = keep || groups.contains(g);
    }
    if (line.starts_with("NvlinkDomain=")) {
      for (const auto& g : split_commas(value_of(line, "LeafGroups"))) keep = keep || groups.contains(g);
    }
    if (line.starts_with("DegradedLink=")) keep = groups.contains(value_of(line, "LeafGroup"));
    if (keep) out += line + "\n";
  }
  return out;
}

}  // namespace fabricfit
