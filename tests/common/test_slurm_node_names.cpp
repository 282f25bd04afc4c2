// SPDX-License-Identifier: GPL-2.0-or-later
// --slurm-nodes: NodeName= lines (slurm.conf syntax) and hostlist expressions.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "common/slurm_node_names.hpp"

namespace fabricfit {
namespace {

using Names = std::vector<std::string>;

TEST(SlurmNodeNames, NodeNameLinesWithRanges) {
  const std::string conf =
      "# compute\n"
      "NodeName=DEFAULT CPUs=32 Gres=gpu:8\n"
      "NodeName=gpu[001-003,007] NodeHostname=localhost Port=17001-17004\n"
      "nodename=r[1-2]n[08-09]   # product of two ranges, lower-case key\n"
      "PartitionName=all Nodes=ALL\n"
      "NodeName=login1 \\\n"
      "  CPUs=4\n"
      "NodeName=gpu002\n";  // duplicates are dropped
  EXPECT_EQ(parse_slurm_node_lines(conf, "slurm.conf"),
            (Names{"gpu001", "gpu002", "gpu003", "gpu007", "r1n08", "r1n09", "r2n08", "r2n09", "login1"}));
}

TEST(SlurmNodeNames, BadLineNamesFileAndLine) {
  try {
    (void)parse_slurm_node_lines("NodeName=a1\n\nNodeName=gpu[003-001]\n", "nodes.conf");
    FAIL() << "no error";
  } catch (const SlurmNodesError& e) {
    EXPECT_NE(std::string(e.what()).find("nodes.conf:3:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("backwards"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)parse_slurm_node_lines("NodeName= CPUs=2\n", "x"), SlurmNodesError);
}

TEST(SlurmNodeNames, FileOrHostlist) {
  EXPECT_EQ(load_slurm_nodes("gpu[1-3],login"), (Names{"gpu1", "gpu2", "gpu3", "login"}));
  EXPECT_THROW((void)load_slurm_nodes("gpu[1-3"), SlurmNodesError);
  const std::string path = ::testing::TempDir() + "ff_nodes.conf";
  {
    std::ofstream out(path);
    out << "NodeName=n[1-2] CPUs=2\n";
  }
  EXPECT_EQ(load_slurm_nodes(path), (Names{"n1", "n2"}));
  {
    std::ofstream out(path);
    out << "PartitionName=p Nodes=ALL\n";
  }
  EXPECT_THROW((void)load_slurm_nodes(path), SlurmNodesError);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace fabricfit
