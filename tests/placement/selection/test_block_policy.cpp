// SPDX-License-Identifier: GPL-2.0-or-later
// The block baseline: Slurm topology/block's node selection (block_policy.hpp), including
// the quirks a faithful model keeps: ties to the later block, aligned blocks only, the
// lower-level limit, and what differs between releases.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "fabric_fixture.hpp"
#include "placement/selection/block_policy.hpp"

using namespace fabricfit;
using fabricfit::testing::FixtureSpec;
using fabricfit::testing::make_fabric;
using fabricfit::testing::World;

namespace {

// `domains` NVLink domains of `size` hosts (4 GPUs each) in host order, then `outside`
// hosts in no domain; leaf groups of 8 hosts.
World blocks(int domains, int size = 4, int outside = 0, int last_size = 0) {
  const int sized = (domains - 1) * size + (last_size > 0 ? last_size : size);
  const int hosts = sized + outside;
  Fabric f = make_fabric(FixtureSpec{.leaf_groups = (hosts + 7) / 8, .hosts_per_leaf = 8});
  std::vector<NvlinkDomain> list;
  for (int d = 0; d < domains; ++d) {
    const int n = d == domains - 1 && last_size > 0 ? last_size : size;
    NvlinkDomain dom{"blk" + std::to_string(d), {}};
    for (int i = 0; i < n; ++i) dom.hosts.push_back(d * size + i);
    list.push_back(std::move(dom));
  }
  set_nvlink_domains(f, list);
  return World(std::move(f), WorkloadMix::standard(), 4);
}

JobRequest nodes_of(int n, int segment = 0) {
  return JobRequest{
      .min_nodes = n, .gpus_per_node = 4, .segment_nodes = segment, .pattern = parse_comm_pattern("ring")};
}

// Leaves `free` hosts free in each domain (by index; its first hosts stay free).
void leave_free(World& w, const std::map<int, int>& free) {
  for (const auto& [d, n] : free) {
    const auto hosts = w.index.hosts_of_domain(d);
    for (std::size_t i = 0; i < hosts.size(); ++i) w.gpus.free[hosts[i]] = static_cast<int>(i) < n ? 4 : 0;
  }
}

std::optional<Allocation> place(const World& w, const JobRequest& r,
                                SlurmRelease release = SlurmRelease::v26_05, std::vector<int> sizes = {}) {
  BlockPolicy policy(release, std::move(sizes));
  return policy.place(w.ctx(), r);
}

// Nodes taken per domain.
std::map<int, int> per_domain(const World& w, const Allocation& a) {
  std::map<int, int> m;
  for (int h : a.hosts) ++m[w.index.domain_of(h).value_or(-1)];
  return m;
}

TEST(BlockPolicy, TheTightestBaseBlockThatHoldsTheJob) {
  World w = blocks(8);
  leave_free(w, {{0, 4}, {1, 3}, {2, 2}, {3, 4}, {4, 1}, {5, 0}, {6, 0}, {7, 0}});
  auto a = place(w, nodes_of(2));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts, (std::vector<int>{8, 9}));  // blk2, its 2 free hosts
  a = place(w, nodes_of(3));
  ASSERT_TRUE(a);
  EXPECT_EQ(per_domain(w, *a), (std::map<int, int>{{1, 3}}));
  EXPECT_EQ(a->gpus, (std::vector<int>{4, 4, 4}));
}

TEST(BlockPolicy, TiesGoToTheLaterBlock) {
  World w = blocks(8);
  // An empty fabric: a one-node job lands on the last block's first host.
  auto a = place(w, nodes_of(1));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts, (std::vector<int>{28}));
  leave_free(w, {{0, 4}, {1, 2}, {2, 4}, {3, 4}, {4, 4}, {5, 2}, {6, 4}, {7, 4}});
  a = place(w, nodes_of(2));
  ASSERT_TRUE(a);
  EXPECT_EQ(per_domain(w, *a), (std::map<int, int>{{5, 2}}));
}

TEST(BlockPolicy, ALevelBlockIsAnAlignedRunOfBaseBlocks) {
  World w = blocks(8);
  // 6 nodes need 2 base blocks (level 1): pairs {0,1} {2,3} {4,5} {6,7}. blk1 + blk2 hold 8
  // free hosts but are not a pair; {4,5} is the only pair that holds 6.
  leave_free(w, {{0, 0}, {1, 4}, {2, 4}, {3, 0}, {4, 3}, {5, 3}, {6, 0}, {7, 0}});
  auto a = place(w, nodes_of(6));
  ASSERT_TRUE(a);
  EXPECT_EQ(per_domain(w, *a), (std::map<int, int>{{4, 3}, {5, 3}}));
  w.gpus.free[16] = 0;  // {4,5} now holds 5: the job waits though 8 hosts in blk1, blk2 are free
  EXPECT_FALSE(place(w, nodes_of(6)));
}

