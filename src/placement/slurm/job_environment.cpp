// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/slurm/job_environment.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <cctype>

#include "placement/placement_score.hpp"

namespace fabricfit {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The HCA's own ports that are cabled to a switch, in port order.
std::vector<int> cabled_ports(const Fabric& fabric, Vertex hca) {
  std::vector<int> ports;
  const auto& g = fabric.graph;
  for (auto [e, end] = boost::out_edges(hca, g); e != end; ++e) {
    const LinkProps& link = g[*e];
    if (link.host_edge || g[boost::target(*e, g)].kind != VertexKind::Switch) continue;
    // The builder adds every cable with port_a on the end with the lower vertex index.
    const Vertex other = boost::target(*e, g);
    ports.push_back(hca < other ? link.port_a : link.port_b);
  }
  std::sort(ports.begin(), ports.end());
  ports.erase(std::unique(ports.begin(), ports.end()), ports.end());
  return ports;
}

}  // namespace

std::string hca_device_name(const Fabric& fabric, Vertex hca) {
  const VertexProps& v = fabric.graph[hca];
  std::string_view name = trim(v.name);
  if (v.host >= 0) {
    const std::string& host = fabric.hosts[static_cast<std::size_t>(v.host)].name;
    if (name.starts_with(host) && name.size() > host.size() &&
        std::isspace(static_cast<unsigned char>(name[host.size()])))
      return std::string(trim(name.substr(host.size())));
  }
  const auto space = name.find_last_of(" \t");
  return std::string(space == std::string_view::npos ? name : name.substr(space + 1));
}

std::string nccl_ib_hca(const Fabric& fabric, int host) {
  if (host < 0 || static_cast<std::size_t>(host) >= fabric.hosts.size()) return {};
  std::vector<std::string> items;
  for (const Vertex hca : fabric.hosts[static_cast<std::size_t>(host)].hcas) {
    if (hca == FabricGraph::null_vertex()) continue;
    const std::string device = hca_device_name(fabric, hca);
    if (device.empty()) continue;
    for (const int port : cabled_ports(fabric, hca)) items.push_back(fmt::format("{}:{}", device, port));
  }
  if (items.empty()) return {};
  return fmt::format("={}", fmt::join(items, ","));
}

JobPlacementFacts placement_facts(const LocalityIndex& index, const std::vector<std::string>& nodes) {
  JobPlacementFacts facts;
  std::vector<int> groups;
  for (const auto& node : nodes) {
    const auto host = index.find_host(node);
    if (!host) {
      facts.unknown.push_back(node);
      continue;
    }
    facts.hosts.push_back(*host);
    const int g = index.leaf_group_of(*host);
    if (g < 0 || std::find(groups.begin(), groups.end(), g) != groups.end()) continue;
    groups.push_back(g);
    facts.leaf_groups.push_back(index.leaf_group(g).name);
    const int pod = index.pod_of_leaf_group(g);
    if (pod >= 0 && std::find(facts.pods.begin(), facts.pods.end(), pod) == facts.pods.end())
      facts.pods.push_back(pod);
  }
  return facts;
}

std::string score_words(const LocalityIndex& index, const std::vector<int>& hosts, int gpus,
                        const CommPattern& pattern) {
  const std::vector<int> per_host(hosts.size(), gpus);
  const PlacementScore s = score_hosts(index, hosts, per_host, pattern);
  return fmt::format(
      "leaf_groups={} pods={} inter_node_bytes={:.6g} spine_bytes={:.6g} core_bytes={:.6g} "
      "max_uplink_load_s_per_gb={:.6g}",
      s.leaf_groups, s.pods, s.inter_node_bytes, s.spine_bytes, s.core_bytes, s.max_uplink_load);
}

