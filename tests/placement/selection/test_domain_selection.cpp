// SPDX-License-Identifier: GPL-2.0-or-later
// The fabricfit selector on a fabric with NVLink domains (issue 30 item 2): a job that fits
// a domain never spans two, --segment=N puts every N nodes inside one domain, a wider job
// takes the fewest domains and, of those, the ones under one leaf group.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "fabric_fixture.hpp"
#include "placement/runtime/runtime_model.hpp"
#include "placement/selection/selector.hpp"

using namespace fabricfit;
using fabricfit::testing::FixtureSpec;
using fabricfit::testing::make_fabric;
using fabricfit::testing::World;

namespace {

// 2 leaf groups of 8 hosts of 4 GPUs; domains of 4 hosts: nvl0 and nvl1 under leaf group 0,
// nvl2 and nvl3 under leaf group 1 (hosts 0-3, 4-7, 8-11, 12-15).
Fabric domain_fabric(bool last_leaf_in_domains = true) {
  Fabric f = make_fabric(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 8});
  std::vector<NvlinkDomain> domains;
  const int count = last_leaf_in_domains ? 4 : 2;
  for (int d = 0; d < count; ++d) {
    domains.push_back({"nvl" + std::to_string(d), {4 * d, 4 * d + 1, 4 * d + 2, 4 * d + 3}});
  }
  set_nvlink_domains(f, domains);
  return f;
}

World world(bool last_leaf_in_domains = true) {
  return World(domain_fabric(last_leaf_in_domains), WorkloadMix::standard(), 4);
}

JobRequest nodes_of(int n, int segment = 0, int gpus = 4) {
  return JobRequest{
      .min_nodes = n, .gpus_per_node = gpus, .segment_nodes = segment, .pattern = parse_comm_pattern("ring")};
}

std::optional<Allocation> place(const World& w, const JobRequest& r) {
  FabricfitSelector sel;
  return sel.place(w.ctx(), r);
}

// Nodes taken per domain (-1: hosts in no domain).
std::map<int, int> per_domain(const World& w, const Allocation& a) {
  std::map<int, int> m;
  for (int h : a.hosts) ++m[w.index.domain_of(h).value_or(-1)];
  return m;
}

std::set<int> leaf_groups(const World& w, const Allocation& a) {
  std::set<int> s;
  for (int h : a.hosts) s.insert(w.index.leaf_group_of(h));
  return s;
}

void occupy(World& w, std::initializer_list<int> hosts) {
  for (int h : hosts) w.busy(h, 4);
}

TEST(DomainSelection, AJobThatFitsADomainWaitsRatherThanSpanTwo) {
  World w = world();
  occupy(w, {0, 1, 4, 8, 9, 10, 11, 12, 13, 14, 15});  // free: nvl0 2, nvl1 3, nvl2 0, nvl3 0
  EXPECT_FALSE(place(w, nodes_of(4)));
  // The same free hosts without domains: the leaf-group selector would place it over
  // nvl0 and nvl1, which is what the domain edge forbids.
  World plain(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 8}, WorkloadMix::standard(), 4);
  occupy(plain, {0, 1, 4, 8, 9, 10, 11, 12, 13, 14, 15});
  EXPECT_TRUE(place(plain, nodes_of(4)));
  // Once nvl1 frees a fourth host, the job fits there.
  w.gpus.free[4] = 4;
  const auto a = place(w, nodes_of(4));
  ASSERT_TRUE(a);
  EXPECT_EQ(per_domain(w, *a), (std::map<int, int>{{1, 4}}));
}

TEST(DomainSelection, TheTightestDomainThatHoldsTheJob) {
  World w = world();
  occupy(w, {0, 13, 14});  // free: nvl0 3, nvl1 4, nvl2 4, nvl3 2
  auto a = place(w, nodes_of(3));
  ASSERT_TRUE(a);
  EXPECT_EQ(per_domain(w, *a), (std::map<int, int>{{0, 3}}));
  a = place(w, nodes_of(2));
  ASSERT_TRUE(a);
  EXPECT_EQ(per_domain(w, *a), (std::map<int, int>{{3, 2}}));
  // A one-GPU job goes to a partly used domain, not a whole one.
  a = place(w, nodes_of(1, 0, 1));
  ASSERT_TRUE(a);
  const int d = *w.index.domain_of(a->hosts[0]);
  EXPECT_TRUE(d == 0 || d == 3) << d;
}

