// SPDX-License-Identifier: GPL-2.0-or-later
// NVLink domains (issue 30): the model's rules (set_nvlink_domains), Slurm's block
// topology.conf read (every refusal with file, line and reason) and written, the domains of
// `generate --nvl-domain-size`, and snapshot format 2 (round trip, version 1 still loads,
// forged domains refused).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "common/atomic_file.hpp"
#include "common/crc32c.hpp"
#include "common/file_header.hpp"
#include "common/hostlist_expand.hpp"
#include "generated_fabric.hpp"
#include "message_of.hpp"
#include "topology/generate/clos_domains.hpp"
#include "topology/slurm_blocks.hpp"
#include "topology/snapshot.hpp"

namespace fabricfit {
namespace {

// 2 leaf groups of 4 hosts: gpu001..gpu004 on the first leaf, gpu005..gpu008 on the second.
Fabric eight_hosts() {
  return testing::generated_fabric(testing::clos_spec({.leaves = 2, .hosts_per_leaf = 4, .spines = 2}));
}

SnapshotInfo info() {
  return {"fabricfit test", 1700000000, {{"host_pattern", R"(^(\S+)\s+(\S+))"}}};
}

std::string domain_error(const Fabric& f, std::vector<NvlinkDomain> domains) {
  Fabric copy = f;
  return testing::message_of<NvlinkDomainError>([&] { set_nvlink_domains(copy, std::move(domains)); },
                                                "(accepted)");
}

std::string blocks_error(std::string_view text) {
  return testing::message_of<SlurmBlocksError>([&] { (void)parse_slurm_blocks(text, "topology.conf"); },
                                               "(accepted)");
}

std::string snapshot_error(std::string_view bytes) {
  return testing::message_of<SnapshotError>([&] { (void)decode_snapshot(bytes, "fabric.snap"); },
                                            "(accepted)");
}

constexpr std::string_view kMagic{
    "\x89"
    "FFSNAP\n",
    8};

// `body` behind a header of `version` with right checksums, as that version's writer made it.
std::string with_header(std::uint32_t version, std::string_view body) {
  return encode_file_header(kMagic, version, body) + std::string(body);
}

TEST(NvlinkDomains, SetKeepsTheOrderGivenAndSortsEachDomainsHosts) {
  Fabric f = eight_hosts();
  ASSERT_EQ(f.hosts.size(), 8u);
  set_nvlink_domains(f, {{"rackB", {7, 5, 6}}, {"rackA", {0, 1}}});
  ASSERT_EQ(f.nvlink_domains.size(), 2u);
  EXPECT_EQ(f.nvlink_domains[0].name, "rackB");
  EXPECT_EQ(f.nvlink_domains[0].hosts, (std::vector<int>{5, 6, 7}));
  EXPECT_EQ(f.nvlink_domains[1].hosts, (std::vector<int>{0, 1}));
  // Domains are part of the model: a Fabric without them is another Fabric.
  EXPECT_FALSE(f == eight_hosts());
}

TEST(NvlinkDomains, LeafGroupsOfADomainAreThoseItsHostsHangOff) {
  Fabric f = eight_hosts();
  set_nvlink_domains(f, {{"inside", {1, 0}}, {"across", {5, 3, 4}}, {"second", {7}}});
  ASSERT_EQ(f.leaf_groups.size(), 2u);
  ASSERT_EQ(f.hosts[3].leaf_group, 0);
  ASSERT_EQ(f.hosts[4].leaf_group, 1);
  EXPECT_EQ(leaf_groups_of(f, f.nvlink_domains[0]), (std::vector<int>{0}));
  // Each group once, ascending, whatever the order and count of its hosts.
  EXPECT_EQ(leaf_groups_of(f, f.nvlink_domains[1]), (std::vector<int>{0, 1}));
  EXPECT_EQ(leaf_groups_of(f, f.nvlink_domains[2]), (std::vector<int>{1}));
  // A host in no leaf group (a hand-built fabric) adds none.
  f.hosts[7].leaf_group = -1;
  EXPECT_TRUE(leaf_groups_of(f, f.nvlink_domains[2]).empty());
}

TEST(NvlinkDomains, SetRefusesWhatIsNotAPartitionOfSomeHosts) {
  const Fabric f = eight_hosts();
  EXPECT_EQ(domain_error(f, {{"a", {0, 1}}, {"b", {1, 2}}}), "host gpu002 is in NVLink domain a and in b");
  EXPECT_EQ(domain_error(f, {{"a", {0, 0}}}), "host gpu001 is listed twice in NVLink domain a");
  EXPECT_EQ(domain_error(f, {{"a", {0}}, {"a", {1}}}), "NVLink domain a is named twice");
  EXPECT_EQ(domain_error(f, {{"a", {}}}), "NVLink domain a has no hosts");
  EXPECT_EQ(domain_error(f, {{"", {0}}}), "NVLink domain 1 has no name");
  EXPECT_EQ(domain_error(f, {{"a", {8}}}), "NVLink domain a: host index 8 out of range (8 hosts)");
  EXPECT_EQ(domain_error(f, {{"a", {0}}}), "(accepted)");
  // A refusal leaves the fabric as it was.
  Fabric g = eight_hosts();
  set_nvlink_domains(g, {{"keep", {3}}});
  EXPECT_THROW(set_nvlink_domains(g, {{"a", {0, 0}}}), NvlinkDomainError);
  ASSERT_EQ(g.nvlink_domains.size(), 1u);
  EXPECT_EQ(g.nvlink_domains[0].name, "keep");
}

TEST(SlurmBlocks, ReadsBlockNameLinesAsSlurmWritesThem) {
  const SlurmBlocks b = parse_slurm_blocks(
      "# NVL72 racks\n"
      "BlockName=nvl0 Nodes=gpu[001-003]\n"
      "\n"
      "blockname=nvl1   nodes=gpu[004-005],gpu008  # keys in any case\n"
      "BlockName=nvl2 \\\n"
      "  Nodes=gpu006\n"
      "BlockSizes=2,4\n",
      "topology.conf");
  EXPECT_EQ(b.origin, "topology.conf");
  ASSERT_EQ(b.blocks.size(), 3u);
  EXPECT_EQ(b.blocks[0], (SlurmBlock{"nvl0", {"gpu001", "gpu002", "gpu003"}, 2}));
  EXPECT_EQ(b.blocks[1], (SlurmBlock{"nvl1", {"gpu004", "gpu005", "gpu008"}, 4}));
  EXPECT_EQ(b.blocks[2], (SlurmBlock{"nvl2", {"gpu006"}, 5}));
  EXPECT_EQ(b.block_sizes, (std::vector<int>{2, 4}));
}

TEST(SlurmBlocks, EachFaultNamesFileLineAndReason) {
  EXPECT_EQ(blocks_error("BlockName=a Nodes=n[1-2]\nBlockName=b Nodes=n[3-x]\n"),
            "topology.conf:2: block b: bad hostlist Nodes=n[3-x]: " +
                testing::message_of<HostlistError>([] { (void)expand_hostlist("n[3-x]"); }, "?"));
  EXPECT_EQ(blocks_error("BlockName=a Nodes=n[1-2]\n# c\nBlockName=b Nodes=n[2-3]\n"),
            "topology.conf:3: node n2 of block b is already in block a (line 1)");
  EXPECT_EQ(blocks_error("BlockName=a Nodes=n[1-2],n1\n"),
            "topology.conf:1: node n1 is listed twice in block a");
  EXPECT_EQ(blocks_error("BlockName=a Nodes=n1\nBlockName=a Nodes=n2\n"),
            "topology.conf:2: block a is named twice (first on line 1)");
  EXPECT_EQ(blocks_error("BlockName=a Nodes=n1 Switches=s1\n"),
            "topology.conf:1: unknown key 'Switches' on a BlockName line (it takes Nodes= only)");
  EXPECT_EQ(
      blocks_error("BlockName=a Nodes=n1\nBlockSize=4\n"),
      "topology.conf:2: unknown key 'BlockSize' (a block topology.conf has BlockName and BlockSizes lines)");
  EXPECT_EQ(
      blocks_error("SwitchName=s1 Nodes=n1\n"),
      "topology.conf:1: SwitchName lines are topology/tree's; --blocks reads topology/block's BlockName "
      "lines");
  EXPECT_EQ(blocks_error("BlockName=a\n"), "topology.conf:1: block a has no Nodes=");
  EXPECT_EQ(blocks_error("BlockName= Nodes=n1\n"), "topology.conf:1: BlockName= without a name");
  EXPECT_EQ(blocks_error("BlockName=a Nodes=\n"), "topology.conf:1: block a: Nodes= without nodes");
  EXPECT_EQ(blocks_error("BlockName=a Nodes=n1 Nodes=n2\n"), "topology.conf:1: block a has Nodes= twice");
  EXPECT_EQ(blocks_error("BlockName=a Nodes=n1\nnvl0 gpu001\n"), "topology.conf:2: 'nvl0' is not Key=Value");
  EXPECT_EQ(blocks_error("BlockName=a Nodes=n1\nBlockSizes=4,x\n"),
            "topology.conf:2: BlockSizes=4,x: 'x' is not a positive number");
  EXPECT_EQ(blocks_error("BlockName=a \\\n Nodes=n1\nBlockName=b \\\n Nodes=n[1\n"),
            "topology.conf:3: block b: bad hostlist Nodes=n[1: " +
                testing::message_of<HostlistError>([] { (void)expand_hostlist("n[1"); }, "?"));
  EXPECT_EQ(blocks_error("# nothing\n\n"), "topology.conf: no BlockName line");
  // A trailing '\' would continue the line fabricfit writes: no name has one anywhere.
  EXPECT_EQ(blocks_error("BlockName=a Nodes=n1\\ \n"),
            "topology.conf:1: block a: node name 'n1\\' has a space, '#', '\\' or a control character");
  // A bound on the whole file, not only on one hostlist: a few short lines must not take
  // gigabytes.
  EXPECT_EQ(blocks_error("BlockName=a Nodes=a[0-199999]\nBlockName=b Nodes=b[0-62143]\n"), "(accepted)");
  EXPECT_EQ(blocks_error("BlockName=a Nodes=a[0-199999]\nBlockName=b Nodes=b[0-62144]\n"),
            "topology.conf:2: block b: more than 262144 nodes in all blocks");
  EXPECT_EQ(blocks_error("BlockName=a Nodes=n1\n"), "(accepted)");
}

TEST(SlurmBlocks, UnreadableFileIsNamed) {
  const std::string e = testing::message_of<SlurmBlocksError>(
      [] { (void)load_slurm_blocks("/nonexistent/topology.conf"); }, "(accepted)");
  EXPECT_EQ(e, "/nonexistent/topology.conf: cannot read: No such file or directory");
}

TEST(SlurmBlocks, NodesBecomeHostsOfTheFabricOrTheLineIsNamed) {
  const Fabric f = eight_hosts();
  const SlurmBlocks good =
      parse_slurm_blocks("BlockName=r0 Nodes=gpu[003,001]\nBlockName=r1 Nodes=gpu008\n", "t");
  const auto domains = domains_of_blocks(good, f);
  ASSERT_EQ(domains.size(), 2u);
  EXPECT_EQ(domains[0], (NvlinkDomain{"r0", {2, 0}}));
  EXPECT_EQ(domains[1], (NvlinkDomain{"r1", {7}}));

  const SlurmBlocks bad =
      parse_slurm_blocks("BlockName=r0 Nodes=gpu001\n\nBlockName=r1 Nodes=gpu[008-009]\n", "t");
  EXPECT_EQ(testing::message_of<SlurmBlocksError>([&] { (void)domains_of_blocks(bad, f); }, "(accepted)"),
            "t:3: node gpu009 of block r1 is not a host of the fabric");
}

TEST(SlurmBlocks, WrittenLinesReadBackToTheSameBlocks) {
  Fabric f = eight_hosts();
  set_nvlink_domains(f, {{"nvl0", {0, 1, 2, 3}}, {"nvl1", {4, 6}}});
  const std::string text = slurm_block_lines(blocks_of_domains(f), "gpu[001-008]");
  EXPECT_EQ(text,
            "# NVLink domains of gpu[001-008] (topology/block), by fabricfit\n"
            "BlockName=nvl0 Nodes=gpu[001-004]\n"
            "BlockName=nvl1 Nodes=gpu[005,007]\n");
  Fabric g = eight_hosts();
  set_nvlink_domains(g, domains_of_blocks(parse_slurm_blocks(text, "written"), g));
  EXPECT_EQ(g.nvlink_domains, f.nvlink_domains);
}

TEST(ClosDomains, ConsecutiveHostsOfOneLeaf) {
  const ClosSpec spec = testing::clos_spec({.leaves = 2, .hosts_per_leaf = 4, .spines = 2});
  const auto blocks = clos_nvlink_domains(spec, 2);
  ASSERT_EQ(blocks.size(), 4u);
  EXPECT_EQ(blocks[0], (SlurmBlock{"nvl0", {"gpu001", "gpu002"}, 0}));
  EXPECT_EQ(blocks[3], (SlurmBlock{"nvl3", {"gpu007", "gpu008"}, 0}));
  // Each domain lies under one leaf group of the fabric the generator writes.
  const Fabric f = testing::generated_fabric(spec);
  for (const SlurmBlock& b : blocks) {
    const int group = f.hosts[*f.host_index(b.nodes.front())].leaf_group;
    for (const auto& n : b.nodes) EXPECT_EQ(f.hosts[*f.host_index(n)].leaf_group, group) << b.name;
  }
  EXPECT_EQ(clos_nvlink_domains(spec, 4).size(), 2u);
  EXPECT_EQ(
      testing::message_of<SpecError>([&] { (void)clos_nvlink_domains(spec, 3); }, "(accepted)"),
      "--nvl-domain-size 3 does not divide --hosts-per-leaf 4: a domain's hosts are consecutive hosts of "
      "one leaf");
  EXPECT_EQ(testing::message_of<SpecError>([&] { (void)clos_nvlink_domains(spec, 0); }, "(accepted)"),
            "--nvl-domain-size must be at least 1");
}

TEST(SnapshotV2, DomainsRoundTrip) {
  Fabric f = eight_hosts();
  set_nvlink_domains(f, {{"nvl0", {0, 1, 2, 3}}, {"nvl1", {5, 6}}});
  const std::string bytes = encode_snapshot(f, info());
  std::uint32_t version = 0;
  std::memcpy(&version, bytes.data() + 8, 4);
  EXPECT_EQ(version, 2u);
  const Snapshot s = decode_snapshot(bytes, "mem");
  EXPECT_EQ(s.fabric.nvlink_domains, f.nvlink_domains);
  EXPECT_TRUE(s.fabric == f);
  EXPECT_EQ(encode_snapshot(s.fabric, s.info), bytes);
}

TEST(SnapshotV2, WithoutDomainsItIsVersionOneAsOlderReleasesRead) {
  const Fabric f = eight_hosts();
  const std::string v1 = encode_snapshot(f, info());
  EXPECT_EQ(v1[8], 1) << "no domains: version 1, so an older plugin still reads a new discovery";
  const Snapshot s = decode_snapshot(v1, "v1.snap");
  EXPECT_TRUE(s.fabric.nvlink_domains.empty());
  EXPECT_TRUE(s.fabric == f);
  EXPECT_EQ(encode_snapshot(s.fabric, s.info), v1);
  // A version 2 body is a version 1 body and the domains (here a count of none).
  const std::string_view body = std::string_view(v1).substr(kSnapshotHeaderBytes);
  const std::string v2_body = std::string(body) + std::string(4, '\0');
  const Snapshot s2 = decode_snapshot(with_header(2, v2_body), "v2.snap");
  EXPECT_TRUE(s2.fabric == f);
  // A version 2 body under a version 1 header has bytes the version 1 reader does not know.
  const std::string mixed = with_header(1, v2_body);
  EXPECT_NE(snapshot_error(mixed).find("4 bytes after the end"), std::string::npos) << snapshot_error(mixed);
  // And a version 1 body under a version 2 header lacks the domains.
  EXPECT_NE(snapshot_error(with_header(2, body)).find("invalid body"), std::string::npos);
}

TEST(SnapshotV2, TheVersionOneFixturesLoad) {
  for (const char* name : {"two-tier.snap", "two-rail.snap", "three-tier.snap", "partial.snap"}) {
    const std::string path = std::string(FF_SOURCE_DIR "/tests/fixtures/snapshots/") + name;
    std::string bytes;
    ASSERT_TRUE(read_whole_file(path.c_str(), bytes)) << path;
    ASSERT_GE(bytes.size(), kSnapshotHeaderBytes);
    EXPECT_EQ(bytes[8], 1) << name << " is no longer a version 1 snapshot";
    const Snapshot s = load_snapshot(path);
    EXPECT_FALSE(s.fabric.hosts.empty()) << name;
    EXPECT_TRUE(s.fabric.nvlink_domains.empty()) << name;
    EXPECT_TRUE(decode_snapshot(encode_snapshot(s.fabric, s.info), "again").fabric == s.fabric) << name;
  }
}

TEST(SnapshotV2, ForgedDomainsAreRefused) {
  const auto forged = [](std::vector<NvlinkDomain> domains) {
    Fabric f = eight_hosts();
    f.nvlink_domains = std::move(domains);  // past set_nvlink_domains, as a forger would
    return snapshot_error(encode_snapshot(f, info()));
  };
  const auto refused = [&](std::vector<NvlinkDomain> domains, const std::string& why) {
    const std::string e = forged(std::move(domains));
    EXPECT_TRUE(e.starts_with("fabric.snap: invalid body at byte ")) << e;
    EXPECT_TRUE(e.ends_with(why)) << e;
  };
  refused({{"a", {0, 1}}, {"b", {1}}}, "host gpu002 in two NVLink domains");
  refused({{"a", {1, 0}}}, "NVLink domain a: hosts not in ascending order");
  refused({{"a", {0, 0}}}, "NVLink domain a: hosts not in ascending order");
  refused({{"a", {0, 8}}}, "host index 8 out of range (0..8)");
  refused({{"a", {-1}}}, "host index -1 out of range (0..8)");
  refused({{"a", {}}}, "NVLink domain a has no hosts");
  refused({{"", {0}}}, "NVLink domain without a name");
  refused({{"a", {0}}, {"a", {1}}}, "NVLink domain a twice");
  EXPECT_EQ(forged({{"a", {0, 3}}, {"b", {1}}}), "(accepted)");
}

TEST(SnapshotV2, ANewerVersionSaysWhatToDo) {
  const std::string bytes = encode_snapshot(eight_hosts(), info());
  const std::string v3 = with_header(3, std::string_view(bytes).substr(kSnapshotHeaderBytes));
  EXPECT_EQ(snapshot_error(v3),
            "fabric.snap: format version 3; this fabricfit reads versions 1 to 2 only (rerun `fabricfit "
            "discover` with this version)");
  EXPECT_EQ(snapshot_error(with_header(0, std::string_view(bytes).substr(kSnapshotHeaderBytes))),
            "fabric.snap: format version 0; this fabricfit reads versions 1 to 2 only (rerun `fabricfit "
            "discover` with this version)");
}

}  // namespace
}  // namespace fabricfit
