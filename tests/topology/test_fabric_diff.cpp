// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include "raw_fixtures.hpp"
#include "topology/fabric_builder.hpp"
#include "topology/fabric_diff.hpp"

namespace fabricfit {
namespace {

using testing::make_clos;

TEST(FabricDiff, SameSubnetNoDifferences) {
  const RawFabric raw = make_clos(ClosSpec{});
  EXPECT_TRUE(diff_fabrics(build_fabric(raw, {}), build_fabric(raw, {})).empty());
}

TEST(FabricDiff, SpineUplinkGoneIsLostCapacity) {
  const RawFabric raw = make_clos(ClosSpec{});
  RawFabric cut = raw;
  testing::unlink(cut, "ib-leaf-003", 9);
  const FabricDiff d = diff_fabrics(build_fabric(raw, {}), build_fabric(cut, {}));
  ASSERT_EQ(d.links_gone.size(), 1u);
  EXPECT_EQ(d.links_gone[0].a.node, "ib-leaf-003");
  EXPECT_EQ(d.links_gone[0].a.port, 9);
  EXPECT_EQ(d.links_gone[0].b.node, "ib-spine-01");
  EXPECT_TRUE(d.links_added.empty());
  EXPECT_TRUE(d.hosts_missing.empty());
  ASSERT_EQ(d.groups_changed.size(), 1u);
  EXPECT_EQ(d.groups_changed[0].group, "ib-leaf-003");
  EXPECT_DOUBLE_EQ(d.groups_changed[0].up_before, 1600.0);
  EXPECT_DOUBLE_EQ(d.groups_changed[0].up_after, 1400.0);
  EXPECT_EQ(d.groups_changed[0].uplinks_after, 7);
}

TEST(FabricDiff, HostGoneIsMissing) {
  const RawFabric raw = make_clos(ClosSpec{});
  RawFabric cut = raw;
  testing::unlink(cut, "gpu007 mlx5_0", 1);
  // Discovery would not see the unlinked HCA at all.
  cut.nodes[testing::find_node(cut, "gpu007 mlx5_0")].description = "gone";
  const FabricDiff d = diff_fabrics(build_fabric(raw, {}), build_fabric(cut, {}));
  EXPECT_EQ(d.hosts_missing, std::vector<std::string>{"gpu007"});
  ASSERT_EQ(d.links_gone.size(), 1u);
  EXPECT_EQ(d.links_gone[0].a.node, "gpu007 mlx5_0");
  ASSERT_EQ(d.groups_changed.size(), 1u);
  EXPECT_EQ(d.groups_changed[0].hosts_after, 7);
}

TEST(FabricDiff, SpeedChangeAndHostMove) {
  const RawFabric raw = make_clos(ClosSpec{});
  RawFabric changed = raw;
  testing::set_rate(changed, "ib-leaf-001", 10, LinkRate{4, "EDR"});
  testing::unlink(changed, "gpu002 mlx5_0", 1);
  testing::link(changed, "gpu002 mlx5_0", 1, "ib-leaf-004", 30);
  const FabricDiff d = diff_fabrics(build_fabric(raw, {}), build_fabric(changed, {}));
  ASSERT_EQ(d.rate_changes.size(), 1u);
  EXPECT_EQ(d.rate_changes[0].a.node, "ib-leaf-001");
  EXPECT_EQ(d.rate_changes[0].before, (LinkRate{4, "HDR"}));
  EXPECT_EQ(d.rate_changes[0].after, (LinkRate{4, "EDR"}));
  ASSERT_EQ(d.hosts_moved.size(), 1u);
  EXPECT_EQ(d.hosts_moved[0].host, "gpu002");
  EXPECT_EQ(d.hosts_moved[0].leaf_before, "ib-leaf-001");
  EXPECT_EQ(d.hosts_moved[0].leaf_after, "ib-leaf-004");
  EXPECT_EQ(d.links_gone.size(), 1u);
  EXPECT_EQ(d.links_added.size(), 1u);
}

TEST(FabricDiff, RenameIsNotAReplacement) {
  const RawFabric raw = make_clos(ClosSpec{});
  RawFabric renamed = raw;
  renamed.nodes[testing::find_node(renamed, "ib-spine-02")].description = "spine-b";
  const FabricDiff d = diff_fabrics(build_fabric(raw, {}), build_fabric(renamed, {}));
  ASSERT_EQ(d.renamed.size(), 1u);
  EXPECT_EQ(d.renamed[0].after, "spine-b");
  EXPECT_TRUE(d.links_gone.empty());
  EXPECT_TRUE(d.switches_gone.empty());
}

TEST(FabricDiff, NvlinkDomainsByNameAndHostName) {
  const RawFabric raw = make_clos(ClosSpec{});
  Fabric before = build_fabric(raw, {}), after = build_fabric(raw, {});
  const auto host = [&](const char* name) { return *before.host_index(name); };
  set_nvlink_domains(before, {{"rackA", {host("gpu001"), host("gpu002")}},
                              {"rackB", {host("gpu003"), host("gpu004")}},
                              {"rackC", {host("gpu005")}}});
  // The same definitions, listed in another order: no difference.
  set_nvlink_domains(after, {{"rackC", {host("gpu005")}},
                             {"rackB", {host("gpu004"), host("gpu003")}},
                             {"rackA", {host("gpu002"), host("gpu001")}}});
  EXPECT_TRUE(diff_fabrics(before, after).empty());
  // gpu004 leaves rackB for rackA, rackC is gone, rackD is new.
  set_nvlink_domains(after, {{"rackA", {host("gpu001"), host("gpu002"), host("gpu004")}},
                             {"rackB", {host("gpu003"), host("gpu006")}},
                             {"rackD", {host("gpu005")}}});
  const FabricDiff d = diff_fabrics(before, after);
  EXPECT_FALSE(d.empty());
  ASSERT_EQ(d.domains_changed.size(), 2u);
  EXPECT_EQ(d.domains_changed[0].domain, "rackA");
  EXPECT_TRUE(d.domains_changed[0].hosts_gone.empty());
  EXPECT_EQ(d.domains_changed[0].hosts_added, std::vector<std::string>{"gpu004"});
  EXPECT_EQ(d.domains_changed[1].domain, "rackB");
  EXPECT_EQ(d.domains_changed[1].hosts_gone, std::vector<std::string>{"gpu004"});
  EXPECT_EQ(d.domains_changed[1].hosts_added, std::vector<std::string>{"gpu006"});
  EXPECT_EQ(d.domains_gone, std::vector<std::string>{"rackC"});
  EXPECT_EQ(d.domains_added, std::vector<std::string>{"rackD"});
  // Nothing else differs: domains are the site's definitions, not cables.
  EXPECT_TRUE(d.links_gone.empty());
  EXPECT_TRUE(d.groups_changed.empty());
}

}  // namespace
}  // namespace fabricfit
