// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/slurm_topology.hpp"

#include <fmt/format.h>
#include <cctype>
#include <set>

#include "common/hostlist.hpp"

namespace fabricfit {
namespace {

// Unique names: a second "x" becomes "x-2".
class Names {
 public:
  std::string take(const std::string& wanted) {
    std::string name = slurm_switch_name(wanted);
    for (int k = 2; used_.contains(name); ++k) name = fmt::format("{}-{}", slurm_switch_name(wanted), k);
    used_.insert(name);
    return name;
  }

 private:
  std::set<std::string> used_;
};

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

}  // namespace

std::string slurm_switch_name(const std::string& name) {
  std::string out;
  for (const char c : name) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    if (ok)
      out += c;
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "switch" : out;
}

std::string slurm_topology_conf(const Fabric& f) {
  Names names;
  const std::string root = names.take("fabric-root");
  std::string out = fmt::format(
      "# Slurm topology.conf (topology/tree) written by fabricfit for {}.\n"
      "# One switch per leaf group{}, and one root above all of them.\n",
      f.origin.empty() ? "a fabric snapshot" : f.origin, f.pods.empty() ? "" : ", one per pod");
  std::vector<std::string> group_names;
  for (const LeafGroup& g : f.leaf_groups) {
    group_names.push_back(names.take(g.name));
    if (g.hosts.empty()) continue;
    std::vector<std::string> hosts;
    for (int h : g.hosts) hosts.push_back(f.hosts[h].name);
    out += fmt::format("SwitchName={} Nodes={}\n", group_names.back(), compress_hostlist(hosts));
  }
  std::vector<std::string> top;
  if (!f.pods.empty()) {
    std::vector<char> in_pod(f.leaf_groups.size(), 0);
    for (const Pod& p : f.pods) {
      std::vector<std::string> members;
      for (int g : p.leaf_groups) {
        if (f.leaf_groups[g].hosts.empty()) continue;
        members.push_back(group_names[g]);
        in_pod[g] = 1;
      }
      if (members.empty()) continue;
      top.push_back(names.take(p.name));
      out += fmt::format("SwitchName={} Switches={}\n", top.back(), join(members));
    }
    for (std::size_t g = 0; g < f.leaf_groups.size(); ++g) {
      if (!in_pod[g] && !f.leaf_groups[g].hosts.empty()) top.push_back(group_names[g]);
    }
  } else {
    for (std::size_t g = 0; g < f.leaf_groups.size(); ++g) {
      if (!f.leaf_groups[g].hosts.empty()) top.push_back(group_names[g]);
    }
  }
  std::vector<std::string> loose;
  for (const Host& h : f.hosts) {
    if (h.leaf_group < 0) loose.push_back(h.name);
  }
  if (!loose.empty()) {
    const std::string name = names.take("no-leaf-group");
    out += fmt::format("# Hosts the model could not put in a leaf group (see `fabricfit show`).\n");
    out += fmt::format("SwitchName={} Nodes={}\n", name, compress_hostlist(loose));
    top.push_back(name);
  }
  if (!top.empty()) out += fmt::format("SwitchName={} Switches={}\n", root, join(top));
  return out;
}

}  // namespace fabricfit
