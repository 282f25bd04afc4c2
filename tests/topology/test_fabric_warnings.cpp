// SPDX-License-Identifier: GPL-2.0-or-later
// Every finding of build_fabric()'s validation report, each from a fabric that has it.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "generated_fabric.hpp"
#include "raw_fixtures.hpp"
#include "topology/fabric_builder.hpp"
#include "topology/fabric_warnings.hpp"

namespace fabricfit {
namespace {

using testing::add_ca_on;
using testing::find_node;
using testing::link;
using testing::make_clos;
using testing::unlink;

std::string all(const Fabric& f) {
  std::string out;
  for (const auto& w : f.warnings) out += w + "\n";
  return out;
}

// The one warning of `kind`, checked to mention `text`.
void expect_warning(const Fabric& f, WarningKind kind, const std::string& text) {
  EXPECT_GE(count_warnings(f, kind), 1) << "no " << warning_tag(kind) << " in:\n" << all(f);
  for (const auto& w : f.warnings) {
    if (w.starts_with(std::string(warning_tag(kind)) + ": ") && w.find(text) != std::string::npos) return;
  }
  ADD_FAILURE() << "no " << warning_tag(kind) << " mentioning '" << text << "' in:\n" << all(f);
}

ClosSpec small() {
  return testing::clos_spec({.leaves = 2, .hosts_per_leaf = 4, .spines = 2});
}

// small() with one more CA, `description`, cabled to `switch_description`[port].
Fabric with_ca_on(const std::string& description, const std::string& switch_description, int port) {
  RawFabric raw = make_clos(small());
  add_ca_on(raw, description, switch_description, port);
  return build_fabric(raw, {});
}

TEST(FabricWarnings, UnnamedHcaIsKeptOutAndLocated) {
  const Fabric f = with_ca_on("MT4129 ConnectX7   Mellanox Technologies", "ib-leaf-001", 20);
  expect_warning(f, WarningKind::UnnamedHca, "ib-leaf-001 port 20");
  EXPECT_EQ(f.hosts.size(), 8u);
  // Kept in the graph, as Other, with its cable.
  int others = 0;
  for (std::size_t v = 0; v < boost::num_vertices(f.graph); ++v) {
    if (f.graph[v].kind == VertexKind::Other) {
      ++others;
      EXPECT_EQ(boost::out_degree(v, f.graph), 1u);
    }
  }
  EXPECT_EQ(others, 1);
  // It shares the leaf's uplinks: counted in the group's down capacity.
  for (const LeafGroup& g : f.leaf_groups) {
    if (g.name == "ib-leaf-001") {
      EXPECT_DOUBLE_EQ(g.down_gbps, 5 * 200.0);
    }
  }
}

TEST(FabricWarnings, DefaultHostNameIsNotAHost) {
  const Fabric f = with_ca_on("localhost mlx5_0", "ib-leaf-002", 20);
  expect_warning(f, WarningKind::DefaultHostName, "ib-leaf-002 port 20");
  EXPECT_FALSE(f.host_index("localhost"));
}

TEST(FabricWarnings, DescriptionNotMatchingTheHostPattern) {
  const Fabric f = with_ca_on("oneword", "ib-leaf-002", 21);
  expect_warning(f, WarningKind::UnmatchedName, "ib-leaf-002 port 21");
}

TEST(FabricWarnings, HostPatternPicksTheHostName) {
  RawFabric raw = make_clos(small());
  ModelOptions o;
  o.host_pattern = R"(^gpu(\d+) (\S+))";  // host names without the prefix
  const Fabric f = build_fabric(raw, o);
  EXPECT_TRUE(f.host_index("001"));
  o.host_pattern = "(unclosed";
  EXPECT_THROW((void)build_fabric(raw, o), ModelError);
  o.host_pattern = R"(^\S+)";  // no group
  EXPECT_THROW((void)build_fabric(raw, o), ModelError);
}

TEST(FabricWarnings, StorageHcasStayOutOfTheComputeGraph) {
  RawFabric raw = make_clos(small());
  raw.nodes.push_back(
      RawNode{NodeType::Switch, 0x0002c903e0000001ULL, 0x0002c903e0000001ULL, "storage-leaf", 64, {}});
  link(raw, "storage-leaf", 40, "ib-spine-01", 40);
  add_ca_on(raw, "gpu001 mlx5_4", "storage-leaf", 1);
  add_ca_on(raw, "gpu002 mlx5_4", "storage-leaf", 2);
  ModelOptions o;
  o.compute_hca_pattern = "mlx5_[0-3]";
  const Fabric f = build_fabric(raw, o);
  expect_warning(f, WarningKind::NonComputeHca, "mlx5_4 x2");
  EXPECT_EQ(f.rails, 1);
  const Host& h = f.hosts[*f.host_index("gpu001")];
  ASSERT_EQ(h.hcas.size(), 1u);
  EXPECT_EQ(f.graph[h.hcas[0]].name, "gpu001 mlx5_0");
  // The storage leaf is a leaf, in no leaf group; its HCAs know their host.
  bool seen = false;
  for (std::size_t v = 0; v < boost::num_vertices(f.graph); ++v) {
    const VertexProps& p = f.graph[v];
    if (p.name == "storage-leaf") {
      EXPECT_EQ(p.tier, SwitchTier::Leaf);
      EXPECT_EQ(p.leaf_group, -1);
    }
    if (p.name == "gpu001 mlx5_4") {
      seen = true;
      EXPECT_EQ(p.kind, VertexKind::Other);
      EXPECT_EQ(p.host, *f.host_index("gpu001"));
    }
  }
  EXPECT_TRUE(seen);
  EXPECT_EQ(f.tiers, 2);
}

TEST(FabricWarnings, SharpAggregationNodesAreNotHosts) {
  RawFabric raw = make_clos(small());
  add_ca_on(raw, "Mellanox Technologies Aggregation Node", "ib-leaf-001", 64);
  add_ca_on(raw, "Mellanox Technologies Aggregation Node", "ib-spine-01", 64);
  const Fabric f = build_fabric(raw, {});
  expect_warning(f, WarningKind::SharpNodes, "2 SHARP aggregation node(s)");
  EXPECT_EQ(f.sharp_nodes, 2);
  EXPECT_EQ(f.hosts.size(), 8u);
  EXPECT_EQ(f.switch_count(SwitchTier::Spine), 2u);  // a SHARP node does not make a spine a leaf
  for (const LeafGroup& g : f.leaf_groups) EXPECT_DOUBLE_EQ(g.down_gbps, 4 * 200.0);
}

TEST(FabricWarnings, RoutersAreReported) {
  RawFabric raw = make_clos(small());
  raw.nodes.push_back(RawNode{NodeType::Router, 0x77, 0x77, "router-1", 2, {}});
  link(raw, "router-1", 1, "ib-spine-02", 50);
  const Fabric f = build_fabric(raw, {});
  expect_warning(f, WarningKind::Router, "router-1");
}

TEST(FabricWarnings, DuplicateGuids) {
  RawFabric raw = make_clos(small());
  raw.nodes[find_node(raw, "gpu002 mlx5_0")].guid = raw.nodes[find_node(raw, "gpu001 mlx5_0")].guid;
  const Fabric f = build_fabric(raw, {});
  expect_warning(f, WarningKind::DuplicateGuid, "gpu001 mlx5_0, gpu002 mlx5_0");
}

TEST(FabricWarnings, OneHostNameOnTwoMachines) {
  const Fabric f = with_ca_on("gpu001 mlx5_0", "ib-leaf-001", 30);
  expect_warning(f, WarningKind::DuplicateHca, "gpu001 mlx5_0");
}

TEST(FabricWarnings, OneSidedLinkIsReportedAndKept) {
  RawFabric raw = make_clos(small());
  // Drop the spine's record of leaf-001's first uplink.
  const int leaf = find_node(raw, "ib-leaf-001");
  const RawPort up = raw.nodes[leaf].ports.back();
  auto& far = raw.nodes[up.peer].ports;
  far.erase(
      std::remove_if(far.begin(), far.end(), [&](const RawPort& p) { return p.number == up.peer_port; }),
      far.end());
  const Fabric f = build_fabric(raw, {});
  expect_warning(f, WarningKind::InconsistentLink, "ib-leaf-001[8] leads to ib-spine-02");
  EXPECT_EQ(f.leaf_groups[0].uplinks, 4);  // still counted: nothing silently dropped
}

TEST(FabricWarnings, UnknownRate) {
  RawFabric raw = make_clos(small());
  testing::set_rate(raw, "ib-leaf-002", 6, LinkRate{0, ""});
  const Fabric f = build_fabric(raw, {});
  expect_warning(f, WarningKind::UnknownRate, "ib-leaf-002[6]");
}

TEST(FabricWarnings, HostsOnASpine) {
  const Fabric f = with_ca_on("gpu900 mlx5_0", "ib-spine-01", 40);
  expect_warning(f, WarningKind::HostOnSpine, "ib-spine-01");
  EXPECT_EQ(f.switch_count(SwitchTier::Spine), 2u);
  EXPECT_EQ(f.switch_count(SwitchTier::Leaf), 2u);
  EXPECT_EQ(f.hosts[*f.host_index("gpu900")].leaf_group, -1);
}

TEST(FabricWarnings, TooManyTiers) {
  ClosSpec s = small();
  s.pods = 2;
  RawFabric raw = make_clos(s);
  raw.nodes.push_back(RawNode{NodeType::Switch, 0x99, 0x99, "super-core", 64, {}});
  link(raw, "super-core", 1, "ib-core-01", 60);
  const Fabric f = build_fabric(raw, {});
  expect_warning(f, WarningKind::TooManyTiers, "super-core (3 hops)");
}

TEST(FabricWarnings, LeafWithoutUplinkIsAnIsland) {
  RawFabric raw = make_clos(small());
  raw.nodes.push_back(RawNode{NodeType::Switch, 0x98, 0x98, "lonely-leaf", 64, {}});
  add_ca_on(raw, "gpu500 mlx5_0", "lonely-leaf", 1);
  add_ca_on(raw, "gpu501 mlx5_0", "lonely-leaf", 2);
  const Fabric f = build_fabric(raw, {});
  expect_warning(f, WarningKind::LeafWithoutUplink, "lonely-leaf");
  expect_warning(f, WarningKind::Island, "1 switch(es) and 2 other node(s)");
}

TEST(FabricWarnings, LeafToLeafCableIsASwitchLoop) {
  RawFabric raw = make_clos(small());
  link(raw, "ib-leaf-001", 30, "ib-leaf-002", 30);
  const Fabric f = build_fabric(raw, {});
  expect_warning(f, WarningKind::SwitchLoop, "ib-leaf-001[30] - ib-leaf-002[30] (leaf)");
}

TEST(FabricWarnings, SwappedRailCables) {
  ClosSpec s = small();
  s.rails = 2;
  RawFabric raw = make_clos(s);
  unlink(raw, "gpu002 mlx5_0", 1);
  unlink(raw, "gpu002 mlx5_1", 1);
  link(raw, "gpu002 mlx5_0", 1, "ib-leaf-001-r1", 2);
  link(raw, "gpu002 mlx5_1", 1, "ib-leaf-001-r0", 2);
  const Fabric f = build_fabric(raw, {});
  expect_warning(f, WarningKind::RailMismatch, "gpu002 mlx5_0 (rail 0 by name) is cabled to ib-leaf-001-r1");
  // The other hosts still tie the two leaves into one group, and gpu002 is in it.
  ASSERT_EQ(f.leaf_groups.size(), 2u);
  EXPECT_EQ(f.leaf_groups[0].hosts.size(), 4u);
  EXPECT_EQ(f.hosts[*f.host_index("gpu002")].leaf_group, 0);
}

TEST(FabricWarnings, HostOnTwoLeavesOfOneRail) {
  const Fabric f = with_ca_on("gpu001 mlx5_1", "ib-leaf-002", 20);
  expect_warning(f, WarningKind::TwoLeavesOneRail,
                 "gpu001 mlx5_0 on ib-leaf-001 and gpu001 mlx5_1 on ib-leaf-002");
  EXPECT_EQ(f.rails, 1);
  EXPECT_EQ(f.leaf_groups.size(), 2u);  // did not merge the two leaves
  EXPECT_EQ(f.hosts[*f.host_index("gpu001")].leaf_group, 0);
}

TEST(FabricWarnings, HostSpanningLeafGroups) {
  ClosSpec s = small();
  s.rails = 2;
  RawFabric raw = make_clos(s);
  unlink(raw, "gpu001 mlx5_1", 1);
  link(raw, "gpu001 mlx5_1", 1, "ib-leaf-002-r1", 30);
  const Fabric f = build_fabric(raw, {});
  expect_warning(f, WarningKind::HostSpansLeafGroups, "gpu001");
  EXPECT_EQ(f.leaf_groups.size(), 2u);
}

TEST(FabricWarnings, GroupMissingARail) {
  testing::RawBuilder b;
  const int a0 = b.add_switch("a-r0"), a1 = b.add_switch("a-r1"), b0 = b.add_switch("b-r0");
  const int spine = b.add_switch("spine");
  for (int h = 0; h < 3; ++h) {
    b.connect(b.add_ca(fmt::format("n{} mlx5_0", h)), 1, a0, h + 1);
    b.connect(b.add_ca(fmt::format("n{} mlx5_1", h)), 1, a1, h + 1);
    b.connect(b.add_ca(fmt::format("m{} mlx5_0", h)), 1, b0, h + 1);  // its rail-1 leaf is gone
  }
  for (int l : {a0, a1, b0}) b.connect(l, 10, spine, l + 1);
  const Fabric f = build_fabric(b.take(), {});
  EXPECT_EQ(f.rails, 2);
  expect_warning(f, WarningKind::MissingRail, "leaf group b-r0 (3 hosts) has no leaf on rail 1 of 2");
  const Host& m = f.hosts[*f.host_index("m1")];
  ASSERT_EQ(m.hcas.size(), 2u);
  EXPECT_EQ(m.hcas[1], FabricGraph::null_vertex());
}

TEST(FabricWarnings, PartialDiscoveryIsMarked) {
  RawFabric raw = make_clos(small());
  raw.partial = true;
  raw.unreachable = {"S-0002c90301000001 port 3"};
  const Fabric f = build_fabric(raw, {});
  EXPECT_TRUE(f.partial);
  expect_warning(f, WarningKind::PartialDiscovery, "S-0002c90301000001 port 3");
}

TEST(FabricWarnings, NoHosts) {
  testing::RawBuilder b;
  const int x = b.add_switch("x"), y = b.add_switch("y");
  b.connect(x, 1, y, 1);
  const Fabric f = build_fabric(b.take(), {});
  expect_warning(f, WarningKind::NoHosts, "nothing to place");
  EXPECT_EQ(f.rails, 0);
  EXPECT_TRUE(f.leaf_groups.empty());
}

TEST(FabricWarnings, NodeNameMapNamesAnUnnamedHca) {
  RawFabric raw = make_clos(small());
  const int ca = add_ca_on(raw, "MT4129 ConnectX7   Mellanox Technologies", "ib-leaf-002", 20);
  ModelOptions o;
  o.node_names[raw.nodes[ca].guid] = "gpu777 mlx5_0";
  const Fabric f = build_fabric(raw, o);
  EXPECT_EQ(count_warnings(f, WarningKind::UnnamedHca), 0) << all(f);
  ASSERT_TRUE(f.host_index("gpu777"));
  EXPECT_EQ(f.leaf_groups[f.hosts[*f.host_index("gpu777")].leaf_group].name, "ib-leaf-002");
}

TEST(FabricWarnings, ManagedSwitchNamesAreShortened) {
  RawFabric raw = make_clos(small());
  raw.nodes[find_node(raw, "ib-leaf-001")].description = "MF0;A09-P1-IBLEAF-04-04:MQM9701/U1";
  const Fabric f = build_fabric(raw, {});
  EXPECT_EQ(f.leaf_groups[0].name, "A09-P1-IBLEAF-04-04");
}

}  // namespace
}  // namespace fabricfit