// Block's own objective decides before block's best fit: of the domains that hold the job,
// the one where it costs no half-domain job (2 wholly free hosts of a domain of 4).
TEST(DomainSelection, TheDomainThatKeepsItsHalfDomainJobs) {
  World w = world();
  // nvl0: every host partly used (3 GPUs free each); nvl1: 2 wholly free hosts; nvl2 and
  // nvl3 full. By host count nvl1 is the tightest for a one-GPU job, but it would break a
  // wholly free host there and with it nvl1's one half-domain job.
  for (int h : {0, 1, 2, 3}) w.busy(h, 1);
  occupy(w, {4, 5, 8, 9, 10, 11, 12, 13, 14, 15});
  auto a = place(w, nodes_of(1, 0, 1));
  ASSERT_TRUE(a);
  EXPECT_EQ(per_domain(w, *a), (std::map<int, int>{{0, 1}}));

  // Whole hosts: nvl0 has 2 wholly free (the tightest), nvl1 3. One host from nvl1 leaves
  // it a half-domain job; one from nvl0 leaves nvl0 none.
  World v = world();
  occupy(v, {2, 3, 4, 8, 9, 10, 11, 12, 13, 14, 15});
  a = place(v, nodes_of(1));
  ASSERT_TRUE(a);
  EXPECT_EQ(per_domain(v, *a), (std::map<int, int>{{1, 1}}));
  // Two hosts cost a half-domain job either way: block's best fit, the tightest (nvl0).
  a = place(v, nodes_of(2));
  ASSERT_TRUE(a);
  EXPECT_EQ(per_domain(v, *a), (std::map<int, int>{{0, 2}}));
}

TEST(DomainSelection, SegmentsEachLieInOneDomain) {
  World w = world();
  occupy(w, {0, 1, 4, 5, 8, 12, 13, 14});  // free: nvl0 2, nvl1 2, nvl2 3, nvl3 1
  // 8 nodes free, but in segments of 2 only 1 + 1 + 1 + 0 = 3 segments fit.
  EXPECT_FALSE(place(w, nodes_of(8, 2)));
  w.gpus.free[14] = 4;  // nvl3: 2 free, a fourth segment
  const auto a = place(w, nodes_of(8, 2));
  ASSERT_TRUE(a);
  ASSERT_EQ(a->hosts.size(), 8u);
  for (const auto& [domain, nodes] : per_domain(w, *a)) {
    EXPECT_GE(domain, 0);
    EXPECT_EQ(nodes % 2, 0) << "domain " << domain << " holds " << nodes << " nodes";
  }
  // A domain's hosts are neighbours in rank order: a tensor group stays inside it.
  for (std::size_t i = 0; i + 1 < a->hosts.size(); i += 2) {
    EXPECT_EQ(w.index.domain_of(a->hosts[i]), w.index.domain_of(a->hosts[i + 1])) << i;
  }
}

TEST(DomainSelection, ASegmentThatCannotWorkIsRefused) {
  World w = world();
  EXPECT_THROW((void)place(w, nodes_of(8, 3)), RequestError);  // 3 does not divide 8
  EXPECT_THROW((void)place(w, nodes_of(8, 5)), RequestError);  // a domain has 4 nodes
  EXPECT_TRUE(place(w, nodes_of(8, 4)));
}

TEST(DomainSelection, AWideJobTakesTheFewestDomainsUnderOneLeafGroup) {
  World w = world();
  occupy(w, {0});  // nvl0: 3 free; nvl1, nvl2, nvl3 whole
  const auto a = place(w, nodes_of(8));
  ASSERT_TRUE(a);
  const auto domains = per_domain(w, *a);
  EXPECT_EQ(domains.size(), 2u);
  // nvl1 + nvl2 would also be two domains, over two leaf groups: the spines carry it.
  EXPECT_EQ(leaf_groups(w, *a), (std::set<int>{1}));
}

TEST(DomainSelection, AWideJobFinishesInAPartlyUsedDomain) {
  World w = world();
  occupy(w, {0, 1});  // nvl0: 2 free
  const auto a = place(w, nodes_of(6));
  ASSERT_TRUE(a);
  // nvl1 whole and nvl0's 2: the other leaf group's domains stay whole for 4-node jobs.
  EXPECT_EQ(per_domain(w, *a), (std::map<int, int>{{0, 2}, {1, 4}}));
}

TEST(DomainSelection, TheScoreCountsDomains) {
  World w = world();
  FabricfitSelector sel;
  const auto d = sel.decide(w.ctx(), nodes_of(8));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->chosen.score.nvlink_domains, 2);
  const auto one = sel.decide(w.ctx(), nodes_of(3));
  ASSERT_TRUE(one);
  EXPECT_EQ(one->chosen.score.nvlink_domains, 1);
}

