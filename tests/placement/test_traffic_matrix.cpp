// SPDX-License-Identifier: GPL-2.0-or-later
// Traffic of each pattern, computed by hand (docs/placement.md, "Traffic").
#include <gtest/gtest.h>

#include <vector>

#include "placement/traffic_matrix.hpp"

using fabricfit::CommPattern;
using fabricfit::Flow;
using fabricfit::parse_comm_pattern;
using fabricfit::PatternError;
using fabricfit::TrafficMatrix;

namespace {

TrafficMatrix build(const char* pattern, std::vector<int> gpus) {
  return TrafficMatrix::build(parse_comm_pattern(pattern), gpus);
}

TEST(TrafficMatrix, RingCrossesOncePerNodeWithTwoRMinusOneOverR) {
  // 4 nodes x 8 GPUs: R = 32 ranks; each node boundary carries 2 x 31 / 32 = 1.9375.
  const auto m = build("ring", {8, 8, 8, 8});
  const std::vector<Flow> want = {{0, 1, 1.9375}, {1, 2, 1.9375}, {2, 3, 1.9375}, {3, 0, 1.9375}};
  EXPECT_EQ(std::vector<Flow>(m.flows().begin(), m.flows().end()), want);
  EXPECT_DOUBLE_EQ(m.inter_node_bytes(), 7.75);
  EXPECT_DOUBLE_EQ(m.bytes(3, 0), 1.9375);
  EXPECT_DOUBLE_EQ(m.bytes(0, 3), 0.0);
}

TEST(TrafficMatrix, RingOfTwoSingleGpuNodes) {
  const auto m = build("ring", {1, 1});  // R = 2: 2 x 1 / 2 = 1 each way
  EXPECT_DOUBLE_EQ(m.bytes(0, 1), 1.0);
  EXPECT_DOUBLE_EQ(m.bytes(1, 0), 1.0);
  EXPECT_DOUBLE_EQ(m.inter_node_bytes(), 2.0);
}

TEST(TrafficMatrix, OneNodeHasNoFabricTraffic) {
  for (const char* p : {"ring", "tree", "alltoall", "none", "tp=8"}) {
    const auto m = build(p, {8});
    EXPECT_TRUE(m.flows().empty()) << p;
    EXPECT_DOUBLE_EQ(m.inter_node_bytes(), 0.0) << p;
  }
}

TEST(TrafficMatrix, DoubleBinaryTreeOverFourNodes) {
  // Tree A (parent of r: (r ^ b) | 2b, or r ^ b past the end; b = lowest bit of r):
  // 1-2, 3-2, 2-0. Tree B mirrors it (r -> 3 - r): 2-1, 0-1, 1-3. Each edge carries 1/2
  // up and 1/2 down per tree, so 1-2 (in both trees) carries 1 each way.
  const auto m = build("tree", {8, 8, 8, 8});
  EXPECT_DOUBLE_EQ(m.bytes(1, 2), 1.0);
  EXPECT_DOUBLE_EQ(m.bytes(2, 1), 1.0);
  EXPECT_DOUBLE_EQ(m.bytes(0, 2), 0.5);
  EXPECT_DOUBLE_EQ(m.bytes(2, 0), 0.5);
  EXPECT_DOUBLE_EQ(m.bytes(3, 2), 0.5);
  EXPECT_DOUBLE_EQ(m.bytes(1, 3), 0.5);
  EXPECT_DOUBLE_EQ(m.bytes(0, 1), 0.5);
  EXPECT_DOUBLE_EQ(m.bytes(0, 3), 0.0);
  EXPECT_DOUBLE_EQ(m.inter_node_bytes(), 6.0);  // 2 trees x 3 edges x (1/2 + 1/2)
}

TEST(TrafficMatrix, DoubleBinaryTreeOddShiftsTheSecondTree) {
  // n = 3: tree A: 1 -> 2 -> 0 (parent of 2 is 4 >= 3, so 0). Tree B shifts by one: 2 -> 0 -> 1.
  const auto m = build("tree", {1, 1, 1});
  EXPECT_DOUBLE_EQ(m.bytes(1, 2), 0.5);
  EXPECT_DOUBLE_EQ(m.bytes(2, 0), 1.0);  // in both trees
  EXPECT_DOUBLE_EQ(m.bytes(0, 1), 0.5);
  EXPECT_DOUBLE_EQ(m.inter_node_bytes(), 4.0);
}

TEST(TrafficMatrix, AllToAllIsUniformOverRanks) {
  // 3 nodes x 2 GPUs: R = 6; node i sends 2 x 2 / 6 to node j; off-node total (36 - 12) / 6.
  const auto m = build("alltoall", {2, 2, 2});
  EXPECT_TRUE(m.all_to_all());
  EXPECT_DOUBLE_EQ(m.bytes(0, 2), 4.0 / 6.0);
  EXPECT_DOUBLE_EQ(m.inter_node_bytes(), 4.0);
}

TEST(TrafficMatrix, NoneHasNoTraffic) {
  const auto m = build("none", {8, 8});
  EXPECT_TRUE(m.flows().empty());
  EXPECT_DOUBLE_EQ(m.inter_node_bytes(), 0.0);
}

TEST(TrafficMatrix, MegatronLayoutKeepsTensorParallelInsideNodes) {
  // tp=2,pp=2,dp=2 on 4 nodes x 2 GPUs: rank = t + 2(d + 2p), node = d + 2p. Tensor groups
  // are the two GPUs of a node. Data-parallel pairs (t, p) join nodes 2p and 2p+1: a ring of
  // 2 sends 1 each way, twice (t = 0, 1). Pipeline pairs (t, d) join nodes d and d+2: 1 each
  // way, twice.
  const auto m = build("tp=2,pp=2,dp=2", {2, 2, 2, 2});
  EXPECT_DOUBLE_EQ(m.bytes(0, 1), 2.0);
  EXPECT_DOUBLE_EQ(m.bytes(3, 2), 2.0);
  EXPECT_DOUBLE_EQ(m.bytes(0, 2), 2.0);
  EXPECT_DOUBLE_EQ(m.bytes(3, 1), 2.0);
  EXPECT_DOUBLE_EQ(m.bytes(0, 3), 0.0);
  EXPECT_DOUBLE_EQ(m.inter_node_bytes(), 16.0);
}

TEST(TrafficMatrix, MegatronTensorGroupAcrossNodes) {
  // tp=4 on 2 nodes x 2 GPUs: one ring of 4 ranks, 2 x 3/4 = 1.5 per hop; hops 1->2 and 3->0 cross.
  const auto m = build("tp=4", {2, 2});
  EXPECT_DOUBLE_EQ(m.bytes(0, 1), 1.5);
  EXPECT_DOUBLE_EQ(m.bytes(1, 0), 1.5);
}

TEST(TrafficMatrix, MegatronMustMatchTheGpuCount) {
  EXPECT_THROW(build("tp=8,dp=4", {8, 8}), PatternError);
}

}  // namespace
