// SPDX-License-Identifier: GPL-2.0-or-later
// The fixtures that seed the fuzz targets (tests/fixtures/*, Makefile.am's FUZZ_SEEDS_NAME)
// are real inputs of their parsers: each one loads (or, where it is meant to, fails with a
// located error). A seed that no longer parses, e.g. a snapshot of an older format, would
// leave its fuzzer starting from the error path only.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/hostlist_expand.hpp"
#include "common/slurm_node_names.hpp"
#include "placement/comm_pattern.hpp"
#include "placement/runtime/runtime_predictor.hpp"
#include "site/site_config.hpp"
#include "topology/node_name_map.hpp"
#include "topology/readers/ibnetdiscover_reader.hpp"
#include "topology/readers/slurm_topology_yaml.hpp"
#include "topology/slurm_blocks.hpp"
#include "topology/snapshot.hpp"

namespace fabricfit {
namespace {

namespace fs = std::filesystem;

// The files of tests/fixtures/DIR (those whose names end in `ext` when given), sorted.
std::vector<fs::path> fixtures_in(const std::string& dir, const std::string& ext = {}) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(std::string(FF_SOURCE_DIR) + "/tests/fixtures/" + dir)) {
    if (entry.is_regular_file() && (ext.empty() || entry.path().extension() == ext))
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(SeedFixtures, SiteConfigsParse) {
  const auto files = fixtures_in("fabricfit-conf");
  ASSERT_GE(files.size(), 3u);
  for (const auto& f : files) EXPECT_NO_THROW((void)load_site_config(f)) << f;
  const SiteConfig basic = load_site_config(files[1]);  // basic.conf
  EXPECT_EQ(basic.snapshot_file, "/srv/ff/fabric.snap");
  EXPECT_EQ(basic.default_pattern.to_string(), "tp=4,pp=1,dp=2");
}

TEST(SeedFixtures, NodeNameMapsLoad) {
  const auto files = fixtures_in("node-name-map");
  ASSERT_GE(files.size(), 2u);
  const NodeNameMap rdma = load_node_name_map(files[0]);  // rdma-core.map
  EXPECT_EQ(rdma.size(), 4u);
  EXPECT_EQ(rdma.at(0x0002c90300001235ULL), "gpu001 mlx5_1");
  const NodeNameMap switches = load_node_name_map(files[1]);
  EXPECT_EQ(switches.at(0xe41d2d0300a1b2c1ULL), "spine01");
}

TEST(SeedFixtures, CommPatternsParseAndSpellBack) {
  const auto files = fixtures_in("comm-pattern");
  ASSERT_GE(files.size(), 6u);
  for (const auto& f : files) {
    const CommPattern p = parse_comm_pattern(read_all(f));
    EXPECT_EQ(parse_comm_pattern(p.to_string()), p) << f;
  }
}

// Saved run-time histories read, or (bad-share) fail with their line.
TEST(SeedFixtures, RunTimeHistoriesReadOrNameTheLine) {
  const auto files = fixtures_in("runtime-history");
  ASSERT_GE(files.size(), 3u);
  for (const auto& f : files) {
    RunTimePredictor p;
    if (f.filename() == "bad-share") {
      EXPECT_THROW(
          {
            try {
              p.merge_text(read_all(f), f.string());
            } catch (const HistoryError& e) {
              EXPECT_EQ(std::string(e.what()), f.string() + ":3: share 'share' is not a number from 0 to 1");
              throw;
            }
          },
          HistoryError);
      continue;
    }
    const std::size_t jobs = p.merge_text(read_all(f), f.string());
    EXPECT_EQ(jobs, f.filename() == "two-users" ? 4u : 0u) << f;
    RunTimePredictor back;
    back.merge_text(p.to_text(), "saved");
    EXPECT_EQ(back.to_text(), p.to_text()) << f;
  }
}

TEST(SeedFixtures, SnapshotsOfTheCurrentFormatLoad) {
  const auto files = fixtures_in("snapshots");
  ASSERT_GE(files.size(), 5u);
  EXPECT_EQ(load_snapshot(files[4]).fabric.hosts.size(), 4u);  // two-tier.snap
  for (const auto& f : files) {
    try {
      const Snapshot s = load_snapshot(f);
      EXPECT_GT(boost::num_vertices(s.fabric.graph), 0u) << f;  // ibsim-example has no hosts
    } catch (const SnapshotError& e) {
      ADD_FAILURE() << e.what() << " (regenerate it with `fabricfit discover --from`)";
    }
  }
}

TEST(SeedFixtures, SlurmBlocksParseOrNameTheLine) {
  const auto files = fixtures_in("slurm-blocks", ".conf");
  ASSERT_EQ(files.size(), 3u);
  try {
    (void)parse_slurm_blocks(read_all(files[0]), "node-in-two-blocks.conf");
    ADD_FAILURE() << "node-in-two-blocks.conf was accepted";
  } catch (const SlurmBlocksError& e) {
    EXPECT_EQ(std::string(e.what()),
              "node-in-two-blocks.conf:2: node gpu002 of block b is already in block a (line 1)");
  }
  const auto racks = parse_slurm_blocks(read_all(files[1]), "nvl72.conf");
  ASSERT_EQ(racks.blocks.size(), 4u);
  EXPECT_EQ(racks.blocks[3].nodes.size(), 18u);
  EXPECT_EQ(racks.blocks[3].line, 5);
  EXPECT_EQ(racks.block_sizes, (std::vector<int>{18, 36, 72}));
  EXPECT_EQ(parse_slurm_blocks(read_all(files[2]), "two-blocks.conf").blocks.size(), 2u);
}

TEST(SeedFixtures, SlurmTopologyYamlsParseOrNameTheLine) {
  const auto files = fixtures_in("slurm-blocks", ".yaml");
  ASSERT_EQ(files.size(), 6u);
  for (const auto& f : files) {
    const std::string name = f.filename().string();
    const bool good = name == "nvl72.yaml" || name == "two-topologies.yaml";
    try {
      EXPECT_FALSE(parse_slurm_topology_yaml(read_all(f), name).blocks.empty()) << name;
      EXPECT_TRUE(good) << name << " was accepted";
    } catch (const SlurmBlocksError& e) {
      EXPECT_FALSE(good) << e.what();
      EXPECT_TRUE(std::string(e.what()).starts_with(name + ":")) << e.what();
    }
  }
}

TEST(SeedFixtures, SlurmNodeLinesParseOrNameTheLine) {
  const auto files = fixtures_in("slurm-conf");
  ASSERT_EQ(files.size(), 2u);
  try {
    (void)parse_slurm_node_lines(read_all(files[0]), "bad-range.conf");
    ADD_FAILURE() << "bad-range.conf was accepted";
  } catch (const SlurmNodesError& e) {
    EXPECT_NE(std::string(e.what()).find("bad-range.conf:3"), std::string::npos) << e.what();
  }
  const auto names = parse_slurm_node_lines(read_all(files[1]), "slurm.conf");
  EXPECT_NE(std::find(names.begin(), names.end(), "r2n09"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "login1"), names.end());
}

TEST(SeedFixtures, HostlistsExpand) {
  const auto files = fixtures_in("hostlist");
  ASSERT_GE(files.size(), 3u);
  for (const auto& f : files) EXPECT_FALSE(expand_hostlist(read_all(f)).empty()) << f;
  EXPECT_EQ(expand_hostlist(read_all(files[2])).size(), 65u);  // ranges: gpu[001-064],login1
}

TEST(SeedFixtures, IbnetdiscoverEdgeCasesRead) {
  const auto files = fixtures_in("ibnetdiscover-text");
  ASSERT_GE(files.size(), 2u);
  for (const auto& f : files) EXPECT_FALSE(read_ibnetdiscover_file(f.string()).nodes.empty()) << f;
}

}  // namespace
}  // namespace fabricfit