TEST(BlockPolicy, InsideTheBlockFullestBaseBlocksFirstThenTheTightestThatFinishes) {
  World w = blocks(8);
  // 9 nodes: 3 base blocks, level 2 (blocks 0-3 and 4-7); block 0 has 13 free, block 1 none.
  leave_free(w, {{0, 4}, {1, 4}, {2, 2}, {3, 3}, {4, 0}, {5, 0}, {6, 0}, {7, 0}});
  const auto a = place(w, nodes_of(9));
  ASSERT_TRUE(a);
  // blk1 (4, the later of the fullest), blk0 (4), then 1 more: blk2 is the tightest that
  // holds it; its first host.
  EXPECT_EQ(per_domain(w, *a), (std::map<int, int>{{0, 4}, {1, 4}, {2, 1}}));
  EXPECT_EQ(a->hosts.back(), 8);
  EXPECT_TRUE(std::is_sorted(a->hosts.begin(), a->hosts.end()));  // ranks in node order
}

TEST(BlockPolicy, BlockSizesDecideTheLevels) {
  World w = blocks(8);
  leave_free(w, {{0, 4}, {1, 0}, {2, 0}, {3, 2}, {4, 0}, {5, 0}, {6, 0}, {7, 0}});
  // Default levels: 6 nodes need a pair, and neither {0,1} nor {2,3} holds 6.
  EXPECT_FALSE(place(w, nodes_of(6)));
  // BlockSizes=4,16: no level 1, the job takes a level-2 block (blk0-blk3) and 2 base blocks
  // of it at most.
  const auto a = place(w, nodes_of(6), SlurmRelease::v26_05, {4, 16});
  ASSERT_TRUE(a);
  EXPECT_EQ(per_domain(w, *a), (std::map<int, int>{{0, 4}, {3, 2}}));
  // Three base blocks of 2 hold 6, but the job may take only 2 of them.
  leave_free(w, {{0, 2}, {1, 2}, {2, 2}, {3, 0}});
  EXPECT_FALSE(place(w, nodes_of(6), SlurmRelease::v26_05, {4, 16}));
}

TEST(BlockPolicy, TheLowerLevelLimitPrefersTheLargerThenTheLaterBaseBlock) {
  World w = blocks(8);
  leave_free(w, {{0, 3}, {1, 4}, {2, 3}, {3, 0}, {4, 0}, {5, 0}, {6, 0}, {7, 0}});
  // BlockSizes=4,16: blk1 (the fullest), then of blk0 and blk2, equal, the later.
  auto a = place(w, nodes_of(6), SlurmRelease::v26_05, {4, 16});
  ASSERT_TRUE(a);
  EXPECT_EQ(per_domain(w, *a), (std::map<int, int>{{1, 4}, {2, 2}}));
  // Default levels: the pair {0,1}: blk1, then blk0.
  a = place(w, nodes_of(6));
  ASSERT_TRUE(a);
  EXPECT_EQ(per_domain(w, *a), (std::map<int, int>{{0, 2}, {1, 4}}));
}

TEST(BlockPolicy, SegmentsArePlacedOneAfterAnotherEachInOneBaseBlock) {
  World w = blocks(8);
  leave_free(w, {{0, 3}, {1, 2}, {2, 1}, {3, 4}, {4, 0}, {5, 0}, {6, 0}, {7, 0}});
  // Segments of 2: blk1 (tightest), then blk0 (3), then blk3: blk0 has 1 left.
  const auto a = place(w, nodes_of(6, 2));
  ASSERT_TRUE(a);
  EXPECT_EQ(per_domain(w, *a), (std::map<int, int>{{0, 2}, {1, 2}, {3, 2}}));
  // Segments of 3 find only blk0 and blk3.
  EXPECT_FALSE(place(w, nodes_of(9, 3)));
  EXPECT_TRUE(place(w, nodes_of(6, 3)));
}

TEST(BlockPolicy, ASegmentLargerThanABaseBlockTakesALevelBlock) {
  World w = blocks(8);
  leave_free(w, {{0, 4}, {1, 4}, {2, 4}, {3, 3}, {4, 4}, {5, 4}, {6, 2}, {7, 2}});
  // 26.05 (and 25.11): each 8-node segment in one pair; {2,3} has 7, {6,7} 4.
  auto a = place(w, nodes_of(16, 8));
  ASSERT_TRUE(a);
  EXPECT_EQ(per_domain(w, *a), (std::map<int, int>{{0, 4}, {1, 4}, {4, 4}, {5, 4}}));
  a = place(w, nodes_of(16, 8), SlurmRelease::v25_11);
  ASSERT_TRUE(a);
  EXPECT_EQ(per_domain(w, *a), (std::map<int, int>{{0, 4}, {1, 4}, {4, 4}, {5, 4}}));
  // 24.11 refuses a segment larger than the base block.
  EXPECT_THROW((void)place(w, nodes_of(16, 8), SlurmRelease::v24_11), RequestError);
}

