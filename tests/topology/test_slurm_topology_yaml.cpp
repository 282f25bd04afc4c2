// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm's topology.yaml as `discover --blocks` reads it (issue 30 item 1b): the block section
// of the topology Slurm would default to, or of the only one with blocks, or of the one
// named; the same domains as the topology.conf of the same site; every refusal with file,
// line and reason; which files are read as YAML.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/hostlist_expand.hpp"
#include "generated_fabric.hpp"
#include "message_of.hpp"
#include "topology/readers/slurm_topology_yaml.hpp"
#include "topology/slurm_blocks.hpp"

namespace fabricfit {
namespace {

const std::string kFixtures = FF_SOURCE_DIR "/tests/fixtures/slurm-blocks/";

// 2 leaf groups of 4 hosts: gpu001..gpu008.
Fabric eight_hosts() {
  return testing::generated_fabric(testing::clos_spec({.leaves = 2, .hosts_per_leaf = 4, .spines = 2}));
}

std::string yaml_error(std::string_view text, const std::string& topology = {}) {
  return testing::message_of<SlurmBlocksError>(
      [&] { (void)parse_slurm_topology_yaml(text, "topology.yaml", topology); }, "(accepted)");
}

// A topology of `name` with one block `block` of `nodes`; `extra` lines go under it.
std::string block_topology(const std::string& name, const std::string& block, const std::string& nodes,
                           const std::string& extra = {}) {
  return "- topology: " + name + "\n" + extra + "  block:\n    blocks:\n      - block: " + block +
         "\n        nodes: " + nodes + "\n";
}

// Two block topologies, unmarked, and a tree marked as the cluster default.
const std::string a = block_topology("a", "ra", "gpu001");
const std::string b = block_topology("b", "rb", "gpu002");
const std::string tree =
    "- topology: t\n  cluster_default: true\n  tree:\n    switches:\n"
    "      - switch: s\n        nodes: gpu[001-002]\n";

TEST(SlurmTopologyYaml, ReadsTheClusterDefaultsBlocksAndSkipsTheTree) {
  const SlurmBlocks b = load_slurm_block_file(kFixtures + "two-topologies.yaml");
  EXPECT_EQ(b.origin, kFixtures + "two-topologies.yaml");
  EXPECT_EQ(b.topology, "nvl");
  ASSERT_EQ(b.blocks.size(), 2u);
  EXPECT_EQ(b.blocks[0], (SlurmBlock{"nvl0", {"gpu001", "gpu002", "gpu003", "gpu004"}, 22}));
  EXPECT_EQ(b.blocks[1], (SlurmBlock{"nvl1", {"gpu005", "gpu007", "gpu008"}, 24}));
  EXPECT_EQ(b.block_sizes, (std::vector<int>{2, 4}));
}

TEST(SlurmTopologyYaml, TheSameSiteGivesTheSameDomainsAsItsTopologyConf) {
  const Fabric f = eight_hosts();
  const auto from_conf = domains_of_blocks(load_slurm_block_file(kFixtures + "two-blocks.conf"), f);
  const auto from_yaml = domains_of_blocks(load_slurm_block_file(kFixtures + "two-topologies.yaml"), f);
  ASSERT_EQ(from_conf.size(), 2u);
  EXPECT_EQ(from_yaml, from_conf);

  const SlurmBlocks conf = load_slurm_blocks(kFixtures + "nvl72.conf");
  const SlurmBlocks yaml = load_slurm_block_file(kFixtures + "nvl72.yaml");
  ASSERT_EQ(yaml.blocks.size(), conf.blocks.size());
  for (std::size_t i = 0; i < conf.blocks.size(); ++i) {
    EXPECT_EQ(yaml.blocks[i].name, conf.blocks[i].name);
    EXPECT_EQ(yaml.blocks[i].nodes, conf.blocks[i].nodes);
  }
  EXPECT_EQ(yaml.block_sizes, conf.block_sizes);
  EXPECT_EQ(yaml.topology, "racks");  // the only one with blocks, though not cluster_default
  EXPECT_TRUE(conf.topology.empty());
}

TEST(SlurmTopologyYaml, WhichTopologyIsTaken) {
  const auto taken = [](const std::string& text, const std::string& name = {}) {
    return parse_slurm_topology_yaml(text, "topology.yaml", name).topology;
  };
  // Named: that one, whatever the default.
  EXPECT_EQ(taken(a + b, "b"), "b");
  EXPECT_EQ(taken(tree + a + b, "a"), "a");
  // Else the first marked cluster_default, as Slurm's default.
  EXPECT_EQ(taken(a + block_topology("b", "rb", "gpu002", "  cluster_default: yes\n")), "b");
  EXPECT_EQ(taken(block_topology("a", "ra", "gpu001", "  cluster_default: true\n") +
                  block_topology("b", "rb", "gpu002", "  cluster_default: true\n")),
            "a");
  // Else the only one with blocks, marked or not.
  EXPECT_EQ(taken(block_topology("a", "ra", "gpu001", "  cluster_default: false\n")), "a");
}

TEST(SlurmTopologyYaml, WhenTheDefaultHasNoBlocks) {
  // The default is a tree: the only topology with blocks is taken...
  EXPECT_EQ(parse_slurm_topology_yaml(tree + a, "topology.yaml").topology, "a");
  // ... but of two, neither is.
  EXPECT_EQ(yaml_error(tree + a + b),
            "topology.yaml: topologies a, b have block sections and none is the cluster default: name one "
            "(--blocks-topology)");
  EXPECT_EQ(yaml_error(a + b),
            "topology.yaml: topologies a, b have block sections and none is the cluster default: name one "
            "(--blocks-topology)");
  // Slurm's default is the first marked one (the tree), not a later marked one with blocks.
  EXPECT_EQ(yaml_error(tree + block_topology("m", "rm", "gpu003", "  cluster_default: true\n") + b),
            "topology.yaml: topologies m, b have block sections and none is the cluster default: name one "
            "(--blocks-topology)");
  EXPECT_EQ(yaml_error(tree + a, "t"), "topology.yaml:1: topology t has no block section (it is tree)");
  EXPECT_EQ(yaml_error(tree + a, "x"), "topology.yaml: no topology x (the file has t (tree), a (block))");
  EXPECT_EQ(yaml_error(tree + "- topology: f\n  flat: true\n"),
            "topology.yaml: no topology with a block section (the file has t (tree), f (flat))");
  // An empty block section is none, as Slurm reads it.
  EXPECT_EQ(yaml_error("- topology: e\n  block: {}\n"),
            "topology.yaml: no topology with a block section (the file has e (block))");
}

TEST(SlurmTopologyYaml, OneTopologyOneBlockAndOneSizeAsSlurmTakesThem) {
  // The file a mapping, `blocks` a mapping, `block_sizes` a number: each a list of one to Slurm.
  const SlurmBlocks b = parse_slurm_topology_yaml(
      "topology: solo\nblock:\n  block_sizes: 4\n  blocks:\n    block: r0\n    nodes: gpu[001-004]\n",
      "t.yaml");
  EXPECT_EQ(b.topology, "solo");
  ASSERT_EQ(b.blocks.size(), 1u);
  EXPECT_EQ(b.blocks[0], (SlurmBlock{"r0", {"gpu001", "gpu002", "gpu003", "gpu004"}, 5}));
  EXPECT_EQ(b.block_sizes, (std::vector<int>{4}));
}

TEST(SlurmTopologyYaml, EachFaultNamesFileLineAndReason) {
  const std::string head = "- topology: nvl\n  block:\n    blocks:\n";  // blocks from line 4
  EXPECT_EQ(yaml_error(head + "      - block: a\n        nodes: [gpu001\n"),
            "topology.yaml:6: end of sequence flow not found");
  EXPECT_EQ(yaml_error(head + "      - block: a\n        nodes: gpu001\n---\n- topology: x\n"),
            "topology.yaml:6: a second YAML document (a topology.yaml is one)");
  // yaml-cpp 0.7's LoadAll never returns on this (jbeder/yaml-cpp#1319): refused at once.
  EXPECT_EQ(yaml_error(",- a\n"), "topology.yaml:1: ',' cannot start a YAML node");
  EXPECT_EQ(yaml_error("# c\n,\n"), "topology.yaml:2: ',' cannot start a YAML node");
  EXPECT_EQ(yaml_error(head + "      - nodes: gpu001\n"),
            "topology.yaml:4: a block without a name (block: NAME)");
  EXPECT_EQ(yaml_error(head + "      - block:\n        nodes: gpu001\n"),
            "topology.yaml:4: a block without a name (block: NAME)");
  EXPECT_EQ(yaml_error(head + "      - block: a\n"), "topology.yaml:4: block a has no nodes");
  EXPECT_EQ(yaml_error(head + "      - block: a\n        nodes:\n"),
            "topology.yaml:5: block a: nodes: without nodes");
  EXPECT_EQ(yaml_error(head + "      - block: a\n        nodes: ''\n"),
            "topology.yaml:5: block a: nodes: without nodes");
  EXPECT_EQ(yaml_error(head + "      - block: a\n        nodes: [gpu001, gpu002]\n"),
            "topology.yaml:5: block a: nodes: is not one hostlist (nodes: gpu[001-018])");
  EXPECT_EQ(yaml_error(head + "      - block: a\n        node: gpu001\n"),
            "topology.yaml:5: unknown key 'node' in block a (it takes block and nodes)");
  EXPECT_EQ(yaml_error(head + "      - block: a\n        nodes: gpu001\n        nodes: gpu002\n"),
            "topology.yaml:6: key 'nodes' twice (first on line 5)");
  EXPECT_EQ(yaml_error(head + "      - block: a\n        nodes: gpu[001-\n"),
            "topology.yaml:5: block a: bad hostlist nodes: gpu[001-: " +
                testing::message_of<HostlistError>([] { (void)expand_hostlist("gpu[001-"); }, "?"));
  EXPECT_EQ(
      yaml_error(head + "      - block: a\n        nodes: gpu001\n      - block: a\n        nodes: gpu002\n"),
      "topology.yaml:6: block a is named twice (first on line 4)");
  EXPECT_EQ(yaml_error(head + "      - block: a\n        nodes: gpu[001-002]\n      - block: b\n"
                              "        nodes: gpu[002-003]\n"),
            "topology.yaml:7: node gpu002 of block b is already in block a (line 4)");
  EXPECT_EQ(yaml_error(head + "      - block: a\n        nodes: gpu[001-002],gpu001\n"),
            "topology.yaml:5: node gpu001 is listed twice in block a");
  EXPECT_EQ(
      yaml_error(head +
                 "      - {block: a, nodes: 'a[0-199999]'}\n      - block: b\n        nodes: b[0-62144]\n"),
      "topology.yaml:6: block b: more than 262144 nodes in all blocks");
  // Names a topology.conf could not hold (nor Slurm name a node so).
  EXPECT_EQ(yaml_error(head + "      - block: a\n        nodes: gpu[005,007]&#gpu408\n"),
            "topology.yaml:5: block a: node name 'gpu005&#gpu408' has a space, '#', '\\' or a control "
            "character");
  EXPECT_EQ(yaml_error(head + "      - block: a\n        nodes: 'gpu001, gpu 2'\n"),
            "topology.yaml:5: block a: node name ' gpu 2' has a space, '#', '\\' or a control character");
  EXPECT_EQ(yaml_error(head + "      - block: 'r\\'\n        nodes: gpu001\n"),
            "topology.yaml:4: block name 'r\\' has a space, '#', '\\' or a control character");
  EXPECT_EQ(yaml_error(head + "      - gpu001\n"),
            "topology.yaml:4: a block is a mapping (block: NAME, nodes: HOSTLIST)");
  EXPECT_EQ(yaml_error("- topology: nvl\n  block:\n    blocks: []\n"),
            "topology.yaml:3: topology nvl: blocks: is not a list of blocks (- block: NAME)");
  EXPECT_EQ(yaml_error("- topology: nvl\n  block:\n    block_sizes: [4]\n"),
            "topology.yaml:2: topology nvl: block section without blocks");
  EXPECT_EQ(yaml_error("- topology: nvl\n  block:\n    BlockSizes: [4]\n"),
            "topology.yaml:3: unknown key 'BlockSizes' in the block section of topology nvl (it takes "
            "block_sizes and blocks)");
  EXPECT_EQ(yaml_error("- topology: nvl\n  block:\n    block_sizes:\n      - 4\n      - x\n"),
            "topology.yaml:5: block_sizes: 'x' is not a positive number");
  EXPECT_EQ(yaml_error("- topology: nvl\n  block:\n    block_sizes: 4,8\n"),
            "topology.yaml:3: block_sizes: '4,8' is not a positive number");
  EXPECT_EQ(yaml_error("- topology: nvl\n  block: yes\n"),
            "topology.yaml:2: topology nvl: block: is not a mapping (block_sizes:, blocks:)");
  EXPECT_EQ(yaml_error("- topology: nvl\n  cluster_default: maybe\n"),
            "topology.yaml:2: cluster_default: 'maybe' is not true or false");
  EXPECT_EQ(yaml_error("- cluster_default: true\n  flat: true\n"),
            "topology.yaml:1: a topology without a name (topology: NAME)");
  EXPECT_EQ(yaml_error("- topology: a\n  flat: true\n- topology: a\n  flat: true\n"),
            "topology.yaml:3: topology a is named twice (first on line 1)");
  EXPECT_EQ(yaml_error("- just a word\n"),
            "topology.yaml:1: a topology is a mapping (topology: NAME, then block:, tree: or another type)");
  EXPECT_EQ(yaml_error("nvl0 gpu001\n"), "topology.yaml:1: not a list of topologies (- topology: NAME)");
  EXPECT_EQ(yaml_error("# nothing\n"), "topology.yaml: no topology (the file is empty)");
  EXPECT_EQ(yaml_error(head + "      - block: a\n        nodes: gpu001\n"), "(accepted)");
}

TEST(SlurmTopologyYaml, TheFixturesThatMustFailDoWithTheirLine) {
  const auto error = [](const std::string& name) {
    return testing::message_of<SlurmBlocksError>([&] { (void)load_slurm_block_file(kFixtures + name); },
                                                 "(accepted)");
  };
  EXPECT_EQ(error("node-in-two-blocks.yaml"),
            kFixtures + "node-in-two-blocks.yaml:7: node gpu002 of block b is already in block a (line 4)");
  EXPECT_EQ(error("misspelt-nodes.yaml"),
            kFixtures + "misspelt-nodes.yaml:8: unknown key 'node' in block b (it takes block and nodes)");
  EXPECT_EQ(error("tree-only.yaml"),
            kFixtures + "tree-only.yaml: no topology with a block section (the file has ib (tree))");
  EXPECT_EQ(error("syntax-error.yaml"), kFixtures + "syntax-error.yaml:6: end of sequence flow not found");
}

TEST(SlurmTopologyYaml, WhatIsReadAsYaml) {
  EXPECT_TRUE(is_topology_yaml("topology.yaml", "BlockName=a Nodes=n1\n"));  // by name first
  EXPECT_TRUE(is_topology_yaml("/etc/slurm/t.yml", ""));
  EXPECT_TRUE(is_topology_yaml("t", "# c\n\n---\n"));
  EXPECT_TRUE(is_topology_yaml("t", "  # c\n- topology: a\n"));
  EXPECT_TRUE(is_topology_yaml("t", "-   topology: a\n"));
  EXPECT_TRUE(is_topology_yaml("t", "topology: a\nblock:\n"));
  EXPECT_TRUE(is_topology_yaml("t", "%YAML 1.2\n---\n"));
  EXPECT_FALSE(is_topology_yaml("topology.conf", "# - topology: a\nBlockName=a Nodes=n1\n"));
  EXPECT_FALSE(is_topology_yaml("t", "BlockName=a Nodes=n1\n- topology: a\n"));
  EXPECT_FALSE(is_topology_yaml("t", "-topology: a\n"));
  EXPECT_FALSE(is_topology_yaml("t.conf", ""));
}

TEST(SlurmTopologyYaml, ATopologyConfReadsAsBefore) {
  // The same blocks, and the same refusals word for word, as load_slurm_blocks.
  for (const char* name : {"nvl72.conf", "two-blocks.conf"}) {
    const SlurmBlocks a = load_slurm_blocks(kFixtures + name);
    const SlurmBlocks b = load_slurm_block_file(kFixtures + name);
    EXPECT_EQ(a.blocks, b.blocks) << name;
    EXPECT_EQ(a.block_sizes, b.block_sizes) << name;
  }
  const auto error = [](auto load) { return testing::message_of<SlurmBlocksError>(load, "(accepted)"); };
  const std::string bad = kFixtures + "node-in-two-blocks.conf";
  EXPECT_EQ(error([&] { (void)load_slurm_block_file(bad); }), error([&] { (void)load_slurm_blocks(bad); }));
  EXPECT_EQ(error([&] { (void)load_slurm_block_file("/nonexistent/topology.yaml"); }),
            "/nonexistent/topology.yaml: cannot read: No such file or directory");
  EXPECT_EQ(error([&] { (void)load_slurm_block_file(kFixtures + "two-blocks.conf", "nvl"); }),
            kFixtures +
                "two-blocks.conf: a topology.conf has no named topologies (topology nvl is one of a "
                "topology.yaml)");
}

}  // namespace
}  // namespace fabricfit