TEST(DomainSelection, HostsInNoDomainTakeJobsButNeverWithDomainHosts) {
  World w = world(false);  // leaf group 1's hosts are in no domain
  occupy(w, {0, 4});       // nvl0 and nvl1: 3 free each
  auto a = place(w, nodes_of(3));
  ASSERT_TRUE(a);
  EXPECT_EQ(per_domain(w, *a).size(), 1u);
  EXPECT_NE(per_domain(w, *a).begin()->first, -1);
  // 4 nodes fit no domain now: they go to the plain hosts, all of them outside domains.
  a = place(w, nodes_of(4));
  ASSERT_TRUE(a);
  EXPECT_EQ(per_domain(w, *a), (std::map<int, int>{{-1, 4}}));
  // --segment asks for domains: the plain hosts do not serve it.
  EXPECT_FALSE(place(w, nodes_of(4, 4)));
}

TEST(DomainSelection, WithoutDomainsASegmentIsMoot) {
  World plain(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 8}, WorkloadMix::standard(), 4);
  const auto a = place(plain, nodes_of(8, 3));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts.size(), 8u);
}

}  // namespace

// -N MIN-MAX takes the most nodes that need no more domains than MIN does (domains of 4).
TEST(DomainSelection, ANodeRangeTakesTheMostNodesInAsFewDomainsAsItsMinimum) {
  World w = world();
  JobRequest range = nodes_of(3);
  range.max_nodes = 6;
  // MIN = 3 fits one domain: 4 nodes (a whole domain), not 6 over two.
  auto a = place(w, range);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts.size(), 4u);
  EXPECT_EQ(per_domain(w, *a).size(), 1u);
  // One host of every domain busy: 3 nodes still fit one; 6 over two would fit too, but
  // would take more domains than MIN needs.
  occupy(w, {0, 4, 8, 12});
  a = place(w, range);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts.size(), 3u);
  EXPECT_EQ(per_domain(w, *a).size(), 1u);
  // Two hosts of every domain busy: MIN fits no domain, so the job waits rather than take
  // 6 nodes over three domains.
  occupy(w, {1, 5, 9, 13});
  EXPECT_FALSE(place(w, range));
  // MIN wider than a domain (5 of 4): the most nodes in as few domains, 8 in two.
  World fresh = world();
  range.min_nodes = 5;
  range.max_nodes = 8;
  a = place(fresh, range);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts.size(), 8u);
  EXPECT_EQ(per_domain(fresh, *a).size(), 2u);
}

// A job no leaf group holds alone: 3 leaf groups of 8 hosts of 4 GPUs, 2 domains of 4 in
// each (nvl0-nvl5), one host busy in nvl1 and in nvl5. A 12-host job needs 3 domains; whole
// groups 0 and 2 hold 7 hosts each, group 1 holds 8. With group 0's uplinks degraded, the
// job takes all of group 1 and a whole domain of group 2: two leaf groups, off the degraded
// uplinks, although the fullest domains fabric-wide (nvl0, nvl2, nvl3) include group 0's.
TEST(DomainSelection, AJobWiderThanALeafGroupFillsFewGroupsOffDegradedUplinks) {
  Fabric f = make_fabric(FixtureSpec{.leaf_groups = 3, .hosts_per_leaf = 8});
  std::vector<NvlinkDomain> domains;
  for (int d = 0; d < 6; ++d)
    domains.push_back({"nvl" + std::to_string(d), {4 * d, 4 * d + 1, 4 * d + 2, 4 * d + 3}});
  set_nvlink_domains(f, domains);
  fabricfit::testing::degrade_uplink(f, 0, 100);
  World w(std::move(f), WorkloadMix::standard(), 4);
  occupy(w, {4, 20});  // nvl1 and nvl5 lose a host
  const auto a = place(w, nodes_of(12));
  ASSERT_TRUE(a);
  EXPECT_EQ(leaf_groups(w, *a), (std::set<int>{1, 2}));
  EXPECT_EQ(per_domain(w, *a), (std::map<int, int>{{2, 4}, {3, 4}, {4, 4}}));
}

