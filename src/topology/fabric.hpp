// SPDX-License-Identifier: GPL-2.0-or-later
// The Fabric model: a Boost.Graph of hosts, HCAs and switches joined by links, plus
// the views derived from it that placement and the admin commands use (leaf groups,
// pods, degraded links, warnings). Built by build_fabric() from a RawFabric.
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "topology/link_rate.hpp"

namespace fabricfit {

enum class VertexKind {
  Host,  // a Slurm node: joined to its compute HCAs by zero-capacity "host" edges
  Hca,   // a compute HCA port
  Switch,
  Other,  // kept but not placed on: storage/management HCAs, unnamed HCAs, SHARP aggregation nodes
};

enum class SwitchTier { None, Leaf, Spine, Core };

struct VertexProps {
  VertexKind kind = VertexKind::Other;
  std::string name;        // host name, switch NodeDescription, or "gpu001 mlx5_0" for an HCA
  std::uint64_t guid = 0;  // node GUID (0 for Host vertices)
  SwitchTier tier = SwitchTier::None;
  int rail = -1;        // HCAs and leaves: the rail; -1 elsewhere
  int host = -1;        // HCAs: index into Fabric::hosts
  int leaf_group = -1;  // leaves and hosts: index into Fabric::leaf_groups
  int pod = -1;         // three-tier: leaves and spines, index into Fabric::pods
  friend bool operator==(const VertexProps&, const VertexProps&) = default;
};

struct LinkProps {
  int port_a = 0;            // port on source(edge)
  int port_b = 0;            // port on target(edge)
  LinkRate rate;             // what it runs at
  double gbps = 0;           // capacity it actually has (rate.gbps())
  double expected_gbps = 0;  // what its peers run at; > gbps means degraded
  bool host_edge = false;    // Host-to-HCA membership, not a cable: carries no capacity
  [[nodiscard]] bool degraded() const { return gbps + 1e-9 < expected_gbps; }
  friend bool operator==(const LinkProps&, const LinkProps&) = default;
};

// vecS out-edge lists allow parallel edges: two cables between one leaf and one spine
// are two links.
using FabricGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexProps, LinkProps>;
using Vertex = FabricGraph::vertex_descriptor;

struct Host {
  std::string name;
  std::vector<Vertex> hcas;  // compute HCAs, indexed by rail; FabricGraph::null_vertex() where the
                             // host has no HCA on that rail (size is Fabric::rails)
  int leaf_group = -1;
  friend bool operator==(const Host&, const Host&) = default;
};

// The unit of locality: hosts that share their leaf on every rail.
struct LeafGroup {
  std::string name;            // the rail-0 leaf's name (or "<leaf> +N rails")
  std::vector<int> hosts;      // indices into Fabric::hosts, in name order
  std::vector<Vertex> leaves;  // indexed by rail; FabricGraph::null_vertex() for a rail with no leaf
  int pod = -1;                // three-tier: index into Fabric::pods
  double down_gbps = 0;        // to the CAs on its leaves (hosts, unnamed, storage), all rails
  double up_gbps = 0;          // to spines, all rails (degraded links at what they run at)
  int uplinks = 0;             // cables to spines, all rails
  double min_uplink_gbps = 0;  // slowest uplink: ECMP spreads evenly, so it saturates first
  // up_gbps with every leaf cabled like most leaves and every uplink at its peers' rate:
  // expected_up_gbps - up_gbps is the capacity lost to missing or degraded uplinks.
  double expected_up_gbps = 0;
  [[nodiscard]] double oversubscription() const { return up_gbps > 0 ? down_gbps / up_gbps : 0.0; }
  friend bool operator==(const LeafGroup&, const LeafGroup&) = default;
};

// Three-tier fabrics: leaf groups under one set of spines.
struct Pod {
  std::string name;
  std::vector<int> leaf_groups;
  std::vector<Vertex> spines;
  double up_gbps = 0;  // spine-to-core capacity
  int uplinks = 0;
  double min_uplink_gbps = 0;
  friend bool operator==(const Pod&, const Pod&) = default;
};

struct DegradedLink {
  std::string a;
  int port_a = 0;
  std::string b;
  int port_b = 0;
  double gbps = 0;
  double expected_gbps = 0;
  LinkRate rate;
  LinkRate expected_rate;
  friend bool operator==(const DegradedLink&, const DegradedLink&) = default;
};

// A multi-node NVLink domain (an NVSwitch fabric, e.g. an NVL72 rack: 18 hosts x 4 GPUs):
// hosts whose GPUs reach each other over NVLink. A host is in at most one domain; hosts in
// none are fine (docs/fabric-model.md, "NVLink domains").
struct NvlinkDomain {
  std::string name;        // as the site names it (a Slurm BlockName)
  std::vector<int> hosts;  // indices into Fabric::hosts, ascending, not empty
  friend bool operator==(const NvlinkDomain&, const NvlinkDomain&) = default;
};

struct Fabric {
  FabricGraph graph;
  std::vector<Host> hosts;  // sorted by name
  std::vector<LeafGroup> leaf_groups;
  std::vector<Pod> pods;  // empty for a two-tier fabric
  std::vector<DegradedLink> degraded_links;
  std::vector<std::string> warnings;  // what is not a clean Clos, unnamed HCAs, ...
  int rails = 0;
  int tiers = 0;         // switch tiers: 1, 2 or 3
  bool partial = false;  // built from a partial discovery
  std::string origin;
  int sharp_nodes = 0;  // SHARP aggregation nodes seen: the switches can run in-network reductions
  // Not found by discovery: set from a site's definitions (set_nvlink_domains), in the
  // order given.
  std::vector<NvlinkDomain> nvlink_domains;

  // Same vertices, links (in the same order) and derived views.
  friend bool operator==(const Fabric& a, const Fabric& b);

  [[nodiscard]] std::optional<int> host_index(std::string_view name) const;
  [[nodiscard]] std::size_t switch_count(SwitchTier tier) const;
};

// What set_nvlink_domains refuses: the message names the domain and the fault.
class NvlinkDomainError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Replaces fabric.nvlink_domains with `domains`, each one's hosts sorted. Throws
// NvlinkDomainError (and leaves the fabric as it was) for an empty or unnamed domain, two
// domains of one name, a host index out of range, or a host in two domains or twice in one.
void set_nvlink_domains(Fabric& fabric, std::vector<NvlinkDomain> domains);

// The leaf groups a domain's hosts hang off (indices into Fabric::leaf_groups, ascending):
// one where a rack's trays share a leaf group, more where they reach several (a host in no
// group adds none).
[[nodiscard]] std::vector<int> leaf_groups_of(const Fabric& fabric, const NvlinkDomain& domain);

}  // namespace fabricfit
