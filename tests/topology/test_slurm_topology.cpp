// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include "common/hostlist.hpp"
#include "generated_fabric.hpp"
#include "raw_fixtures.hpp"
#include "topology/fabric_builder.hpp"
#include "topology/slurm_topology.hpp"

namespace fabricfit {
namespace {

using testing::clos_spec;
using testing::make_clos;

TEST(SlurmTopology, TwoTierHasOneRoot) {
  const std::string conf =
      slurm_topology_conf(build_fabric(make_clos(clos_spec({.leaves = 2, .hosts_per_leaf = 4})), {}));
  EXPECT_NE(conf.find("SwitchName=ib-leaf-001 Nodes=gpu[001-004]\n"), std::string::npos) << conf;
  EXPECT_NE(conf.find("SwitchName=ib-leaf-002 Nodes=gpu[005-008]\n"), std::string::npos) << conf;
  EXPECT_NE(conf.find("SwitchName=fabric-root Switches=ib-leaf-001,ib-leaf-002\n"), std::string::npos)
      << conf;
}

TEST(SlurmTopology, ThreeTierRailsHavePodsUnderTheRoot) {
  const std::string conf = slurm_topology_conf(build_fabric(
      make_clos(clos_spec({.pods = 2, .leaves = 2, .hosts_per_leaf = 2, .uplinks = 2, .rails = 2})), {}));
  EXPECT_NE(conf.find("SwitchName=ib-leaf-001 Nodes=gpu[001-002]\n"), std::string::npos) << conf;
  EXPECT_NE(conf.find("SwitchName=pod-01 Switches=ib-leaf-001,ib-leaf-002\n"), std::string::npos) << conf;
  EXPECT_NE(conf.find("SwitchName=fabric-root Switches=pod-01,pod-02\n"), std::string::npos) << conf;
}

TEST(SlurmTopology, SwitchNamesAreMadeSafe) {
  EXPECT_EQ(slurm_switch_name("A09-P1-IBLEAF-01-01 +3 rails"), "A09-P1-IBLEAF-01-01-3-rails");
  EXPECT_EQ(slurm_switch_name("MF0;x:y/z"), "MF0-x-y-z");
  EXPECT_EQ(slurm_switch_name("+++"), "switch");
}

}  // namespace
}  // namespace fabricfit
