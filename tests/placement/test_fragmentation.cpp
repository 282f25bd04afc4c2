// SPDX-License-Identifier: GPL-2.0-or-later
// The fragmentation metric, computed by hand (docs/placement.md, "Fragmentation").
#include <gtest/gtest.h>

#include <random>

#include "fabric_fixture.hpp"
#include "placement/fragmentation.hpp"

using namespace fabricfit;
using fabricfit::testing::FixtureSpec;
using fabricfit::testing::World;

namespace {

// hist[f] = hosts with f free GPUs, 8-GPU hosts.
std::vector<int> hist_of(std::initializer_list<int> free) {
  std::vector<int> h(9, 0);
  for (int f : free) ++h[f];
  return h;
}

TEST(WorkloadMix, ParsesAndNormalises) {
  const auto mix = WorkloadMix::parse("1:3,2x8:1");
  ASSERT_EQ(mix.classes().size(), 2u);
  EXPECT_EQ(mix.classes()[0], (JobClass{1, 1, 0.75}));
  EXPECT_EQ(mix.classes()[1], (JobClass{2, 8, 0.25}));
  EXPECT_EQ(mix.to_string(), "1:0.75,2x8:0.25");
  EXPECT_EQ(WorkloadMix::parse("4,4").classes().size(), 1u);  // merged
}

TEST(WorkloadMix, RejectsNonsense) {
  for (const char* bad : {"", "0", "2x", "x8", "a", "1:-1", "1:0", "1:x", "2x0"}) {
    EXPECT_THROW(WorkloadMix::parse(bad), MixError) << bad;
  }
}

TEST(WorkloadMix, StandardFollowsTheHostSize) {
  EXPECT_EQ(WorkloadMix::standard(8).to_string(),
            "1:0.1429,2:0.1429,4:0.1429,8:0.1429,2x8:0.1429,4x8:0.1429,8x8:0.1429");
  EXPECT_EQ(WorkloadMix::standard(4).to_string(),
            "1:0.1667,2:0.1667,4:0.1667,2x4:0.1667,4x4:0.1667,8x4:0.1667");
  EXPECT_EQ(WorkloadMix::standard(6).to_string(),
            "1:0.1429,2:0.1429,4:0.1429,6:0.1429,2x6:0.1429,4x6:0.1429,8x6:0.1429");
  EXPECT_EQ(WorkloadMix::standard(1).to_string(), "1:0.25,2x1:0.25,4x1:0.25,8x1:0.25");
}

TEST(FragModel, WholeFreeFourGpuHostsAreNotFragmented) {
  // Four whole free 4-GPU hosts in one group: every job of the 4-GPU mix fits (8 x 4 spans
  // groups as it is wider than the group). The 8-GPU mix would call all 16 GPUs unusable
  // by its 8-GPU and 2/4/8 x 8 classes.
  std::vector<int> hist(5, 0);
  hist[4] = 4;
  EXPECT_DOUBLE_EQ(FragModel(WorkloadMix::standard(4), 4, 4).unusable(hist), 0.0);
  EXPECT_GT(FragModel(WorkloadMix::standard(8), 4, 4).unusable(hist), 8.0);
}

TEST(FragModel, MultiNodeJobsNeedWholeHostsInOneLeafGroup) {
  // Mix: 1 GPU (1/2), 2 x 8 GPUs (1/2). Free [8, 8, 8, 3] = 27 GPUs. 1-GPU jobs use all of
  // them. A 2-node job uses 2 of the 3 whole hosts (16 GPUs): 11 unusable. 0.5 x 11 = 5.5.
  const FragModel m(WorkloadMix::parse("1:1,2x8:1"), 8, 4);
  EXPECT_DOUBLE_EQ(m.unusable(hist_of({8, 8, 8, 3})), 5.5);
}

TEST(FragModel, SingleNodeJobsNeedTheirGpusOnOneHost) {
  // 8-GPU jobs: free [8, 7, 4, 0] -> 7 + 4 unusable. 4-GPU jobs: free [7, 5] -> 3 + 1.
  EXPECT_DOUBLE_EQ(FragModel(WorkloadMix::parse("8"), 8, 4).unusable(hist_of({8, 7, 4, 0})), 11.0);
  EXPECT_DOUBLE_EQ(FragModel(WorkloadMix::parse("4"), 8, 4).unusable(hist_of({7, 5})), 4.0);
}

TEST(FragModel, JobsWiderThanAnyLeafGroupUseEveryWholeHost) {
  // 8 x 8 cannot fit in a leaf group of 4 hosts: it spans groups anyway, so only the
  // partial host's 3 GPUs are lost to it.
  EXPECT_DOUBLE_EQ(FragModel(WorkloadMix::parse("8x8"), 8, 4).unusable(hist_of({8, 8, 8, 3})), 3.0);
}

TEST(FragModel, MoveDeltaMatchesRecomputing) {
  const FragModel m(WorkloadMix::standard(), 8, 8);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<int> hist(9, 0);
    for (int i = 0; i < 8; ++i) ++hist[rng() % 9];
    int from = 0;
    do from = static_cast<int>(rng() % 9);
    while (hist[from] == 0);
    const int to = static_cast<int>(rng() % (from + 1));
    std::vector<int> at_least(10, 0);
    for (int f = 8; f >= 0; --f) at_least[f] = at_least[f + 1] + hist[f];
    auto after = hist;
    --after[from];
    ++after[to];
    EXPECT_NEAR(m.move_delta(at_least, from, to), m.unusable(after) - m.unusable(hist), 1e-9);
  }
}

