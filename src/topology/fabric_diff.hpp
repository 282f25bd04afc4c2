// SPDX-License-Identifier: GPL-2.0-or-later
// What changed between two Fabrics of one subnet: cables gone or added, cables running
// at another width or speed, hosts missing, new or moved to other leaves, switches gone
// or added, nodes renamed, the leaf groups whose capacity changed and the NVLink domains
// that lost or gained hosts (matched by name, hosts by name). Nodes are matched
// by node GUID and cables by their two (GUID, port) ends, so renaming a node is not
// mistaken for replacing it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topology/fabric.hpp"

namespace fabricfit {

struct LinkEnd {
  std::string node;
  std::uint64_t guid = 0;
  int port = 0;
  friend bool operator==(const LinkEnd&, const LinkEnd&) = default;
};

struct LinkChange {
  LinkEnd a, b;     // a: the end of the lower tier (the CA, else the leaf)
  LinkRate before;  // gone: its rate; added: unused
  LinkRate after;   // added, changed: its rate
  double gbps_before = 0, gbps_after = 0;
};

struct HostMove {
  std::string host;
  int rail = 0;
  std::string leaf_before, leaf_after;  // empty: no HCA on that rail
};

struct GroupChange {
  std::string group;
  int hosts_before = 0, hosts_after = 0;
  double down_before = 0, down_after = 0;
  double up_before = 0, up_after = 0;
  int uplinks_before = 0, uplinks_after = 0;
};

struct DomainChange {
  std::string domain;
  std::vector<std::string> hosts_gone, hosts_added;  // host names, sorted
};

struct Rename {
  std::uint64_t guid = 0;
  std::string before, after;
};

struct FabricDiff {
  std::vector<LinkChange> links_gone, links_added, rate_changes;
  std::vector<std::string> hosts_missing, hosts_added;
  std::vector<HostMove> hosts_moved;
  std::vector<std::string> switches_gone, switches_added;
  std::vector<Rename> renamed;
  std::vector<GroupChange> groups_changed;
  std::vector<std::string> groups_gone, groups_added;
  std::vector<DomainChange> domains_changed;
  std::vector<std::string> domains_gone, domains_added;
  [[nodiscard]] bool empty() const;
};

[[nodiscard]] FabricDiff diff_fabrics(const Fabric& before, const Fabric& after);

}  // namespace fabricfit
