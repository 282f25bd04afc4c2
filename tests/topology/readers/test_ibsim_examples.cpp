// SPDX-License-Identifier: GPL-2.0-or-later
// ibsim's own example nets: files nobody here wrote. Bare "Hca" headers, no GUIDs, no
// descriptions, no rates, tabs and spaces mixed.
#include <gtest/gtest.h>

#include <string>

#include "reader_test_util.hpp"
#include "topology/readers/ibnd_reader.hpp"
#include "topology/readers/raw_fabric_order.hpp"
#include "topology/readers/raw_link_rate.hpp"

namespace fabricfit::test {
namespace {

class IbsimExample : public ::testing::TestWithParam<const char*> {};

TEST_P(IbsimExample, ReadsAsDeclared) {
  const std::string path = fixture(std::string("ibsim-net-examples/") + GetParam());
  const NaiveCounts want = naive_counts(slurp(path));
  const RawFabric f = read_ibnetdiscover_file(path);
  EXPECT_EQ(count_nodes(f, NodeType::Switch), static_cast<std::size_t>(want.switches));
  EXPECT_EQ(count_nodes(f, NodeType::Ca), static_cast<std::size_t>(want.cas));
  EXPECT_EQ(count_links(f) * 2, static_cast<std::size_t>(want.port_lines));
  EXPECT_GT(want.port_lines, 0);
  expect_symmetric(f);
  for (const auto& n : f.nodes) {
    // Nothing in these files gives a GUID or a rate; ibsim names nodes by their ids.
    EXPECT_EQ(n.guid, 0u);
    EXPECT_TRUE(n.description.rfind("Switch", 0) == 0 || n.description.rfind("Hca", 0) == 0) << n.description;
    for (const auto& p : n.ports) EXPECT_TRUE(is_unknown(p.rate));
  }
}

INSTANTIATE_TEST_SUITE_P(Nets, IbsimExample,
                         ::testing::Values("net", "net.1", "net.2sw2path", "net.2sw2path4hca",
                                           "net.2sw2path4hca2port"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (char& c : name) c = c == '.' ? '_' : c;
                           return name;
                         });

// What ibsim made of net.2sw2path4hca2port (ibnetdiscover -f text and --cache, captured by
// tests/fixtures/ibsim-captures/make-fixtures.sh) has the cabling the net file declares.
TEST(IbsimExample, SimulatedSubnetHasTheDeclaredCabling) {
  const RawFabric declared = read_ibnetdiscover_file(fixture("ibsim-net-examples/net.2sw2path4hca2port"));
  const RawFabric text =
      read_ibnetdiscover_file(fixture("ibsim-captures/net.2sw2path4hca2port.ibnetdiscover"));
  const RawFabric cache = load_ibnd_cache(fixture("ibsim-captures/net.2sw2path4hca2port.ibnd"));
  EXPECT_EQ(cabling_by_description(text), cabling_by_description(declared));
  EXPECT_EQ(text.nodes, cache.nodes);
  EXPECT_FALSE(cache.partial) << (cache.unreachable.empty() ? "" : cache.unreachable.front());
  // ibsim gives the GUIDs and rates the file left out.
  for (const auto& n : text.nodes) {
    EXPECT_NE(n.guid, 0u);
    for (const auto& p : n.ports) EXPECT_EQ(p.rate, (LinkRate{4, "SDR"}));
  }
}

}  // namespace
}  // namespace fabricfit::test