TEST(Fragmentation, ClusterIsTheSumOverLeafGroups) {
  // Mix: 4 x 8 only. Two leaf groups of 4. Group 1: all free (32, usable). Group 2: one
  // host busy: 24 free, no 4-node job fits: all unusable. Cluster: 24 / 56.
  World w(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4}, WorkloadMix::parse("4x8"));
  w.busy(4, 8);
  const auto r = measure_fragmentation(w.index, w.gpus, w.frag);
  EXPECT_EQ(r.free_gpus, 56);
  EXPECT_EQ(r.total_gpus, 64);
  EXPECT_DOUBLE_EQ(r.leaf_groups[0].frag, 0.0);
  EXPECT_DOUBLE_EQ(r.leaf_groups[1].frag, 1.0);
  EXPECT_EQ(r.leaf_groups[1].whole_free_hosts, 3);
  EXPECT_DOUBLE_EQ(r.frag, 24.0 / 56.0);
}

TEST(Fragmentation, UnusableDeltaByHand) {
  // Mix 4 x 8, two leaf groups of 4 hosts, all free. Taking 8 GPUs of host 4 leaves group 2
  // 24 free GPUs no 4-node job fits: +24 unusable. Group 1 is untouched. Taking another 8
  // from host 5 on top of that state frees nothing: 24 -> 16 unusable, -8. Taking more than a
  // host has floors it at 0 free.
  World w(FixtureSpec{.leaf_groups = 2, .hosts_per_leaf = 4}, WorkloadMix::parse("4x8"));
  const std::vector<int> h4{4}, eight{8}, h5{5}, twenty{20};
  EXPECT_DOUBLE_EQ(unusable_delta(w.index, w.gpus, w.frag, h4, eight), 24.0);
  EXPECT_DOUBLE_EQ(unusable_delta(w.index, w.gpus, w.frag, h4, twenty), 24.0);
  w.busy(4, 8);
  EXPECT_DOUBLE_EQ(unusable_delta(w.index, w.gpus, w.frag, h5, eight), -8.0);
  EXPECT_DOUBLE_EQ(unusable_delta(w.index, w.gpus, w.frag, {}, {}), 0.0);
}

TEST(Fragmentation, UnusableDeltaIsTheClusterDifference) {
  // Random states and allocations (a host may appear twice) on 6 leaf groups of 8 with the
  // standard mix: the delta over the touched groups equals the difference of the measures.
  World w(FixtureSpec{.leaf_groups = 6, .hosts_per_leaf = 8});
  std::mt19937 rng(5);
  for (int round = 0; round < 200; ++round) {
    for (int h = 0; h < w.index.host_count(); ++h) w.busy(h, static_cast<int>(rng() % 9));
    std::vector<int> hosts, gpus;
    const int n = 1 + static_cast<int>(rng() % 6);
    for (int i = 0; i < n; ++i) {
      hosts.push_back(static_cast<int>(rng() % static_cast<unsigned>(w.index.host_count())));
      gpus.push_back(1 + static_cast<int>(rng() % 8));
    }
    GpuState after = w.gpus;
    for (int i = 0; i < n; ++i) after.free[hosts[i]] = std::max(0, after.free[hosts[i]] - gpus[i]);
    const double want = measure_fragmentation(w.index, after, w.frag).unusable -
                        measure_fragmentation(w.index, w.gpus, w.frag).unusable;
    EXPECT_NEAR(unusable_delta(w.index, w.gpus, w.frag, hosts, gpus), want, 1e-9) << "round " << round;
  }
}

TEST(Fragmentation, NothingFreeIsNotFragmented) {
  World w(FixtureSpec{.leaf_groups = 1, .hosts_per_leaf = 2});
  w.busy(0, 8);
  w.busy(1, 8);
  EXPECT_DOUBLE_EQ(measure_fragmentation(w.index, w.gpus, w.frag).frag, 0.0);
}

}  // namespace
