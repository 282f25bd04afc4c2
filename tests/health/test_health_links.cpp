// SPDX-License-Identifier: GPL-2.0-or-later
// A cable's state from its two ends, on a generated fabric's cables.
#include <gtest/gtest.h>

#include <algorithm>

#include "generated_fabric.hpp"
#include "health/health_links.hpp"

using namespace fabricfit;

TEST(HealthLinks, EveryCableOnceWithItsHost) {
  // 2 leaves x 2 hosts, 2 spines, one uplink each: 4 host cables + 4 uplinks.
  const Fabric f = fabricfit::testing::generated_fabric(
      fabricfit::testing::clos_spec({.leaves = 2, .hosts_per_leaf = 2, .spines = 2}));
  const auto cables = cables_of(f);
  ASSERT_EQ(cables.size(), 8u);
  EXPECT_EQ(std::ranges::count_if(cables, [](const Cable& c) { return !c.host.empty(); }), 4);
  for (const auto& c : cables) {
    EXPECT_NE(c.a.guid, 0u);
    EXPECT_GT(c.a.port, 0);
    EXPECT_GT(c.gbps, 0);
  }
}

TEST(HealthLinks, ACableIsTheWorseOfItsEndsWithBothEndsEvidence) {
  const Fabric f = fabricfit::testing::generated_fabric(
      fabricfit::testing::clos_spec({.leaves = 2, .hosts_per_leaf = 2, .spines = 2}));
  const auto cables = cables_of(f);
  const Cable& host_cable = *std::ranges::find_if(cables, [](const Cable& c) { return !c.host.empty(); });
  const Cable& uplink = *std::ranges::find_if(cables, [](const Cable& c) { return c.host.empty(); });
  const auto port = [](PortId id, HealthState s, std::int64_t since) {
    PortHealth p;
    p.id = id;
    p.state = s;
    p.since_unix = since;
    return p;
  };
  PortHealth a = port(host_cable.a, HealthState::Congested, 100);
  a.evidence = {{"PortXmitWait", 0.3, "share", 0.1, 90, ""}};
  PortHealth b = port(host_cable.b, HealthState::Flapping, 200);
  b.evidence = {{"LinkDownedCounter", 2, "in_window", 2, 150, ""}};
  PortHealth c = port(uplink.a, HealthState::SubHealthy, 50);
  std::vector<PortHealth> ports{a, b, c};
  std::ranges::sort(ports, {}, &PortHealth::id);
  const auto links = link_statuses(cables, ports);
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0].state, HealthState::Flapping) << "worst first";
  EXPECT_EQ(links[0].since_unix, 200);
  EXPECT_EQ(links[0].host, host_cable.host);
  ASSERT_EQ(links[0].evidence.size(), 2u);
  EXPECT_EQ(links[0].evidence[0].at, host_cable.a_name + "[" + std::to_string(host_cable.a.port) + "]");
  EXPECT_EQ(links[1].state, HealthState::SubHealthy);
  EXPECT_EQ(links[1].a, uplink.a_name);
}
