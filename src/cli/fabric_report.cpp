// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli/fabric_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <ctime>

#include "common/hostlist.hpp"

namespace fabricfit::cli {
namespace {

// Leaves in no leaf group: service leaves (storage, management), and leaves whose hosts
// all went elsewhere.
std::vector<std::string> service_leaves(const Fabric& f) {
  std::vector<std::string> out;
  for (Vertex v = 0; v < boost::num_vertices(f.graph); ++v) {
    const VertexProps& p = f.graph[v];
    if (p.kind == VertexKind::Switch && p.tier == SwitchTier::Leaf && p.leaf_group < 0) out.push_back(p.name);
  }
  return out;
}

using nlohmann::json;

std::string time_text(std::int64_t unix_time) {
  if (unix_time <= 0) return "unknown time";
  const std::time_t t = static_cast<std::time_t>(unix_time);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string vertex_name(const Fabric& f, Vertex v) {
  return v == FabricGraph::null_vertex() ? "-" : f.graph[v].name;
}

std::string gbps_text(double gbps) {
  return gbps == static_cast<double>(static_cast<long long>(gbps))
             ? fmt::format("{}", static_cast<long long>(gbps))
             : fmt::format("{:.2f}", gbps);
}

std::string rate_text(const LinkRate& r) {
  return r.width == 0 ? "unknown" : r.to_string();
}

std::string end_text(const LinkEnd& e) {
  return fmt::format("{}[{}]", e.node, e.port);
}

json end_json(const LinkEnd& e) {
  return {{"node", e.node}, {"guid", fmt::format("{:#018x}", e.guid)}, {"port", e.port}};
}

// The names of the leaf groups a domain's hosts hang off.
std::vector<std::string> domain_leaf_groups(const Fabric& f, const NvlinkDomain& d) {
  std::vector<std::string> names;
  for (int g : leaf_groups_of(f, d)) names.push_back(f.leaf_groups[g].name);
  return names;
}

}  // namespace

std::string ratio_text(double oversubscription) {
  return oversubscription > 0 ? fmt::format("{:.2f}:1", oversubscription) : "-";
}

std::string fabric_text(const Snapshot& s) {
  const Fabric& f = s.fabric;
  std::string out;
  out += fmt::format("Fabric: {}{}\n", f.origin.empty() ? "(unknown origin)" : f.origin,
                     f.partial ? "   ** PARTIAL DISCOVERY: parts of the subnet are missing **" : "");
  out += fmt::format("Built: {} by {}\n", time_text(s.info.created_unix),
                     s.info.producer.empty() ? "?" : s.info.producer);
  const std::size_t leaves = f.switch_count(SwitchTier::Leaf), spines = f.switch_count(SwitchTier::Spine),
                    cores = f.switch_count(SwitchTier::Core), untiered = f.switch_count(SwitchTier::None);
  const std::size_t service = service_leaves(f).size();
  out += fmt::format("Hosts: {}   Rails: {}   Tiers: {} ({} leaves{}, {} spines{}{})   SHARP nodes: {}\n",
                     f.hosts.size(), f.rails, f.tiers, leaves,
                     service > 0 ? fmt::format(" of which {} in no leaf group", service) : "", spines,
                     cores > 0 ? fmt::format(", {} cores", cores) : "",
                     untiered > 0 ? fmt::format(", {} untiered", untiered) : "", f.sharp_nodes);

  out += fmt::format("\nLeaf groups ({}):\n", f.leaf_groups.size());
  std::size_t width = 4;
  for (const LeafGroup& g : f.leaf_groups) width = std::max(width, g.name.size());
  out += fmt::format("  {:<{}}  {:>5}  {:>6}  {:>9}  {:>9}  {:>7}  {:>9}  {:>8}  {:>9}{}\n", "NAME", width,
                     "HOSTS", "LEAVES", "DOWN Gb/s", "UP Gb/s", "UPLINKS", "MIN UP", "OVERSUB", "LOST Gb/s",
                     f.pods.empty() ? "" : "  POD");
  for (const LeafGroup& g : f.leaf_groups) {
    const auto present = std::count_if(g.leaves.begin(), g.leaves.end(),
                                       [](Vertex v) { return v != FabricGraph::null_vertex(); });
    const double lost = g.expected_up_gbps - g.up_gbps;
    out += fmt::format("  {:<{}}  {:>5}  {:>6}  {:>9}  {:>9}  {:>7}  {:>9}  {:>8}  {:>9}{}\n", g.name, width,
                       g.hosts.size(), present, gbps_text(g.down_gbps), gbps_text(g.up_gbps), g.uplinks,
                       gbps_text(g.min_uplink_gbps), ratio_text(g.oversubscription()),
                       lost > 1e-9 ? gbps_text(lost) : "-",
                       f.pods.empty() ? "" : "  " + (g.pod >= 0 ? f.pods[g.pod].name : std::string("-")));
  }
  if (f.rails > 1) {
    out += "  Leaves by rail:\n";
    for (const LeafGroup& g : f.leaf_groups) {
      std::string list;
      for (std::size_t r = 0; r < g.leaves.size(); ++r) {
        list += fmt::format("{}{}={}", r ? " " : "", r, vertex_name(f, g.leaves[r]));
      }
      out += fmt::format("    {}: {}\n", g.name, list);
    }
  }

  if (!f.pods.empty()) {
    out += fmt::format("\nPods ({}):\n", f.pods.size());
    for (const Pod& p : f.pods) {
      std::vector<std::string> spines_list;
      for (Vertex v : p.spines) spines_list.push_back(f.graph[v].name);
      out += fmt::format("  {}: {} leaf groups, spines {}; up {} Gb/s over {} uplinks (slowest {})\n", p.name,
                         p.leaf_groups.size(), fmt::join(spines_list, ", "), gbps_text(p.up_gbps), p.uplinks,
                         gbps_text(p.min_uplink_gbps));
    }
  }

  if (!f.nvlink_domains.empty()) {
    out += fmt::format("\nNVLink domains ({}):\n", f.nvlink_domains.size());
    std::size_t name_width = 4, groups_width = 11;
    std::vector<std::string> groups;  // per domain, its leaf groups as the row shows them
    for (const NvlinkDomain& d : f.nvlink_domains) {
      groups.push_back(fmt::format("{}", fmt::join(domain_leaf_groups(f, d), ",")));
      name_width = std::max(name_width, d.name.size());
      groups_width = std::max(groups_width, groups.back().size());
    }
    out += fmt::format("  {:<{}}  {:>5}  {:<{}}  {}\n", "NAME", name_width, "HOSTS", "LEAF GROUPS",
                       groups_width, "HOSTLIST");
    for (std::size_t i = 0; i < f.nvlink_domains.size(); ++i) {
      const NvlinkDomain& d = f.nvlink_domains[i];
      std::vector<std::string> names;
      for (int h : d.hosts) names.push_back(f.hosts[h].name);
      out += fmt::format("  {:<{}}  {:>5}  {:<{}}  {}\n", d.name, name_width, d.hosts.size(), groups[i],
                         groups_width, compress_hostlist(names));
    }
  }

  out += fmt::format("\nDegraded links ({}):\n", f.degraded_links.size());
  for (const DegradedLink& d : f.degraded_links) {
    out += fmt::format("  {}[{}] - {}[{}]: {} ({} Gb/s), its peers run {} ({} Gb/s)\n", d.a, d.port_a, d.b,
                       d.port_b, rate_text(d.rate), gbps_text(d.gbps), rate_text(d.expected_rate),
                       gbps_text(d.expected_gbps));
  }
  if (f.degraded_links.empty()) out += "  none\n";

  out += fmt::format("\nWarnings ({}):\n", f.warnings.size());
  for (const std::string& w : f.warnings) out += fmt::format("  {}\n", w);
  if (f.warnings.empty()) out += "  none: a clean Clos\n";
  return out;
}

json fabric_json(const Snapshot& s) {
  const Fabric& f = s.fabric;
  json j;
  j["origin"] = f.origin;
  j["partial"] = f.partial;
  j["producer"] = s.info.producer;
  j["created"] = time_text(s.info.created_unix);
  json opts = json::object();
  for (const auto& [k, v] : s.info.options) opts[k] = v;
  j["options"] = opts;
  j["hosts"] = f.hosts.size();
  j["switches"] = {{"leaf", f.switch_count(SwitchTier::Leaf)},
                   {"spine", f.switch_count(SwitchTier::Spine)},
                   {"core", f.switch_count(SwitchTier::Core)},
                   {"untiered", f.switch_count(SwitchTier::None)}};
  j["service_leaves"] = service_leaves(f);
  j["tiers"] = f.tiers;
  j["rails"] = f.rails;
  j["sharp_nodes"] = f.sharp_nodes;
  json groups = json::array();
  for (const LeafGroup& g : f.leaf_groups) {
    json hosts = json::array(), leaves = json::array();
    for (int h : g.hosts) hosts.push_back(f.hosts[h].name);
    for (Vertex v : g.leaves) {
      leaves.push_back(v == FabricGraph::null_vertex() ? json(nullptr) : json(f.graph[v].name));
    }
    groups.push_back({{"name", g.name},
                      {"hosts", hosts},
                      {"leaves", leaves},
                      {"pod", g.pod >= 0 ? json(f.pods[g.pod].name) : json(nullptr)},
                      {"down_gbps", g.down_gbps},
                      {"up_gbps", g.up_gbps},
                      {"expected_up_gbps", g.expected_up_gbps},
                      {"lost_up_gbps", std::max(0.0, g.expected_up_gbps - g.up_gbps)},
                      {"uplinks", g.uplinks},
                      {"min_uplink_gbps", g.min_uplink_gbps},
                      {"oversubscription", g.oversubscription()}});
  }
  j["leaf_groups"] = groups;
  json pods = json::array();
  for (const Pod& p : f.pods) {
    json spines = json::array(), lgs = json::array();
    for (Vertex v : p.spines) spines.push_back(f.graph[v].name);
    for (int g : p.leaf_groups) lgs.push_back(f.leaf_groups[g].name);
    pods.push_back({{"name", p.name},
                    {"spines", spines},
                    {"leaf_groups", lgs},
                    {"up_gbps", p.up_gbps},
                    {"uplinks", p.uplinks},
                    {"min_uplink_gbps", p.min_uplink_gbps}});
  }
  j["pods"] = pods;
  json domains = json::array();
  for (const NvlinkDomain& d : f.nvlink_domains) {
    json hosts = json::array();
    for (int h : d.hosts) hosts.push_back(f.hosts[h].name);
    domains.push_back({{"name", d.name}, {"hosts", hosts}, {"leaf_groups", domain_leaf_groups(f, d)}});
  }
  j["nvlink_domains"] = domains;
  json degraded = json::array();
  for (const DegradedLink& d : f.degraded_links) {
    degraded.push_back({{"a", d.a},
                        {"port_a", d.port_a},
                        {"b", d.b},
                        {"port_b", d.port_b},
                        {"rate", rate_text(d.rate)},
                        {"expected_rate", rate_text(d.expected_rate)},
                        {"gbps", d.gbps},
                        {"expected_gbps", d.expected_gbps}});
  }
  j["degraded_links"] = degraded;
  j["warnings"] = f.warnings;
  return j;
}

std::string diff_text(const FabricDiff& d, const std::string& before, const std::string& after) {
  std::string out = fmt::format("--- {}\n+++ {}\n", before, after);
  if (d.empty()) return out + "no differences\n";
  const auto section = [&](const char* title, std::size_t n) {
    if (n > 0) out += fmt::format("{} ({}):\n", title, n);
  };
  section("Links gone", d.links_gone.size());
  for (const auto& l : d.links_gone) {
    out += fmt::format("  - {} - {} ({})\n", end_text(l.a), end_text(l.b), rate_text(l.before));
  }
  section("Links added", d.links_added.size());
  for (const auto& l : d.links_added) {
    out += fmt::format("  + {} - {} ({})\n", end_text(l.a), end_text(l.b), rate_text(l.after));
  }
  section("Speed/width changed", d.rate_changes.size());
  for (const auto& l : d.rate_changes) {
    out += fmt::format("  ~ {} - {}: {} -> {} ({} -> {} Gb/s)\n", end_text(l.a), end_text(l.b),
                       rate_text(l.before), rate_text(l.after), gbps_text(l.gbps_before),
                       gbps_text(l.gbps_after));
  }
  section("Hosts missing", d.hosts_missing.size());
  for (const auto& h : d.hosts_missing) out += fmt::format("  - {}\n", h);
  section("Hosts added", d.hosts_added.size());
  for (const auto& h : d.hosts_added) out += fmt::format("  + {}\n", h);
  section("Hosts moved", d.hosts_moved.size());
  for (const auto& m : d.hosts_moved) {
    out +=
        fmt::format("  ~ {} rail {}: {} -> {}\n", m.host, m.rail, m.leaf_before.empty() ? "-" : m.leaf_before,
                    m.leaf_after.empty() ? "-" : m.leaf_after);
  }
  section("Switches gone", d.switches_gone.size());
  for (const auto& s : d.switches_gone) out += fmt::format("  - {}\n", s);
  section("Switches added", d.switches_added.size());
  for (const auto& s : d.switches_added) out += fmt::format("  + {}\n", s);
  section("Renamed", d.renamed.size());
  for (const auto& r : d.renamed) out += fmt::format("  ~ {:#018x}: {} -> {}\n", r.guid, r.before, r.after);
  section("Leaf groups changed", d.groups_changed.size());
  for (const auto& g : d.groups_changed) {
    out += fmt::format(
        "  ~ {}: hosts {} -> {}, down {} -> {} Gb/s, up {} -> {} Gb/s ({} -> {} uplinks){}\n", g.group,
        g.hosts_before, g.hosts_after, gbps_text(g.down_before), gbps_text(g.down_after),
        gbps_text(g.up_before), gbps_text(g.up_after), g.uplinks_before, g.uplinks_after,
        g.up_after < g.up_before ? fmt::format(", lost {} Gb/s", gbps_text(g.up_before - g.up_after)) : "");
  }
  section("Leaf groups gone", d.groups_gone.size());
  for (const auto& g : d.groups_gone) out += fmt::format("  - {}\n", g);
  section("Leaf groups added", d.groups_added.size());
  for (const auto& g : d.groups_added) out += fmt::format("  + {}\n", g);
  section("NVLink domains changed", d.domains_changed.size());
  for (const auto& c : d.domains_changed) {
    out += fmt::format("  ~ {}:{}{}\n", c.domain,
                       c.hosts_gone.empty() ? "" : fmt::format(" - {}", compress_hostlist(c.hosts_gone)),
                       c.hosts_added.empty() ? "" : fmt::format(" + {}", compress_hostlist(c.hosts_added)));
  }
  section("NVLink domains gone", d.domains_gone.size());
  for (const auto& n : d.domains_gone) out += fmt::format("  - {}\n", n);
  section("NVLink domains added", d.domains_added.size());
  for (const auto& n : d.domains_added) out += fmt::format("  + {}\n", n);
  return out;
}

json diff_json(const FabricDiff& d, const std::string& before, const std::string& after) {
  const auto links = [](const std::vector<LinkChange>& v, bool with_before, bool with_after) {
    json a = json::array();
    for (const auto& l : v) {
      json x = {{"a", end_json(l.a)}, {"b", end_json(l.b)}};
      if (with_before) x["before"] = {{"rate", rate_text(l.before)}, {"gbps", l.gbps_before}};
      if (with_after) x["after"] = {{"rate", rate_text(l.after)}, {"gbps", l.gbps_after}};
      a.push_back(x);
    }
    return a;
  };
  json moved = json::array();
  for (const auto& m : d.hosts_moved) {
    moved.push_back({{"host", m.host},
                     {"rail", m.rail},
                     {"leaf_before", m.leaf_before.empty() ? json(nullptr) : json(m.leaf_before)},
                     {"leaf_after", m.leaf_after.empty() ? json(nullptr) : json(m.leaf_after)}});
  }
  json renamed = json::array();
  for (const auto& r : d.renamed) {
    renamed.push_back({{"guid", fmt::format("{:#018x}", r.guid)}, {"before", r.before}, {"after", r.after}});
  }
  json groups = json::array();
  for (const auto& g : d.groups_changed) {
    groups.push_back({{"name", g.group},
                      {"hosts_before", g.hosts_before},
                      {"hosts_after", g.hosts_after},
                      {"down_gbps_before", g.down_before},
                      {"down_gbps_after", g.down_after},
                      {"up_gbps_before", g.up_before},
                      {"up_gbps_after", g.up_after},
                      {"uplinks_before", g.uplinks_before},
                      {"uplinks_after", g.uplinks_after},
                      {"lost_up_gbps", std::max(0.0, g.up_before - g.up_after)}});
  }
  json domains = json::array();
  for (const auto& c : d.domains_changed) {
    domains.push_back({{"name", c.domain}, {"hosts_gone", c.hosts_gone}, {"hosts_added", c.hosts_added}});
  }
  return {{"before", before},
          {"after", after},
          {"identical", d.empty()},
          {"links_gone", links(d.links_gone, true, false)},
          {"links_added", links(d.links_added, false, true)},
          {"rate_changes", links(d.rate_changes, true, true)},
          {"hosts_missing", d.hosts_missing},
          {"hosts_added", d.hosts_added},
          {"hosts_moved", moved},
          {"switches_gone", d.switches_gone},
          {"switches_added", d.switches_added},
          {"renamed", renamed},
          {"leaf_groups_changed", groups},
          {"leaf_groups_gone", d.groups_gone},
          {"leaf_groups_added", d.groups_added},
          {"nvlink_domains_changed", domains},
          {"nvlink_domains_gone", d.domains_gone},
          {"nvlink_domains_added", d.domains_added}};
}

}  // namespace fabricfit::cli
