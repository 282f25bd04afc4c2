// SPDX-License-Identifier: GPL-2.0-or-later
// The shapes real topology files come in: ibnetdiscover's -g/-f/-s output, ibsim net
// files with bare headers and hints, odd descriptions, every link rate.
#include <gtest/gtest.h>

#include <string>

#include "reader_test_util.hpp"
#include "topology/readers/raw_fabric_order.hpp"
#include "topology/readers/raw_link_rate.hpp"

namespace fabricfit::test {
namespace {

// One switch and one HCA, as ibnetdiscover writes them.
const char* const kPlain =
    "#\n# Topology file: generated on Mon Jan  1 00:00:00 2024\n#\n"
    "# Initiated from node 0002c90300000010 port 0002c90300000011\n"
    "\n"
    "vendid=0x2c9\n"
    "devid=0xcf08\n"
    "sysimgguid=0x2c90300000001\n"
    "switchguid=0x2c90300000001(2c90300000001)\n"
    "Switch\t36 \"S-0002c90300000001\"\t\t# \"leaf-1\" enhanced port 0 lid 7 lmc 0\n"
    "[3]\t\"H-0002c90300000010\"[1](2c90300000011) \t\t# \"gpu001 mlx5_0\" lid 12 4xHDR\n"
    "\n"
    "vendid=0x2c9\n"
    "devid=0x101b\n"
    "sysimgguid=0x2c90300000020\n"
    "caguid=0x2c90300000010\n"
    "Ca\t2 \"H-0002c90300000010\"\t\t# \"gpu001 mlx5_0\"\n"
    "[1](2c90300000011) \t\"S-0002c90300000001\"[3]\t\t# lid 12 lmc 0 \"leaf-1\" lid 7 4xHDR\n";

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

TEST(IbnetdiscoverVariants, PlainOutputGivesEveryField) {
  const RawFabric f = parse(kPlain, "plain.net");
  ASSERT_EQ(f.nodes.size(), 2u);
  const RawNode& sw = f.nodes[0];  // canonical order: switches first
  const RawNode& ca = f.nodes[1];
  EXPECT_EQ(sw.type, NodeType::Switch);
  EXPECT_EQ(sw.guid, 0x0002c90300000001u);
  EXPECT_EQ(sw.system_guid, 0x2c90300000001u);
  EXPECT_EQ(sw.description, "leaf-1");
  EXPECT_EQ(sw.nports, 36);
  ASSERT_EQ(sw.ports.size(), 1u);
  EXPECT_EQ(sw.ports[0].number, 3);
  EXPECT_EQ(sw.ports[0].lid, 7);
  EXPECT_EQ(sw.ports[0].guid, 0x2c90300000001u);  // a switch's ports share its port GUID
  EXPECT_EQ(sw.ports[0].peer, 1);
  EXPECT_EQ(sw.ports[0].peer_port, 1);
  EXPECT_EQ(sw.ports[0].rate, (LinkRate{4, "HDR"}));

  EXPECT_EQ(ca.type, NodeType::Ca);
  EXPECT_EQ(ca.guid, 0x2c90300000010u);
  EXPECT_EQ(ca.system_guid, 0x2c90300000020u);
  EXPECT_EQ(ca.description, "gpu001 mlx5_0");
  EXPECT_EQ(ca.nports, 2);
  ASSERT_EQ(ca.ports.size(), 1u);
  EXPECT_EQ(ca.ports[0].guid, 0x2c90300000011u);
  EXPECT_EQ(ca.ports[0].lid, 12);
  EXPECT_EQ(ca.ports[0].peer, 0);
  EXPECT_EQ(ca.ports[0].peer_port, 3);
  EXPECT_EQ(f.origin, "ibnetdiscover text plain.net");
}

// ibnetdiscover -g: chassis lines and "[ext N]" external port numbers around the same
// records; -f: " s=N w=N v=N" after the rate; -s: progress lines first; CRLF; no final newline.
TEST(IbnetdiscoverVariants, DecorationsDoNotChangeTheFabric) {
  const RawFabric plain = parse(kPlain);
  std::string grouped = kPlain;
  grouped = replace_all(
      grouped, "# Initiated from node 0002c90300000010 port 0002c90300000011\n",
      "# Initiated from node 0002c90300000010 port 0002c90300000011\n\nChassis 1 (guid 0x2c90300000001)\n"
      "\n# Spine Nodes\n# Line Nodes\n# Chassis Switches\nHostname: gpu001\n");
  grouped = replace_all(grouped, "sysimgguid=0x2c90300000001\n",
                        "sysimgguid=0x2c90300000001\t\t# Chassis 1 (leaf)\n");
  grouped = replace_all(grouped, "switchguid=0x2c90300000001(2c90300000001)\n",
                        "switchguid=0x2c90300000001(2c90300000001)\t# ISR9024D Voltaire Line 3 \n");
  grouped =
      replace_all(grouped, "[3]\t\"H-0002c90300000010\"[1](", "[3][ext 12]\t\"H-0002c90300000010\"[1](");
  grouped = replace_all(grouped, "\"S-0002c90300000001\"[3]\t", "\"S-0002c90300000001\"[3][ext 12]\t");
  grouped = replace_all(grouped, "# \"gpu001 mlx5_0\"\n[1]", "# \"gpu001 mlx5_0\" (scp)\n[1]");
  grouped = replace_all(grouped, "\nvendid=0x2c9\ndevid=0x101b",
                        "\nNon-Chassis Nodes\n\nvendid=0x2c9\ndevid=0x101b");
  EXPECT_EQ(parse(grouped).nodes, plain.nodes) << grouped;

  const std::string full = replace_all(kPlain, " 4xHDR\n", " 4xHDR s=4 w=2 v=4\n");
  EXPECT_EQ(parse(full).nodes, plain.nodes);

  const std::string progress =
      "DR path slid 0; dlid 0; 0 -> new Channel Adapter {0002c90300000010} portnum 1 lid 0-0 \"\"\n"
      "DR path slid 0; dlid 0; 0,1 -> new Switch {0002c90300000001} portnum 0 lid 0-0 \"\"\n" +
      std::string(kPlain);
  EXPECT_EQ(parse(progress).nodes, plain.nodes);

  EXPECT_EQ(parse(replace_all(kPlain, "\n", "\r\n")).nodes, plain.nodes);
  std::string unterminated = kPlain;
  unterminated.pop_back();
  EXPECT_EQ(parse(unterminated).nodes, plain.nodes);
  // Blanks: spaces for tabs, comment lines inside a record, trailing blanks.
  std::string spaced = replace_all(kPlain, "\t", "  ");
  spaced = replace_all(spaced, "\n[3]  ", "\n# a comment inside the record\n[3]  ");
  EXPECT_EQ(parse(spaced).nodes, plain.nodes);
}

TEST(IbnetdiscoverVariants, IbsimCapturesOfOneSubnetAllReadTheSame) {
  const RawFabric declared = read_ibnetdiscover_file(fixture("ibsim-captures/two-tier.net"));
  for (const char* variant : {"two-tier.ibnetdiscover", "two-tier-g.ibnetdiscover",
                              "two-tier-f.ibnetdiscover", "two-tier-s.ibnetdiscover"}) {
    SCOPED_TRACE(variant);
    const RawFabric seen = read_ibnetdiscover_file(fixture(std::string("ibsim-captures/") + variant));
    EXPECT_EQ(seen.nodes, declared.nodes);
    EXPECT_FALSE(seen.partial);
  }
  EXPECT_EQ(count_links(declared), 8u);
}

TEST(IbnetdiscoverVariants, DescriptionsMayHoldQuotesOrBeEmpty) {
  std::string text = replace_all(kPlain, "# \"leaf-1\" enhanced", "# \"leaf \"A\" #1\" enhanced");
  text = replace_all(text, "# \"gpu001 mlx5_0\"\n", "# \"\"\n");
  const RawFabric f = parse(text);
  EXPECT_EQ(f.nodes[0].description, "leaf \"A\" #1");
  EXPECT_EQ(f.nodes[0].ports[0].lid, 7);
  EXPECT_EQ(f.nodes[1].description, "");
}

// ibsim net files: "Hca" headers, no GUIDs, no descriptions, no rates, "w=" hints,
// unquoted descriptions.
TEST(IbnetdiscoverVariants, IbsimNetFileConventions) {
  const RawFabric f = parse(
      "Switch\t8 \"Switch1\"\t# core switch enhanced port 0 lid 3 lmc 0\n"
      "[1]\t\"Hca1\"[1]\tw=12\n"
      "[2]\t\"Hca1\"[2]\n"
      "\n"
      "Hca \t2 \"Hca1\"\n"
      "[1]\t\"Switch1\"[1]\n"
      "[2]\t\"Switch1\"[2]\t# lid 9 lmc 0 \"core switch\" lid 3 4xEDR\n");
  ASSERT_EQ(f.nodes.size(), 2u);
  const RawNode& sw = f.nodes[0];
  const RawNode& hca = f.nodes[1];
  EXPECT_EQ(sw.description, "core switch");
  EXPECT_EQ(sw.guid, 0u);
  EXPECT_EQ(sw.ports[0].lid, 3);
  EXPECT_EQ(hca.description, "Hca1");  // ibsim describes a node by its id when nothing else is given
  EXPECT_EQ(hca.type, NodeType::Ca);
  EXPECT_EQ(hca.guid, 0u);
  EXPECT_TRUE(is_unknown(sw.ports[0].rate));
  EXPECT_TRUE(is_unknown(hca.ports[0].rate));
  // A rate written on one end holds for the cable: the other end takes it.
  EXPECT_EQ(hca.ports[1].rate, (LinkRate{4, "EDR"}));
  EXPECT_EQ(sw.ports[1].rate, (LinkRate{4, "EDR"}));
  EXPECT_EQ(hca.ports[1].lid, 9);
  EXPECT_EQ(count_links(f), 2u);
}

TEST(IbnetdiscoverVariants, EveryRateIbnetdiscoverPrints) {
  for (const char* rate :
       {"1xSDR", "4xDDR", "4xQDR", "4xFDR10", "4xFDR", "8xEDR", "12xEDR", "2xHDR", "4xHDR", "4xNDR"}) {
    SCOPED_TRACE(rate);
    const RawFabric f = parse(replace_all(kPlain, "4xHDR", rate));
    EXPECT_EQ(f.nodes[0].ports[0].rate, *parse_link_rate(rate));
    EXPECT_EQ(f.nodes[1].ports[0].rate, *parse_link_rate(rate));
  }
}

TEST(IbnetdiscoverVariants, GuidsComeFromIdsWhenNoGuidLineGivesThem) {
  const RawFabric f = parse(
      "Switch\t8 \"S-00000000000000ab\"\t# \"sw\" enhanced port 0 lid 1 lmc 0\n"
      "[1]\t\"H-00000000000000cd\"[1](ce) \t# \"h\" lid 2 4xHDR\n"
      "\n"
      "Ca\t1 \"H-00000000000000cd\"\t# \"h\"\n"
      "[1](ce) \t\"S-00000000000000ab\"[1]\t# lid 2 lmc 0 \"sw\" lid 1 4xHDR\n");
  EXPECT_EQ(f.nodes[0].guid, 0xabu);
  EXPECT_EQ(f.nodes[1].guid, 0xcdu);
  EXPECT_EQ(f.nodes[1].ports[0].guid, 0xceu);
  EXPECT_EQ(f.nodes[0].ports[0].guid, 0u);  // no switchguid=(...) line: not known
}

// Back-to-back CAs (no switch) and routers: ibnetdiscover prints the peer's port GUID
// as " (guid) " after a CA peer on CA lines.
TEST(IbnetdiscoverVariants, CaToCaAndRouters) {
  const RawFabric f = parse(
      "caguid=0x10\n"
      "Ca\t1 \"H-0000000000000010\"\t\t# \"a mlx5_0\"\n"
      "[1](11) \t\"R-0000000000000020\"[2] (22) \t\t# lid 1 lmc 0 \"router\" lid 2 4xEDR\n"
      "\n"
      "rtguid=0x20\n"
      "Rt\t2 \"R-0000000000000020\"\t\t# \"router\"\n"
      "[2](22) \t\"H-0000000000000010\"[1] (11) \t\t# lid 2 lmc 0 \"a mlx5_0\" lid 1 4xEDR\n");
  ASSERT_EQ(f.nodes.size(), 2u);
  EXPECT_EQ(f.nodes[0].type, NodeType::Ca);
  EXPECT_EQ(f.nodes[1].type, NodeType::Router);
  EXPECT_EQ(f.nodes[1].ports[0].guid, 0x22u);
  EXPECT_EQ(f.nodes[1].ports[0].peer_port, 1);
  EXPECT_EQ(count_nodes(f, NodeType::Router), 1u);
}

}  // namespace
}  // namespace fabricfit::test