TEST(BlockPolicy, ASegmentLargerThanTheJobIsIgnoredFrom2605) {
  World w = blocks(8);
  EXPECT_THROW((void)place(w, nodes_of(2, 3), SlurmRelease::v24_11), RequestError);
  EXPECT_THROW((void)place(w, nodes_of(2, 3), SlurmRelease::v25_11), RequestError);
  const auto a = place(w, nodes_of(2, 3));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts, (std::vector<int>{28, 29}));
  // A segment that does not divide the job is refused by every release.
  EXPECT_THROW((void)place(w, nodes_of(8, 3)), RequestError);
  EXPECT_THROW((void)place(w, nodes_of(8, 3), SlurmRelease::v24_11), RequestError);
}

TEST(BlockPolicy, ANodeRangeIsPlacedAtItsMinimum) {
  World w = blocks(8);
  JobRequest r = nodes_of(2);
  r.max_nodes = 4;
  const auto a = place(w, r);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts, (std::vector<int>{28, 29}));
}

TEST(BlockPolicy, HostsInNoBlockAreNeverUsed) {
  World w = blocks(2, 4, 8);  // hosts 8-15 in no domain
  leave_free(w, {{0, 0}, {1, 1}});
  EXPECT_FALSE(place(w, nodes_of(2)));  // 9 hosts free, 8 of them outside blocks
  const auto a = place(w, nodes_of(1));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts, (std::vector<int>{4}));
}

TEST(BlockPolicy, AJobWiderThanTheTopLevelTakesTheWholeFabricAsOneBlock) {
  // The default levels reach 16 base blocks (bit_nset's end bit is inclusive): 9 base
  // blocks (36 nodes) on 12 is a level-4 job, placed.
  World w12 = blocks(12);
  auto a = place(w12, nodes_of(36));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts.size(), 36u);
  // 32 base blocks: 17 of them (68 nodes) are beyond level 4, so the whole fabric is the
  // block, with at most 2 level-4 runs of 16.
  World w32 = blocks(32);
  a = place(w32, nodes_of(68));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts.size(), 68u);
  // 24 base blocks: Slurm counts 24 / 16 = 1 level-4 run in the block, which holds 64: the
  // job never starts, even on an empty fabric.
  World w24 = blocks(24);
  EXPECT_FALSE(place(w24, nodes_of(68)));
  EXPECT_TRUE(place(w24, nodes_of(64)));
}

TEST(BlockPolicy, AFabricWithoutBlocksIsRefused) {
  World plain(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 8}, WorkloadMix::standard(), 4);
  EXPECT_THROW((void)place(plain, nodes_of(1)), RequestError);
  // 24.11 refuses a block smaller than the base block; 26.05 uses it.
  World w = blocks(3, 4, 0, 2);
  EXPECT_THROW((void)place(w, nodes_of(1), SlurmRelease::v24_11), RequestError);
  const auto a = place(w, nodes_of(2));
  ASSERT_TRUE(a);
  EXPECT_EQ(per_domain(w, *a), (std::map<int, int>{{2, 2}}));
}

TEST(BlockPolicy, NamesAndBlockSizes) {
  EXPECT_EQ(make_policy("block")->name(), "block");
  EXPECT_EQ(make_policy("block-24.11")->name(), "block-24.11");
  PolicyOptions bad;
  bad.block_sizes = {4, 12};  // 3 base blocks: not a power of two
  EXPECT_THROW((void)make_policy("block", bad), PolicyError);
  bad.block_sizes = {4, 6};  // not a multiple of the base
  EXPECT_THROW((void)make_policy("block-24.11", bad), PolicyError);
  bad.block_sizes = {4, 8, 32};
  EXPECT_NO_THROW((void)make_policy("block", bad));
}

}  // namespace

// What Slurm 24.11.5's and 26.05.3's topology/block did in the lab (lab.sh up --topology block
// --nvl-domain-size 2, 8 nodes of 2 GPUs, gpu[007-008] busy): `sbatch -N 4 --segment=2`
// got gpu[003-006]. Each segment is the tightest base block, ties to the later: nvl2, then
// nvl1, two domains under two leaf groups where nvl0 + nvl1 share one.
TEST(BlockPolicy, SegmentsAsTopologyBlockPlacedThemInTheLab) {
  World w = blocks(4, 2);
  for (int h : {6, 7}) w.gpus.free[h] = 0;
  for (const auto release : {SlurmRelease::v24_11, SlurmRelease::v26_05}) {
    const auto a = place(w, nodes_of(4, 2), release);
    ASSERT_TRUE(a);
    auto hosts = a->hosts;
    std::sort(hosts.begin(), hosts.end());
    EXPECT_EQ(hosts, (std::vector<int>{2, 3, 4, 5}));
  }
}
