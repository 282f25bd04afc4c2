// SPDX-License-Identifier: GPL-2.0-or-later
// LocalityIndex's view of NVLink domains (issue 30): host -> domain, domain -> hosts, names.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "fabric_fixture.hpp"
#include "placement/locality_index.hpp"

namespace fabricfit {
namespace {

std::vector<int> span_vector(std::span<const int> s) {
  return {s.begin(), s.end()};
}

TEST(LocalityDomains, HostsToDomainsAndBack) {
  // 2 leaf groups of 4 hosts (gpu001..gpu008): two domains on the first leaf, one host of
  // the second in a third domain, the others in none.
  Fabric f = testing::make_fabric({.leaf_groups = 2, .hosts_per_leaf = 4});
  ASSERT_EQ(f.hosts.size(), 8u);
  set_nvlink_domains(f, {{"nvl0", {1, 0}}, {"nvl1", {2, 3}}, {"nvl2", {6}}});
  const LocalityIndex index(f);
  ASSERT_EQ(index.domain_count(), 3);
  EXPECT_EQ(index.domain_name(0), "nvl0");
  EXPECT_EQ(index.domain_name(2), "nvl2");
  EXPECT_EQ(span_vector(index.hosts_of_domain(0)), (std::vector<int>{0, 1}));
  EXPECT_EQ(span_vector(index.hosts_of_domain(1)), (std::vector<int>{2, 3}));
  EXPECT_EQ(span_vector(index.hosts_of_domain(2)), (std::vector<int>{6}));
  const std::vector<std::optional<int>> expected = {0, 0, 1, 1, std::nullopt, std::nullopt, 2, std::nullopt};
  for (int h = 0; h < index.host_count(); ++h)
    EXPECT_EQ(index.domain_of(h), expected[h]) << index.host_name(h);
  // Domains sit beside leaf groups, which they do not change.
  EXPECT_EQ(index.leaf_group_count(), 2);
  EXPECT_EQ(index.leaf_group_of(6), 1);
}

TEST(LocalityDomains, AFabricWithoutDomainsHasNone) {
  const Fabric f = testing::make_fabric({.leaf_groups = 2, .hosts_per_leaf = 4});
  const LocalityIndex index(f);
  EXPECT_EQ(index.domain_count(), 0);
  for (int h = 0; h < index.host_count(); ++h) EXPECT_FALSE(index.domain_of(h).has_value());
}

TEST(LocalityDomains, ABadListIsNotTrustedBlindly) {
  // Set past set_nvlink_domains (as a hand-built Fabric could be): a host twice or out of
  // range is left out rather than corrupting the spans.
  Fabric f = testing::make_fabric({.leaf_groups = 1, .hosts_per_leaf = 4});
  f.nvlink_domains = {{"a", {0, 1, 9}}, {"b", {1, 2}}};
  const LocalityIndex index(f);
  EXPECT_EQ(span_vector(index.hosts_of_domain(0)), (std::vector<int>{0, 1}));
  EXPECT_EQ(span_vector(index.hosts_of_domain(1)), (std::vector<int>{2}));
  EXPECT_EQ(index.domain_of(1), 0);
}

TEST(LocalityDomains, MarkWholeDomainsWidensToEveryHostOfADomainHeld) {
  Fabric f = testing::make_fabric({.leaf_groups = 2, .hosts_per_leaf = 4});
  set_nvlink_domains(f, {{"nvl0", {1, 0}}, {"nvl1", {2, 3}}, {"nvl2", {6, 7}}});
  const LocalityIndex index(f);
  // Host 1 (nvl0) and host 4 (in no domain): nvl0 becomes whole, host 4 stays alone.
  std::vector<unsigned char> hosts = {0, 1, 0, 0, 1, 0, 0, 0};
  EXPECT_EQ(mark_whole_domains(index, hosts), 1);
  EXPECT_EQ(hosts, (std::vector<unsigned char>{1, 1, 0, 0, 1, 0, 0, 0}));
  // Both hosts of nvl2 already marked: nothing to add.
  hosts = {0, 0, 0, 0, 0, 0, 1, 1};
  EXPECT_EQ(mark_whole_domains(index, hosts), 0);
  std::vector<unsigned char> none(8, 0);
  EXPECT_EQ(mark_whole_domains(index, none), 0);
  EXPECT_EQ(none, std::vector<unsigned char>(8, 0));
  std::vector<unsigned char> short_list(7, 1);
  EXPECT_THROW(mark_whole_domains(index, short_list), std::invalid_argument);
}

TEST(LocalityDomains, DomainSegmentsCutEachDomainsHostsNAtATime) {
  Fabric f = testing::make_fabric({.leaf_groups = 2, .hosts_per_leaf = 4});
  set_nvlink_domains(f, {{"nvl0", {0, 1, 2, 3}}, {"nvl1", {4, 5, 6, 7}}});
  const LocalityIndex index(f);
  // Domains in the order they first appear, each domain's hosts in the order given.
  const std::vector<int> hosts = {5, 0, 4, 1, 2, 3};
  EXPECT_EQ(domain_segments(index, hosts, 2), (std::vector<std::vector<int>>{{5, 4}, {0, 1}, {2, 3}}));
  EXPECT_EQ(domain_segments(index, hosts, 1).size(), 6u);
  // nvl1 holds 2 hosts, which 4 does not divide; 3 divides neither.
  EXPECT_TRUE(domain_segments(index, hosts, 4).empty());
  EXPECT_TRUE(domain_segments(index, hosts, 3).empty());
  EXPECT_TRUE(domain_segments(index, hosts, 0).empty());
  // A host in no domain has no segment.
  set_nvlink_domains(f, {{"nvl0", {0, 1}}});
  const LocalityIndex partial(f);
  EXPECT_TRUE(domain_segments(partial, std::vector<int>{0, 1, 2, 3}, 2).empty());
  EXPECT_EQ(domain_segments(partial, std::vector<int>{1, 0}, 2), (std::vector<std::vector<int>>{{1, 0}}));
}

}  // namespace
}  // namespace fabricfit
