// SPDX-License-Identifier: GPL-2.0-or-later
// Tiers, leaf groups and pods come from the compute hosts only: storage rails,
// management hosts and cables that skip a tier, as `fabricfit generate` lays them, with
// the expected model written out by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "generated_fabric.hpp"
#include "topology/fabric_warnings.hpp"

namespace fabricfit {
namespace {

using testing::generated_fabric;

// Three tiers, two pods of two leaf groups, two rails, two cores: the fabric of issue 8.
ClosSpec three_tier_two_rails() {
  return testing::clos_spec({.pods = 2, .leaves = 2, .hosts_per_leaf = 4, .rails = 2, .cores = 2});
}

// That fabric with a storage leaf of 4 servers cabled straight to one core, and a storage
// HCA in each host.
ClosSpec storage_leaf_on_a_core() {
  ClosSpec spec = three_tier_two_rails();
  spec.extras.storage_servers = 4;
  spec.extras.storage_hcas = true;
  spec.extras.storage_uplink = "core";
  return spec;
}

std::vector<std::string> switches(const Fabric& f, SwitchTier tier) {
  std::vector<std::string> out;
  for (Vertex v = 0; v < boost::num_vertices(f.graph); ++v) {
    if (f.graph[v].kind == VertexKind::Switch && f.graph[v].tier == tier) out.push_back(f.graph[v].name);
  }
  return out;
}

// pod name -> {leaf group names, spine names}
std::map<std::string, std::pair<std::set<std::string>, std::set<std::string>>> pods(const Fabric& f) {
  std::map<std::string, std::pair<std::set<std::string>, std::set<std::string>>> out;
  for (const Pod& p : f.pods) {
    auto& [groups, spines] = out[p.name];
    for (int g : p.leaf_groups) groups.insert(f.leaf_groups[g].name);
    for (Vertex s : p.spines) spines.insert(f.graph[s].name);
  }
  return out;
}

const decltype(pods(Fabric{})) kTwoPods = {
    {"pod-01", {{"ib-leaf-001", "ib-leaf-002"}, {"ib-p01-spine-01", "ib-p01-spine-02"}}},
    {"pod-02", {{"ib-leaf-003", "ib-leaf-004"}, {"ib-p02-spine-01", "ib-p02-spine-02"}}},
};
const std::vector<std::string> kCores = {"ib-core-01", "ib-core-02"};
const std::vector<std::string> kSpines = {"ib-p01-spine-01", "ib-p01-spine-02", "ib-p02-spine-01",
                                          "ib-p02-spine-02"};

// What three_tier_two_rails() must keep whatever else is cabled in: its tiers, cores,
// spines and pods.
void expect_its_three_tiers(const Fabric& f) {
  EXPECT_EQ(f.tiers, 3);
  EXPECT_EQ(switches(f, SwitchTier::Core), kCores);
  EXPECT_EQ(switches(f, SwitchTier::Spine), kSpines);
  EXPECT_EQ(pods(f), kTwoPods);
}

TEST(ComputeTiers, CleanThreeTierTwoRails) {
  const Fabric f = generated_fabric(three_tier_two_rails());
  expect_its_three_tiers(f);
  EXPECT_TRUE(f.warnings.empty()) << f.warnings.front();
}

// The storage leaf (storage servers, the hosts' storage HCAs) is cabled straight to one
// core: the core stays a core, both pods stay, the storage leaf is a leaf of no group.
TEST(ComputeTiers, StorageLeafOnOneCoreKeepsPodsAndCores) {
  ModelOptions options;
  options.compute_hca_pattern = "mlx5_[01]";
  options.exclude_host_pattern = "^stor";
  const Fabric f = generated_fabric(storage_leaf_on_a_core(), options);
  expect_its_three_tiers(f);
  EXPECT_EQ(f.hosts.size(), 16u);  // gpu001-016; no stor*
  ASSERT_EQ(f.leaf_groups.size(), 4u);
  for (const LeafGroup& g : f.leaf_groups) EXPECT_EQ(g.hosts.size(), 4u) << g.name;
  const std::vector<std::string> leaves = switches(f, SwitchTier::Leaf);
  EXPECT_NE(std::find(leaves.begin(), leaves.end(), "ib-storage-leaf-01"), leaves.end());
  EXPECT_EQ(count_warnings(f, WarningKind::ServiceLeaf), 1);
  EXPECT_EQ(count_warnings(f, WarningKind::ExcludedHost), 1);
  EXPECT_EQ(count_warnings(f, WarningKind::SwitchLoop), 0);
  EXPECT_EQ(count_warnings(f, WarningKind::TooManyTiers), 0);
}

// Without a rule the storage servers look like compute hosts: their leaf is a leaf with
// a group of its own, but the core it is cabled to is still a core and the pods stay.
TEST(ComputeTiers, StorageServersWithoutARuleDoNotMergePods) {
  ModelOptions options;
  options.compute_hca_pattern = "mlx5_[01]";
  const Fabric f = generated_fabric(storage_leaf_on_a_core(), options);
  expect_its_three_tiers(f);
  EXPECT_EQ(f.hosts.size(), 20u);
  EXPECT_EQ(count_warnings(f, WarningKind::CrossTierCable), 1);
}

TEST(ComputeTiers, StorageLeafOnASpineTwoTier) {
  ClosSpec spec;  // 4 leaves x 8, 2 spines
  spec.extras.storage_servers = 3;
  spec.extras.storage_hcas = true;
  spec.extras.storage_uplink = "spine";
  ModelOptions options;
  options.compute_hca_pattern = "mlx5_0";
  options.exclude_host_pattern = "^stor";
  const Fabric f = generated_fabric(spec, options);
  EXPECT_EQ(f.tiers, 2);
  EXPECT_EQ(switches(f, SwitchTier::Spine), (std::vector<std::string>{"ib-spine-01", "ib-spine-02"}));
  EXPECT_EQ(switches(f, SwitchTier::Leaf),
            (std::vector<std::string>{"ib-leaf-001", "ib-leaf-002", "ib-leaf-003", "ib-leaf-004",
                                      "ib-storage-leaf-01"}));
  EXPECT_EQ(f.leaf_groups.size(), 4u);
  EXPECT_TRUE(f.pods.empty());
  EXPECT_EQ(count_warnings(f, WarningKind::ServiceLeaf), 1);
}

TEST(ComputeTiers, ManagementHostsOnASpine) {
  ClosSpec spec = three_tier_two_rails();
  spec.extras.management_hosts = 3;  // ufm01, localhost, firmware default
  spec.extras.management_switch = "spine";
  ModelOptions options;
  options.exclude_host_pattern = "^ufm";
  const Fabric f = generated_fabric(spec, options);
  expect_its_three_tiers(f);
  EXPECT_EQ(f.hosts.size(), 16u);
  EXPECT_EQ(count_warnings(f, WarningKind::DefaultHostName), 1);
  EXPECT_EQ(count_warnings(f, WarningKind::UnnamedHca), 1);
}

TEST(ComputeTiers, ManagementHostsOnACore) {
  ClosSpec spec = three_tier_two_rails();
  spec.extras.management_hosts = 3;
  spec.extras.management_switch = "core";
  ModelOptions options;
  options.exclude_host_pattern = "^ufm";
  const Fabric f = generated_fabric(spec, options);
  EXPECT_EQ(switches(f, SwitchTier::Core), kCores);
  EXPECT_EQ(pods(f), kTwoPods);
}

TEST(ComputeTiers, UfmOnASpineTwoTierWithoutARule) {
  ClosSpec spec;
  spec.extras.management_hosts = 1;  // ufm01 only
  const Fabric f = generated_fabric(spec);
  EXPECT_EQ(f.tiers, 2);
  EXPECT_EQ(switches(f, SwitchTier::Spine), (std::vector<std::string>{"ib-spine-01", "ib-spine-02"}));
  EXPECT_EQ(f.leaf_groups.size(), 4u);
  EXPECT_EQ(count_warnings(f, WarningKind::HostOnSpine), 1);
}

TEST(ComputeTiers, CrossTierCablesKeepTheCoreTier) {
  ClosSpec spec = three_tier_two_rails();
  spec.extras.cross_tier_cables = 2;  // ib-leaf-001-r0 - ib-core-01, ib-leaf-001-r1 - ib-core-02
  const Fabric f = generated_fabric(spec);
  expect_its_three_tiers(f);
  ASSERT_EQ(count_warnings(f, WarningKind::CrossTierCable), 1);
  for (const auto& w : f.warnings) {
    if (w.starts_with("cross-tier-cable")) {
      EXPECT_NE(w.find("2 cable(s)"), std::string::npos) << w;
      EXPECT_NE(w.find("leaf ib-leaf-001-r0["), std::string::npos) << w;
      EXPECT_NE(w.find("core ib-core-01["), std::string::npos) << w;
    }
  }
}

TEST(ComputeTiers, SlurmNodeListMakesExactlyThoseComputeHosts) {
  ClosSpec spec = three_tier_two_rails();
  spec.extras.storage_servers = 2;
  spec.extras.storage_uplink = "core";
  ModelOptions options;
  std::set<std::string> nodes;
  for (int h = 1; h <= 16; ++h) nodes.insert(spec.host_name(h - 1));
  nodes.insert("gpu999");  // Slurm knows it, the fabric does not
  options.compute_hosts = nodes;
  const Fabric f = generated_fabric(spec, options);
  EXPECT_EQ(f.hosts.size(), 16u);
  EXPECT_EQ(pods(f), kTwoPods);
  EXPECT_EQ(switches(f, SwitchTier::Core), kCores);
  EXPECT_EQ(count_warnings(f, WarningKind::ExcludedHost), 1);
  ASSERT_EQ(count_warnings(f, WarningKind::SlurmNodeNotInFabric), 1);
  for (const auto& w : f.warnings) {
    if (w.starts_with("slurm-node-not-in-fabric")) {
      EXPECT_NE(w.find("gpu999"), std::string::npos) << w;
    }
    if (w.starts_with("excluded-host")) {
      EXPECT_NE(w.find("stor[001-002]"), std::string::npos) << w;
    }
  }
}

}  // namespace
}  // namespace fabricfit
