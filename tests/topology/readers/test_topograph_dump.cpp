// SPDX-License-Identifier: GPL-2.0-or-later
// A real production dump (tests/fixtures/topograph-example.ibnetdiscover, see README
// there): NDR, QM9701 switches, two cables per leaf-spine pair, SHARP aggregation nodes on
// switch port 65, HCAs that still carry the firmware's default description.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <sstream>
#include <string>

#include "reader_test_util.hpp"
#include "topology/readers/raw_fabric_order.hpp"

namespace fabricfit::test {
namespace {

const std::string kAggregation = "Mellanox Technologies Aggregation Node";
const std::string kDefaultDescription = "MT4129 ConnectX7   Mellanox Technologies";

class TopographDump : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    text_ = new std::string(slurp(fixture("topograph-example.ibnetdiscover")));
    fabric_ = new RawFabric(read_ibnetdiscover_text(*text_, "topograph-example.ibnetdiscover"));
  }
  static void TearDownTestSuite() {
    delete fabric_;
    delete text_;
  }
  static std::string* text_;
  static RawFabric* fabric_;
};
std::string* TopographDump::text_ = nullptr;
RawFabric* TopographDump::fabric_ = nullptr;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST_F(TopographDump, EveryNodeAndCable) {
  const NaiveCounts want = naive_counts(*text_);
  EXPECT_EQ(want.cas, 582);
  EXPECT_EQ(want.switches, 40);
  EXPECT_EQ(count_nodes(*fabric_, NodeType::Ca), 582u);
  EXPECT_EQ(count_nodes(*fabric_, NodeType::Switch), 40u);
  EXPECT_EQ(count_links(*fabric_) * 2, static_cast<std::size_t>(want.port_lines));
  EXPECT_FALSE(fabric_->partial);
  expect_symmetric(*fabric_);
}

TEST_F(TopographDump, AllLinksRunNdr) {
  std::size_t ports = 0;
  for (const auto& n : fabric_->nodes) {
    for (const auto& p : n.ports) {
      EXPECT_EQ(p.rate, (LinkRate{4, "NDR"})) << n.description << "[" << p.number << "]";
      EXPECT_DOUBLE_EQ(p.rate.gbps(), 400.0);
      ++ports;
    }
  }
  EXPECT_GT(ports, 2000u);
}

// Leaf-spine cables per pair, counted from the text by plain string search and from the
// parsed fabric: the same, and mostly two (the design), with the real dump's exceptions.
TEST_F(TopographDump, ParallelCablesBetweenLeavesAndSpines) {
  std::map<std::pair<std::string, std::string>, int> from_text;
  std::istringstream in(*text_);
  std::string line, current;
  bool in_leaf = false;
  while (std::getline(in, line)) {
    if (line.empty()) in_leaf = false;  // a blank line ends the record
    if (line.rfind("Switch", 0) == 0) {
      const auto open = line.find('"');
      current = line.substr(open + 1, line.find('"', open + 1) - open - 1);
      in_leaf = contains(line, "IBLEAF");
    } else if (line.rfind('[', 0) == 0 && in_leaf && contains(line, "IBSPINE")) {
      const auto open = line.find('"');
      ++from_text[{current, line.substr(open + 1, line.find('"', open + 1) - open - 1)}];
    }
  }
  std::map<std::pair<std::string, std::string>, int> from_fabric;
  std::size_t leaves = 0, spines = 0;
  for (const auto& n : fabric_->nodes) {
    if (n.type != NodeType::Switch) continue;
    leaves += contains(n.description, "IBLEAF") ? 1 : 0;
    spines += contains(n.description, "IBSPINE") ? 1 : 0;
    if (!contains(n.description, "IBLEAF")) continue;
    for (const auto& p : n.ports) {
      const RawNode& peer = fabric_->nodes[static_cast<std::size_t>(p.peer)];
      if (!contains(peer.description, "IBSPINE")) continue;
      char leaf_id[32], spine_id[32];
      std::snprintf(leaf_id, sizeof leaf_id, "S-%016llx", static_cast<unsigned long long>(n.guid));
      std::snprintf(spine_id, sizeof spine_id, "S-%016llx", static_cast<unsigned long long>(peer.guid));
      ++from_fabric[{leaf_id, spine_id}];
    }
  }
  EXPECT_EQ(leaves + spines, 40u);
  EXPECT_EQ(from_fabric, from_text);
  std::size_t two = 0;
  for (const auto& [pair, cables] : from_fabric) {
    two += cables == 2 ? 1 : 0;
    EXPECT_TRUE(cables == 1 || cables == 2)
        << pair.first << " - " << pair.second << ": " << cables;  // a few are missing one
  }
  EXPECT_GT(two * 10, from_fabric.size() * 9)
      << two << " of " << from_fabric.size() << " pairs have two cables";
}

TEST_F(TopographDump, AggregationNodesSitOnSwitchPort65) {
  std::size_t aggregation = 0;
  std::map<int, int> per_switch;
  for (const auto& n : fabric_->nodes) {
    if (n.description != kAggregation) continue;
    ++aggregation;
    EXPECT_EQ(n.type, NodeType::Ca);
    ASSERT_EQ(n.ports.size(), 1u);
    const RawNode& sw = fabric_->nodes[static_cast<std::size_t>(n.ports[0].peer)];
    EXPECT_EQ(sw.type, NodeType::Switch);
    EXPECT_EQ(n.ports[0].peer_port, 65);
    EXPECT_EQ(sw.nports, 65);
    ++per_switch[n.ports[0].peer];
  }
  EXPECT_EQ(aggregation, 40u);
  EXPECT_EQ(per_switch.size(), 40u);  // one in every switch
}

TEST_F(TopographDump, DefaultDescriptionsAndManagementHostsAreKeptAsWritten) {
  std::size_t defaults = 0;
  for (const auto& n : fabric_->nodes) defaults += n.description == kDefaultDescription ? 1 : 0;
  EXPECT_EQ(defaults, 69u);
  for (const char* host :
       {"B11-P1-CUFM-02 mlx5_0", "B11-P1-CUFM-02 mlx5_1", "ubuntu mlx5_0", "ubuntu mlx5_1"}) {
    const RawNode* n = find_node(*fabric_, host);
    ASSERT_NE(n, nullptr) << host;
    EXPECT_EQ(n->type, NodeType::Ca);
    EXPECT_EQ(fabric_->nodes[static_cast<std::size_t>(n->ports[0].peer)].type, NodeType::Switch);
  }
  const RawNode* hca = find_node(*fabric_, "b05-p1-dgx-05-c08 HCA-6");
  ASSERT_NE(hca, nullptr);
  EXPECT_EQ(hca->guid, 0xe09d730300156ff6u);
  EXPECT_EQ(hca->system_guid, 0xe09d730300156ff6u);
  EXPECT_EQ(hca->ports[0].guid, 0xe09d730300156ff6u);
  EXPECT_EQ(hca->ports[0].lid, 246);
  EXPECT_EQ(fabric_->nodes[static_cast<std::size_t>(hca->ports[0].peer)].description,
            "MF0;B09-P1-IBLEAF-04-05:MQM9701/U1");
}

}  // namespace
}  // namespace fabricfit::test
