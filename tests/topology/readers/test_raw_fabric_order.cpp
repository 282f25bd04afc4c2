// SPDX-License-Identifier: GPL-2.0-or-later
// Canonical node order: whatever order a reader met the nodes in, the same vector.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "generated_fabric.hpp"
#include "reader_test_util.hpp"
#include "topology/generate/clos_generator.hpp"
#include "topology/readers/raw_fabric_dump.hpp"
#include "topology/readers/raw_fabric_order.hpp"

namespace fabricfit::test {
namespace {

// The fabric with its nodes shuffled and peers renumbered to match.
RawFabric shuffled(const RawFabric& in, unsigned seed) {
  std::vector<int> order(in.nodes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::shuffle(order.begin(), order.end(), std::mt19937(seed));
  std::vector<int> where(order.size());
  for (std::size_t pos = 0; pos < order.size(); ++pos)
    where[static_cast<std::size_t>(order[pos])] = static_cast<int>(pos);
  RawFabric out = in;
  for (std::size_t pos = 0; pos < order.size(); ++pos) {
    out.nodes[pos] = in.nodes[static_cast<std::size_t>(order[pos])];
    for (auto& p : out.nodes[pos].ports) p.peer = where[static_cast<std::size_t>(p.peer)];
    std::reverse(out.nodes[pos].ports.begin(), out.nodes[pos].ports.end());
  }
  return out;
}

TEST(RawFabricOrder, AnyInputOrderGivesTheSameNodes) {
  const RawFabric original =
      parse(generate_ibnetdiscover(testing::clos_spec({.leaves = 3, .hosts_per_leaf = 4, .rails = 2})));
  for (unsigned seed : {1u, 2u, 3u}) {
    RawFabric f = shuffled(original, seed);
    ASSERT_NE(f.nodes, original.nodes);
    put_in_canonical_order(f);
    EXPECT_EQ(f.nodes, original.nodes);
    expect_symmetric(f);
  }
}

TEST(RawFabricOrder, SwitchesThenCasThenRoutersEachByGuid) {
  const RawFabric f = parse(generate_ibnetdiscover(ClosSpec{}));
  for (std::size_t i = 1; i < f.nodes.size(); ++i) {
    const auto& a = f.nodes[i - 1];
    const auto& b = f.nodes[i];
    if (a.type == b.type) {
      EXPECT_LT(a.guid, b.guid);
    } else {
      EXPECT_EQ(a.type, NodeType::Switch);
      EXPECT_EQ(b.type, NodeType::Ca);
    }
    for (std::size_t p = 1; p < b.ports.size(); ++p) EXPECT_LT(b.ports[p - 1].number, b.ports[p].number);
  }
  EXPECT_EQ(count_links(f), 64u);  // 32 host cables and 32 uplinks (ClosSpec defaults)
}

TEST(RawFabricDump, OneLinePerNodeAndPort) {
  const RawFabric f = parse(generate_ibnetdiscover(ClosSpec{}), "x.net");
  const std::string dump = dump_raw_fabric(f);
  std::size_t nodes = 0, ports = 0;
  for (std::size_t at = dump.find("NODE "); at != std::string::npos; at = dump.find("NODE ", at + 1)) ++nodes;
  for (std::size_t at = dump.find("  PORT "); at != std::string::npos; at = dump.find("  PORT ", at + 1))
    ++ports;
  EXPECT_EQ(nodes, f.nodes.size());
  EXPECT_EQ(ports, count_links(f) * 2);
  EXPECT_EQ(dump.rfind("# origin ibnetdiscover text x.net\n", 0), 0u);
  EXPECT_EQ(dump.find("PARTIAL"), std::string::npos);
  EXPECT_NE(dump.find("NODE Ca 0x0002c90310000000 nports=1 sysimg=0x2c90320000000 desc=\"gpu001 mlx5_0\"\n"
                      "  PORT 0x0002c90310000000[1] -> 0x0002c90301000000[1] rate=4xHDR lid="),
            std::string::npos)
      << dump;
  // The dump does not depend on the order the nodes are in.
  EXPECT_EQ(dump_raw_fabric(shuffled(f, 7)), dump);
}

}  // namespace
}  // namespace fabricfit::test