// A job inside one domain crosses no uplink: of equally tight domains it takes one under
// the weaker uplinks, leaving the strong ones to jobs whose traffic crosses them. nvl0
// (hosts 0-3) under leaf group 0, nvl2 (8-11) under leaf group 1; nvl1 and nvl3 each lose
// a host, so a 4-node job has nvl0 and nvl2, equally tight. Healthy, the first (nvl0);
// with leaf group 1's uplinks degraded, nvl2.
TEST(DomainSelection, AJobInsideADomainTakesTheOneUnderWeakerUplinks) {
  {
    World w = world();
    occupy(w, {4, 12});
    const auto a = place(w, nodes_of(4));
    ASSERT_TRUE(a);
    EXPECT_EQ(per_domain(w, *a), (std::map<int, int>{{0, 4}}));
  }
  Fabric f = domain_fabric();
  fabricfit::testing::degrade_uplink(f, 1, 100);
  World w(std::move(f), WorkloadMix::standard(), 4);
  occupy(w, {4, 12});
  const auto a = place(w, nodes_of(4));
  ASSERT_TRUE(a);
  EXPECT_EQ(per_domain(w, *a), (std::map<int, int>{{2, 4}}));
  // Tightness still comes first. 3 nodes of 2 GPUs: nvl0 (healthy uplinks) has hosts 0-2
  // free and 3 busy, 3 eligible; nvl2 (weak uplinks) has 2 GPUs busy on host 8, 4 eligible;
  // nvl1 and nvl3 hold two hosts each. Both lose one half-domain job (nvl2 puts one node on
  // host 8), neither is whole: the tighter nvl0, though its uplinks are the strong ones.
  World t(domain_fabric(), WorkloadMix::standard(), 4);
  Fabric weak = domain_fabric();
  fabricfit::testing::degrade_uplink(weak, 1, 100);
  World u(std::move(weak), WorkloadMix::standard(), 4);
  for (World* x : {&t, &u}) {
    occupy(*x, {3, 4, 5, 12, 13});
    x->busy(8, 2);
  }
  const auto b = place(u, nodes_of(3, 0, 2));
  ASSERT_TRUE(b);
  EXPECT_EQ(per_domain(u, *b), (std::map<int, int>{{0, 3}}));
  const auto healthy = place(t, nodes_of(3, 0, 2));
  ASSERT_TRUE(healthy);
  EXPECT_EQ(per_domain(t, *healthy), (std::map<int, int>{{0, 3}})) << "the same on an even fabric";
}

TEST(DomainSelection, AWideJobKeepsOffTheUplinksOfARunningWideJob) {
  Fabric f = make_fabric(FixtureSpec{.leaf_groups = 4, .hosts_per_leaf = 4, .uplinks = 2});
  std::vector<NvlinkDomain> domains;
  for (int d = 0; d < 4; ++d)
    domains.push_back({"nvl" + std::to_string(d), {4 * d, 4 * d + 1, 4 * d + 2, 4 * d + 3}});
  set_nvlink_domains(f, domains);
  World w(std::move(f), WorkloadMix::standard(), 4);
  const CommPattern a2a = parse_comm_pattern("alltoall");
  const Allocation running_job{{0, 1, 4, 5}, {4, 4, 4, 4}};
  w.apply(running_job);
  occupy(w, {12, 13});
  const UplinkBundles bundles(w.index, UplinkRouting::Ecmp, &w.fabric);
  BandwidthSharing sharing(bundles);
  std::vector<int> changed;
  sharing.add(0, bundles.demand(TrafficMatrix::build(a2a, running_job.gpus), running_job.hosts), changed);
  const RunningTraffic running{.bundles = bundles, .sharing = sharing};
  JobRequest job = nodes_of(6);
  job.pattern = a2a;
  const auto share = [&](const Allocation& a) {
    return running.share_if_added(TrafficMatrix::build(a2a, a.gpus), a.hosts);
  };

  FabricfitSelector blind;
  const auto plain = blind.decide(w.ctx(), job);
  ASSERT_TRUE(plain);
  EXPECT_EQ(per_domain(w, plain->chosen.allocation), (std::map<int, int>{{0, 2}, {2, 4}}));

  PlacementContext beside = w.ctx();
  beside.running = &running;
  FabricfitSelector steered;
  const auto d = steered.decide(beside, job);
  ASSERT_TRUE(d);
  EXPECT_EQ(per_domain(w, d->chosen.allocation), (std::map<int, int>{{2, 4}, {3, 2}}));
  ASSERT_TRUE(d->uplink_share);
  EXPECT_DOUBLE_EQ(*d->uplink_share, share(d->chosen.allocation));
  EXPECT_GT(share(d->chosen.allocation), share(plain->chosen.allocation));
}
