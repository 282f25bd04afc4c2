// SPDX-License-Identifier: GPL-2.0-or-later
// build_fabric() on clean Clos fabrics: tiers, rails, leaf groups, pods, capacities,
// degraded links.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <algorithm>
#include <set>

#include "generated_fabric.hpp"
#include "raw_fixtures.hpp"
#include "topology/fabric_builder.hpp"
#include "topology/fabric_warnings.hpp"

namespace fabricfit {
namespace {

using testing::clos_spec;
using testing::make_clos;

std::set<std::string> host_names(const Fabric& f, const LeafGroup& g) {
  std::set<std::string> out;
  for (int h : g.hosts) out.insert(f.hosts[h].name);
  return out;
}

const LeafGroup& group_named(const Fabric& f, const std::string& name) {
  for (const LeafGroup& g : f.leaf_groups) {
    if (g.name == name) return g;
  }
  ADD_FAILURE() << "no leaf group " << name;
  static const LeafGroup none;
  return none;
}

TEST(FabricBuilder, TwoTierHasLeavesSpinesAndOneGroupPerLeaf) {
  ClosSpec spec;  // 4 leaves x 8 hosts, 2 spines, 1:1, 4xHDR
  const Fabric f = build_fabric(make_clos(spec), {});
  EXPECT_EQ(f.tiers, 2);
  EXPECT_EQ(f.rails, 1);
  EXPECT_EQ(f.hosts.size(), 32u);
  EXPECT_EQ(f.switch_count(SwitchTier::Leaf), 4u);
  EXPECT_EQ(f.switch_count(SwitchTier::Spine), 2u);
  EXPECT_EQ(f.switch_count(SwitchTier::Core), 0u);
  EXPECT_TRUE(f.pods.empty());
  EXPECT_TRUE(f.warnings.empty()) << f.warnings.front();
  EXPECT_TRUE(f.degraded_links.empty());
  ASSERT_EQ(f.leaf_groups.size(), 4u);
  const LeafGroup& g2 = group_named(f, "ib-leaf-002");
  EXPECT_EQ(host_names(f, g2), (std::set<std::string>{"gpu009", "gpu010", "gpu011", "gpu012", "gpu013",
                                                      "gpu014", "gpu015", "gpu016"}));
  ASSERT_EQ(g2.leaves.size(), 1u);
  EXPECT_EQ(f.graph[g2.leaves[0]].name, "ib-leaf-002");
  EXPECT_EQ(f.graph[g2.leaves[0]].tier, SwitchTier::Leaf);
  // Hosts are sorted, findable, and point at their group and HCAs.
  const auto h = f.host_index("gpu010");
  ASSERT_TRUE(h);
  EXPECT_EQ(f.hosts[*h].name, "gpu010");
  EXPECT_EQ(f.leaf_groups[f.hosts[*h].leaf_group].name, "ib-leaf-002");
  ASSERT_EQ(f.hosts[*h].hcas.size(), 1u);
  EXPECT_EQ(f.graph[f.hosts[*h].hcas[0]].name, "gpu010 mlx5_0");
  EXPECT_EQ(f.graph[f.hosts[*h].hcas[0]].kind, VertexKind::Hca);
  EXPECT_FALSE(f.host_index("gpu999"));
}

TEST(FabricBuilder, CapacityAndOversubscriptionByHand) {
  ClosSpec spec = clos_spec({.leaves = 3, .hosts_per_leaf = 6, .spines = 3, .uplinks = 3});
  spec.rate = LinkRate{4, "EDR"};
  const Fabric f = build_fabric(make_clos(spec), {});
  for (const LeafGroup& g : f.leaf_groups) {
    EXPECT_DOUBLE_EQ(g.down_gbps, 6 * 100.0) << g.name;  // 6 hosts at 4xEDR
    EXPECT_DOUBLE_EQ(g.up_gbps, 3 * 100.0) << g.name;    // 3 uplinks at 4xEDR
    EXPECT_DOUBLE_EQ(g.expected_up_gbps, 300.0);
    EXPECT_EQ(g.uplinks, 3);
    EXPECT_DOUBLE_EQ(g.min_uplink_gbps, 100.0);
    EXPECT_DOUBLE_EQ(g.oversubscription(), 2.0);
  }
}

TEST(FabricBuilder, TwoRailsMakeOneGroupOfTwoLeaves) {
  const Fabric f = build_fabric(make_clos(clos_spec({.leaves = 2, .hosts_per_leaf = 4, .rails = 2})), {});
  EXPECT_EQ(f.rails, 2);
  EXPECT_TRUE(f.warnings.empty()) << f.warnings.front();
  ASSERT_EQ(f.leaf_groups.size(), 2u);
  const LeafGroup& g = group_named(f, "ib-leaf-001");
  EXPECT_EQ(host_names(f, g), (std::set<std::string>{"gpu001", "gpu002", "gpu003", "gpu004"}));
  ASSERT_EQ(g.leaves.size(), 2u);
  EXPECT_EQ(f.graph[g.leaves[0]].name, "ib-leaf-001-r0");
  EXPECT_EQ(f.graph[g.leaves[1]].name, "ib-leaf-001-r1");
  EXPECT_EQ(f.graph[g.leaves[1]].rail, 1);
  // 4 hosts x 2 HCAs x 200 down; 2 leaves x 4 uplinks x 200 up.
  EXPECT_DOUBLE_EQ(g.down_gbps, 1600.0);
  EXPECT_DOUBLE_EQ(g.up_gbps, 1600.0);
  EXPECT_EQ(g.uplinks, 8);
  EXPECT_DOUBLE_EQ(g.oversubscription(), 1.0);
  const Host& h = f.hosts[*f.host_index("gpu003")];
  ASSERT_EQ(h.hcas.size(), 2u);
  EXPECT_EQ(f.graph[h.hcas[0]].name, "gpu003 mlx5_0");
  EXPECT_EQ(f.graph[h.hcas[1]].name, "gpu003 mlx5_1");
  EXPECT_EQ(f.graph[h.hcas[1]].rail, 1);
}

TEST(FabricBuilder, EightRails) {
  const Fabric f =
      build_fabric(make_clos(clos_spec({.leaves = 2, .hosts_per_leaf = 2, .uplinks = 2, .rails = 8})), {});
  EXPECT_EQ(f.rails, 8);
  EXPECT_TRUE(f.warnings.empty()) << f.warnings.front();
  ASSERT_EQ(f.leaf_groups.size(), 2u);
  for (const LeafGroup& g : f.leaf_groups) {
    ASSERT_EQ(g.leaves.size(), 8u);
    for (int r = 0; r < 8; ++r) EXPECT_EQ(f.graph[g.leaves[r]].rail, r);
    EXPECT_EQ(g.hosts.size(), 2u);
    EXPECT_DOUBLE_EQ(g.down_gbps, 2 * 8 * 200.0);
    EXPECT_DOUBLE_EQ(g.up_gbps, 8 * 2 * 200.0);
  }
  EXPECT_EQ(group_named(f, "ib-leaf-002").hosts.size(), 2u);
}

TEST(FabricBuilder, RailsFollowNameOrderNotNameDigits) {
  // HCA-1, HCA-2, HCA-5, HCA-6 (four rails of an eight-rail design) are rails 0-3.
  testing::RawBuilder b;
  std::vector<int> leaves;
  for (const char* name : {"leaf-a", "leaf-b", "leaf-c", "leaf-d"}) leaves.push_back(b.add_switch(name));
  const int spine = b.add_switch("spine");
  const std::vector<std::string> hcas{"HCA-1", "HCA-2", "HCA-5", "HCA-6"};
  for (int h = 0; h < 3; ++h) {
    for (int r = 0; r < 4; ++r)
      b.connect(b.add_ca(fmt::format("node{} {}", h, hcas[r])), 1, leaves[r], h + 1);
  }
  for (int r = 0; r < 4; ++r) b.connect(leaves[r], 10, spine, r + 1);
  const Fabric f = build_fabric(b.take(), {});
  EXPECT_EQ(f.rails, 4);
  EXPECT_TRUE(f.warnings.empty()) << f.warnings.front();
  ASSERT_EQ(f.leaf_groups.size(), 1u);
  EXPECT_EQ(f.leaf_groups[0].name, "leaf");
  EXPECT_EQ(f.graph[f.hosts[0].hcas[2]].name, "node0 HCA-5");
  EXPECT_EQ(f.graph[f.leaf_groups[0].leaves[3]].name, "leaf-d");
}

TEST(FabricBuilder, LeafGroupNamesAreOneWordAndUnique) {
  // Rail-major names (rail 1 of group 2 is A09-IBLEAF-01-02) share "A09-IBLEAF" across
  // groups, so each group keeps its lowest-rail leaf's name; no name holds a space.
  testing::RawBuilder b;
  const int spine = b.add_switch("spine");
  for (int g = 1; g <= 2; ++g) {
    for (int r = 1; r <= 2; ++r) {
      const int leaf = b.add_switch(fmt::format("A09-IBLEAF-0{}-0{}", r, g));
      for (int h = 0; h < 2; ++h)
        b.connect(b.add_ca(fmt::format("n{}{} mlx5_{}", g, h, r - 1)), 1, leaf, h + 1);
      b.connect(leaf, 10, spine, 2 * g + r);
    }
  }
  const Fabric f = build_fabric(b.take(), {});
  ASSERT_EQ(f.leaf_groups.size(), 2u);
  EXPECT_EQ(f.leaf_groups[0].name, "A09-IBLEAF-01-01");
  EXPECT_EQ(f.leaf_groups[1].name, "A09-IBLEAF-01-02");
  EXPECT_EQ(f.graph[f.leaf_groups[1].leaves[1]].name, "A09-IBLEAF-02-02");
}

TEST(FabricBuilder, ThreeTierHasPodsAndCores) {
  const Fabric f =
      build_fabric(make_clos(clos_spec({.pods = 2, .leaves = 2, .hosts_per_leaf = 4, .cores = 2})), {});
  EXPECT_EQ(f.tiers, 3);
  EXPECT_TRUE(f.warnings.empty()) << f.warnings.front();
  EXPECT_EQ(f.switch_count(SwitchTier::Leaf), 4u);
  EXPECT_EQ(f.switch_count(SwitchTier::Spine), 4u);
  EXPECT_EQ(f.switch_count(SwitchTier::Core), 2u);
  ASSERT_EQ(f.pods.size(), 2u);
  EXPECT_EQ(f.pods[0].name, "pod-01");
  ASSERT_EQ(f.pods[0].spines.size(), 2u);
  EXPECT_EQ(f.graph[f.pods[0].spines[0]].name, "ib-p01-spine-01");
  EXPECT_EQ(f.graph[f.pods[1].spines[1]].name, "ib-p02-spine-02");
  ASSERT_EQ(f.pods[1].leaf_groups.size(), 2u);
  EXPECT_EQ(f.leaf_groups[f.pods[1].leaf_groups[0]].name, "ib-leaf-003");
  EXPECT_EQ(f.leaf_groups[f.pods[1].leaf_groups[0]].pod, 1);
  // Each spine has 4 downlinks (2 leaves x 4 uplinks / 2 spines) and as many to cores.
  EXPECT_EQ(f.pods[0].uplinks, 8);
  EXPECT_DOUBLE_EQ(f.pods[0].up_gbps, 8 * 200.0);
  EXPECT_DOUBLE_EQ(f.pods[0].min_uplink_gbps, 200.0);
}

TEST(FabricBuilder, ThreeTierWithRails) {
  const Fabric f = build_fabric(
      make_clos(clos_spec({.pods = 2, .leaves = 2, .hosts_per_leaf = 2, .uplinks = 2, .rails = 2})), {});
  EXPECT_EQ(f.tiers, 3);
  EXPECT_EQ(f.rails, 2);
  EXPECT_TRUE(f.warnings.empty()) << f.warnings.front();
  ASSERT_EQ(f.leaf_groups.size(), 4u);
  EXPECT_EQ(f.pods.size(), 2u);
  for (const LeafGroup& g : f.leaf_groups) EXPECT_EQ(g.hosts.size(), 2u);
}

class DegradedUplink : public ::testing::TestWithParam<LinkRate> {};

TEST_P(DegradedUplink, IsFoundAndCountsAtWhatItRuns) {
  ClosSpec spec;  // 4 leaves x 8 hosts, 8 uplinks each at 4xHDR
  RawFabric raw = make_clos(spec);
  testing::set_rate(raw, "ib-leaf-002", 9, GetParam());  // its first uplink
  const Fabric f = build_fabric(raw, {});
  ASSERT_EQ(f.degraded_links.size(), 1u);
  const DegradedLink& d = f.degraded_links[0];
  EXPECT_EQ(d.a, "ib-leaf-002");
  EXPECT_EQ(d.port_a, 9);
  EXPECT_EQ(d.b, "ib-spine-01");
  EXPECT_DOUBLE_EQ(d.gbps, GetParam().gbps());
  EXPECT_DOUBLE_EQ(d.expected_gbps, 200.0);
  EXPECT_EQ(d.rate, GetParam());
  EXPECT_EQ(d.expected_rate, (LinkRate{4, "HDR"}));
  const LeafGroup& g = group_named(f, "ib-leaf-002");
  EXPECT_DOUBLE_EQ(g.up_gbps, 7 * 200.0 + GetParam().gbps());
  EXPECT_DOUBLE_EQ(g.expected_up_gbps, 8 * 200.0);
  EXPECT_DOUBLE_EQ(g.min_uplink_gbps, GetParam().gbps());
  EXPECT_DOUBLE_EQ(g.oversubscription(), 1600.0 / (1400.0 + GetParam().gbps()));
  EXPECT_DOUBLE_EQ(group_named(f, "ib-leaf-001").up_gbps, 1600.0);
  // The graph edge carries the same numbers.
  int degraded_edges = 0;
  for (auto [e, end] = boost::edges(f.graph); e != end; ++e) degraded_edges += f.graph[*e].degraded() ? 1 : 0;
  EXPECT_EQ(degraded_edges, 1);
}

INSTANTIATE_TEST_SUITE_P(Rates, DegradedUplink,
                         ::testing::Values(LinkRate{1, "HDR"}, LinkRate{4, "EDR"}, LinkRate{2, "HDR"}));

TEST(FabricBuilder, DegradedHostLinkIsMeasuredAgainstItsLeaf) {
  ClosSpec spec;
  RawFabric raw = make_clos(spec);
  testing::set_rate(raw, "gpu005 mlx5_0", 1, LinkRate{1, "HDR"});
  const Fabric f = build_fabric(raw, {});
  ASSERT_EQ(f.degraded_links.size(), 1u);
  EXPECT_EQ(f.degraded_links[0].a, "gpu005 mlx5_0");
  EXPECT_EQ(f.degraded_links[0].b, "ib-leaf-001");
  EXPECT_EQ(f.degraded_links[0].port_b, 5);
  EXPECT_DOUBLE_EQ(group_named(f, "ib-leaf-001").down_gbps, 7 * 200.0 + 50.0);
}

TEST(FabricBuilder, MissingUplinkIsLostCapacity) {
  ClosSpec spec;
  RawFabric raw = make_clos(spec);
  testing::unlink(raw, "ib-leaf-003", 12);
  const Fabric f = build_fabric(raw, {});
  const LeafGroup& g = group_named(f, "ib-leaf-003");
  EXPECT_EQ(g.uplinks, 7);
  EXPECT_DOUBLE_EQ(g.up_gbps, 1400.0);
  EXPECT_DOUBLE_EQ(g.expected_up_gbps, 1600.0);
  EXPECT_EQ(count_warnings(f, WarningKind::UnevenUplinks), 1);
  EXPECT_NE(f.warnings.front().find("ib-leaf-003 has 7 uplink(s) where most leaves have 8"),
            std::string::npos)
      << f.warnings.front();
}

TEST(FabricBuilder, ReaderOrderDoesNotMatter) {
  RawFabric raw = make_clos(clos_spec({.leaves = 2, .hosts_per_leaf = 3, .rails = 2}));
  RawFabric shuffled = raw;
  // Reverse the node order, fixing up peers.
  const int n = static_cast<int>(raw.nodes.size());
  std::reverse(shuffled.nodes.begin(), shuffled.nodes.end());
  for (RawNode& node : shuffled.nodes) {
    for (RawPort& p : node.ports) p.peer = n - 1 - p.peer;
  }
  EXPECT_TRUE(build_fabric(raw, {}) == build_fabric(shuffled, {}));
}

}  // namespace
}  // namespace fabricfit
