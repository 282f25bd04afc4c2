// SPDX-License-Identifier: GPL-2.0-or-later
// The real production dump (tests/fixtures/topograph-example.ibnetdiscover): what the
// model makes of it. Its quirks are listed in tests/fixtures/README.md.
#include <gtest/gtest.h>

#include <algorithm>

#include "topology/fabric_builder.hpp"
#include "topology/fabric_warnings.hpp"
#include "topology/readers/ibnetdiscover_reader.hpp"

namespace fabricfit {
namespace {

const Fabric& dump() {
  static const Fabric f = build_fabric(
      read_ibnetdiscover_file(FF_SOURCE_DIR "/tests/fixtures/topograph-example.ibnetdiscover"), {});
  return f;
}

bool mentions(const Fabric& f, WarningKind kind, const std::string& text) {
  const std::string tag = std::string(warning_tag(kind)) + ": ";
  return std::any_of(f.warnings.begin(), f.warnings.end(), [&](const std::string& w) {
    return w.starts_with(tag) && w.find(text) != std::string::npos;
  });
}

TEST(TopographDump, TiersRailsAndLeafGroups) {
  const Fabric& f = dump();
  EXPECT_EQ(f.tiers, 2);
  EXPECT_EQ(f.switch_count(SwitchTier::Leaf), 31u);
  EXPECT_EQ(f.switch_count(SwitchTier::Spine), 9u);
  EXPECT_EQ(f.rails, 4);  // HCA-1/2/5/6 and mlx5_0/1/4/5: four rails of an eight-rail design
  // 122 named machines, less the ones calling themselves "localhost" and "ubuntu" (issue 8:
  // a default name is never a compute host; before, "ubuntu" was one).
  EXPECT_EQ(f.hosts.size(), 120u);
  EXPECT_FALSE(f.host_index("localhost"));
  EXPECT_FALSE(f.host_index("ubuntu"));
  ASSERT_EQ(f.leaf_groups.size(), 8u);                      // the eight scalable units
  EXPECT_EQ(f.leaf_groups[0].name, "A09-P1-IBLEAF-01-01");  // its rail-2 leaf is missing
  EXPECT_EQ(f.leaf_groups[0].leaves[2], FabricGraph::null_vertex());
  EXPECT_EQ(f.leaf_groups[3].name, "A09-P1-IBLEAF-01-04");
  EXPECT_EQ(f.leaf_groups[3].hosts.size(), 17u);  // the mlx5_* unit
  EXPECT_TRUE(f.degraded_links.empty());          // every cable runs 4xNDR
  for (const LeafGroup& g : f.leaf_groups) {
    EXPECT_NEAR(g.oversubscription(), 1.0, 0.1) << g.name;  // 18 ports down, 18 up per leaf
    EXPECT_DOUBLE_EQ(g.min_uplink_gbps, 400.0);
  }
  // Two cables per leaf-spine pair are two links: 18 uplinks on a fully cabled leaf.
  EXPECT_DOUBLE_EQ(f.leaf_groups[4].expected_up_gbps, 4 * 18 * 400.0);
}

TEST(TopographDump, QuirksAreReportedNotGuessed) {
  const Fabric& f = dump();
  EXPECT_TRUE(mentions(f, WarningKind::UnnamedHca, "69 HCA(s) have the firmware default description"));
  EXPECT_EQ(f.sharp_nodes, 40);
  EXPECT_TRUE(mentions(f, WarningKind::SharpNodes, "40 SHARP aggregation node(s)"));
  EXPECT_TRUE(mentions(f, WarningKind::DefaultHostName, "A09-P1-IBLEAF-01-01 port 10"));
  // One DGX has its rail-2 and rail-3 cables swapped.
  EXPECT_TRUE(
      mentions(f, WarningKind::RailMismatch,
               "b08-p1-dgx-08-c01 HCA-5 (rail 2 by name) is cabled to B09-P1-IBLEAF-04-08, a rail-3 leaf"));
  // The UFM server sits on rail-2/3 leaves with mlx5_0/1; "ubuntu" beside it is a default name.
  EXPECT_TRUE(mentions(f, WarningKind::RailMismatch, "B11-P1-CUFM-02 mlx5_0"));
  EXPECT_TRUE(mentions(f, WarningKind::DefaultHostName, "5 HCA(s)"));
  EXPECT_TRUE(mentions(f, WarningKind::MissingRail, "A09-P1-IBLEAF-01-01 (10 hosts) has no leaf on rail 2"));
  EXPECT_TRUE(mentions(f, WarningKind::UnevenUplinks,
                       "A09-P1-IBLEAF-01-02 has 14 uplink(s) where most leaves have 18"));
  EXPECT_EQ(count_warnings(f, WarningKind::Island), 0);
  EXPECT_EQ(count_warnings(f, WarningKind::SwitchLoop), 0);
}

// The UFM server is a host by its name; --exclude-host takes it out of the compute hosts,
// and nothing else changes: same tiers, leaf groups and switches.
TEST(TopographDump, ExcludeHostTakesOutTheUfmServer) {
  ModelOptions o;
  o.exclude_host_pattern = "CUFM";
  const Fabric f = build_fabric(
      read_ibnetdiscover_file(FF_SOURCE_DIR "/tests/fixtures/topograph-example.ibnetdiscover"), o);
  EXPECT_EQ(f.hosts.size(), 119u);
  EXPECT_FALSE(f.host_index("B11-P1-CUFM-02"));
  EXPECT_EQ(f.tiers, 2);
  EXPECT_EQ(f.switch_count(SwitchTier::Leaf), 31u);
  EXPECT_EQ(f.switch_count(SwitchTier::Spine), 9u);
  EXPECT_EQ(f.leaf_groups.size(), 8u);
  EXPECT_TRUE(
      mentions(f, WarningKind::ExcludedHost, "1 host(s) are not compute hosts (--exclude-host 'CUFM')"));
  EXPECT_FALSE(mentions(f, WarningKind::RailMismatch, "CUFM"));
}

TEST(TopographDump, NodeNameMapNamesTheUnnamed) {
  RawFabric raw = read_ibnetdiscover_file(FF_SOURCE_DIR "/tests/fixtures/topograph-example.ibnetdiscover");
  ModelOptions o;
  for (const RawNode& n : raw.nodes) {
    if (n.description.starts_with("MT4129")) o.node_names[n.guid] = "spare-host mlx5_0";
  }
  const Fabric f = build_fabric(raw, o);
  EXPECT_EQ(count_warnings(f, WarningKind::UnnamedHca), 0);
  EXPECT_TRUE(f.host_index("spare-host"));
}

}  // namespace
}  // namespace fabricfit
