// SPDX-License-Identifier: GPL-2.0-or-later
// Fragmentation in NVLink-domain terms (placement/domain_fragmentation.hpp): the domain- and
// half-domain-sized jobs the free hosts still hold.
#include <gtest/gtest.h>

#include "fabric_fixture.hpp"
#include "placement/domain_fragmentation.hpp"

namespace fabricfit {
namespace {

// 2 leaf groups of 8 hosts of 8 GPUs: domains of 4 hosts (0-3, 4-7, 8-11), hosts 12-15 in none.
LocalityIndex three_domains() {
  Fabric f = testing::make_fabric({.leaf_groups = 2, .hosts_per_leaf = 8});
  set_nvlink_domains(f, {{"nvl0", {0, 1, 2, 3}}, {"nvl1", {4, 5, 6, 7}}, {"nvl2", {8, 9, 10, 11}}});
  return LocalityIndex(f);
}

TEST(DomainFragmentation, AnEmptyClusterHoldsEveryDomainAndTwoHalvesOfEach) {
  const LocalityIndex index = three_domains();
  const auto m = measure_domain_fragmentation(index, GpuState::uniform(16, 8));
  ASSERT_EQ(m.domains.size(), 3u);
  EXPECT_EQ(m.domains[1].hosts, 4);
  EXPECT_EQ(m.domains[1].free_gpus, 32);
  EXPECT_EQ(m.domains[1].total_gpus, 32);
  EXPECT_EQ(m.whole_free_domains, 3);
  EXPECT_EQ(m.half_domain_jobs, 6);
  EXPECT_EQ(m.whole_free_hosts, 12);  // hosts 12-15 are in no domain
  EXPECT_EQ(m.whole_free_domain_hosts, 12);
}

TEST(DomainFragmentation, TheSameFreeHostsSpreadOverDomainsHoldLess) {
  const LocalityIndex index = three_domains();
  // Four busy hosts packed into nvl0: nvl1 and nvl2 stay whole.
  GpuState packed = GpuState::uniform(16, 8);
  for (int h : {0, 1, 2, 3}) packed.free[h] = 0;
  // Four busy hosts, one or two per domain: no domain is whole, and nvl1 holds one half, not two.
  GpuState spread = GpuState::uniform(16, 8);
  for (int h : {0, 4, 5, 8}) spread.free[h] = 0;
  const auto p = measure_domain_fragmentation(index, packed);
  const auto s = measure_domain_fragmentation(index, spread);
  EXPECT_EQ(p.whole_free_hosts, s.whole_free_hosts);
  EXPECT_EQ(p.whole_free_domains, 2);
  EXPECT_EQ(p.whole_free_domain_hosts, 8);  // of 12 wholly free hosts
  EXPECT_EQ(s.whole_free_domain_hosts, 0);
  EXPECT_EQ(p.half_domain_jobs, 4);
  EXPECT_EQ(s.whole_free_domains, 0);
  EXPECT_EQ(s.half_domain_jobs, 3);  // nvl0: 3 free -> 1, nvl1: 2 free -> 1, nvl2: 3 free -> 1
  EXPECT_EQ(s.domains[1].whole_free_hosts, 2);
  EXPECT_EQ(s.domains[1].free_gpus, 16);
}

TEST(DomainFragmentation, OneBusyGpuTakesTheWholeHostOutAndOddDomainsRoundTheHalfUp) {
  Fabric f = testing::make_fabric({.leaf_groups = 1, .hosts_per_leaf = 8});
  set_nvlink_domains(f, {{"nvl0", {0, 1, 2, 3, 4}}});
  const LocalityIndex index(f);
  GpuState gpus = GpuState::uniform(8, 8);
  EXPECT_EQ(measure_domain_fragmentation(index, gpus).half_domain_jobs, 1);  // 5 hosts: halves of 3
  gpus.free[0] = 7;
  const auto m = measure_domain_fragmentation(index, gpus);
  EXPECT_EQ(m.whole_free_hosts, 4);
  EXPECT_EQ(m.domains[0].free_gpus, 39);
  EXPECT_EQ(m.whole_free_domains, 0);
  EXPECT_EQ(m.half_domain_jobs, 1);
  gpus.free[1] = 0;
  EXPECT_EQ(measure_domain_fragmentation(index, gpus).half_domain_jobs, 1);  // 3 whole left: still one half
  gpus.free[2] = 0;
  EXPECT_EQ(measure_domain_fragmentation(index, gpus).half_domain_jobs, 0);
}

TEST(DomainFragmentation, NoDomainsNoCounts) {
  const LocalityIndex index(testing::make_fabric({.leaf_groups = 2, .hosts_per_leaf = 4}));
  const auto m = measure_domain_fragmentation(index, GpuState::uniform(8, 8));
  EXPECT_TRUE(m.domains.empty());
  EXPECT_EQ(m.whole_free_domains, 0);
  EXPECT_EQ(m.half_domain_jobs, 0);
}

}  // namespace
}  // namespace fabricfit