JobEnvironment job_environment(const Fabric& fabric, const LocalityIndex& index, const SiteConfig& site,
                               const JobEnvironmentInput& in) {
  JobEnvironment env;
  const JobPlacementFacts facts = placement_facts(index, in.nodes);
  env.vars.emplace_back("FABRICFIT_PATTERN", in.pattern.to_string());
  if (!facts.leaf_groups.empty())
    env.vars.emplace_back("FABRICFIT_LEAF_GROUPS", fmt::format("{}", fmt::join(facts.leaf_groups, ",")));
  const bool all_placed =
      facts.unknown.empty() && !facts.hosts.empty() &&
      std::ranges::all_of(facts.hosts, [&](int h) { return index.leaf_group_of(h) >= 0; });
  if (all_placed && in.gpus_on_node > 0)
    env.vars.emplace_back("FABRICFIT_SCORE", score_words(index, facts.hosts, in.gpus_on_node, in.pattern));
  // The NVLink domains of the job's hosts, in node-list order: the job is inside one when
  // that is the only name (hosts in no domain add kInNoneName), and the variable names them
  // without it.
  std::vector<std::string> domains = domain_names_of(index, facts.hosts);
  const bool one_domain = facts.unknown.empty() && facts.hosts.size() > 1 && domains.size() == 1 &&
                          domains.front() != kInNoneName;
  std::erase(domains, kInNoneName);
  if (!domains.empty())
    env.vars.emplace_back("FABRICFIT_NVLINK_DOMAINS", fmt::format("{}", fmt::join(domains, ",")));

  if (!site.nccl_settings || in.pattern.kind == PatternKind::None) return env;
  // Inside one NVLink domain NCCL's peers are reachable over NVLink: require it, so that a
  // job that cannot use it (fabric not registered, no IMEX channel) fails instead of running
  // over InfiniBand at a thirty-sixth of the bandwidth. Across domains NCCL's default (use it
  // where it can) stays, with the IB settings below for the traffic between domains. A fact
  // of the job, not of this node: set before the per-node HCA check, so every rank agrees.
  if (site.imex && one_domain) env.vars.emplace_back("NCCL_MNNVL_ENABLE", "1");
  const auto host = index.find_host(in.node);
  const std::string hcas = host ? nccl_ib_hca(fabric, *host) : std::string();
  if (hcas.empty()) {
    env.notes.push_back(
        fmt::format("node {} has no compute HCA in the fabric snapshot ({}): no NCCL settings", in.node,
                    fabric.origin.empty() ? "unknown origin" : fabric.origin));
    return env;
  }
  env.vars.emplace_back("NCCL_IB_HCA", hcas);
  // Rail-optimised: rail r talks to rail r, so NCCL must not pair different NICs.
  if (fabric.rails > 1) env.vars.emplace_back("NCCL_CROSS_NIC", "0");
  if (site.nccl_ib_sl) env.vars.emplace_back("NCCL_IB_SL", std::to_string(*site.nccl_ib_sl));
  if (site.nccl_ib_tc) env.vars.emplace_back("NCCL_IB_TC", std::to_string(*site.nccl_ib_tc));
  if (site.nccl_ib_gid_index)
    env.vars.emplace_back("NCCL_IB_GID_INDEX", std::to_string(*site.nccl_ib_gid_index));
  if (!site.nccl_socket_ifname.empty()) env.vars.emplace_back("NCCL_SOCKET_IFNAME", site.nccl_socket_ifname);
  // One aggregation tree: a two-tier fabric is one; on three tiers, one pod's spines.
  const bool one_tree = all_placed && (index.pod_count() == 0 || facts.pods.size() <= 1);
  if (site.sharp && fabric.sharp_nodes > 0 && one_tree) env.vars.emplace_back("NCCL_COLLNET_ENABLE", "1");
  return env;
}

JobEnvironment keep_users_own(JobEnvironment env, const EnvLookup& lookup) {
  // "NAME=VALUE;NAME=VALUE": what an earlier step of this job set.
  std::vector<std::pair<std::string, std::string>> earlier;
  if (const auto record = lookup(kNcclSetRecord)) {
    std::string_view rest = *record;
    while (!rest.empty()) {
      const auto semi = rest.find(';');
      const auto item = rest.substr(0, semi);
      rest = semi == std::string_view::npos ? std::string_view{} : rest.substr(semi + 1);
      if (const auto eq = item.find('='); eq != std::string_view::npos)
        earlier.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
    }
  }
  JobEnvironment out;
  out.notes = std::move(env.notes);
  std::vector<std::string> record;
  for (auto& [name, value] : env.vars) {
    if (!name.starts_with("NCCL_")) {
      out.vars.emplace_back(std::move(name), std::move(value));
      continue;
    }
    if (const auto current = lookup(name)) {
      const auto ours = std::ranges::find_if(earlier, [&](const auto& e) { return e.first == name; });
      if (ours == earlier.end() || ours->second != *current) continue;  // the user's own: kept
    }
    record.push_back(fmt::format("{}={}", name, value));
    out.vars.emplace_back(std::move(name), std::move(value));
  }
  for (const auto& [name, value] : earlier) {
    const bool still_set = std::ranges::any_of(out.vars, [&](const auto& v) { return v.first == name; });
    if (!still_set && lookup(name) == value) out.unset.push_back(name);
  }
  out.vars.emplace_back(kNcclSetRecord, fmt::format("{}", fmt::join(record, ";")));
  return out;
}

}  // namespace fabricfit
