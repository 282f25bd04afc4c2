// SPDX-License-Identifier: GPL-2.0-or-later
// The health file over the fabric (cli/health_marks.hpp) as `fabricfit show` prints it: on
// tests/fixtures/snapshots/two-tier.snap (ib-leaf-001: gpu001-2, ib-leaf-002: gpu003-4),
// with health files written by the real writer.
#include <gtest/gtest.h>

#include <fstream>

#include "cli/health_marks.hpp"
#include "health_fixture.hpp"
#include "topology/snapshot.hpp"

using namespace fabricfit;
using namespace fabricfit::cli;
using fabricfit::testing::BadCable;
using fabricfit::testing::health_file_of;

namespace {

const std::string kSnap = std::string(FF_SOURCE_DIR) + "/tests/fixtures/snapshots/two-tier.snap";

Fabric two_tier() {
  return load_snapshot(kSnap).fabric;
}

}  // namespace

TEST(HealthMarks, HostsAndLeafGroupsOfTheUnhealthyLinks) {
  const Fabric f = two_tier();
  const HealthFile h = health_file_of(f, {{.host = "gpu003", .state = HealthState::Flapping},
                                          {.leaf = "ib-leaf-001", .state = HealthState::Down}});
  ASSERT_EQ(h.links.size(), 2u);
  const HealthMarks m = health_marks(f, h);
  ASSERT_EQ(m.hosts.size(), 4u);
  EXPECT_TRUE(m.hosts[0].empty());
  ASSERT_EQ(m.hosts[2].size(), 1u);
  EXPECT_EQ(m.hosts[2][0].state, HealthState::Flapping);
  ASSERT_EQ(m.uplinks.size(), 2u);
  ASSERT_EQ(m.uplinks[0].size(), 1u) << "ib-leaf-001's uplink";
  EXPECT_EQ(m.uplinks[0][0].state, HealthState::Down);
  EXPECT_TRUE(m.uplinks[1].empty()) << "gpu003's HCA link is not an uplink of ib-leaf-002";
  EXPECT_FALSE(m.empty());
  EXPECT_TRUE(health_marks(f, health_file_of(f, {})).empty());
}

TEST(HealthMarks, ShowTextNamesStateAndEvidence) {
  const Fabric f = two_tier();
  const HealthFile h = health_file_of(f, {{.host = "gpu003", .state = HealthState::Flapping},
                                          {.leaf = "ib-leaf-002", .state = HealthState::SubHealthy}});
  const std::string t = show_health_text(f, h);
  EXPECT_NE(t.find("Links not healthy (2), sweep 7 at 1796378400:"), std::string::npos) << t;
  EXPECT_NE(
      t.find(
          "Hosts whose HCA link is not healthy (1):\n  gpu003  flapping: LinkDownedCounter 3 in_window at"),
      std::string::npos)
      << t;
  EXPECT_NE(
      t.find("Leaf groups with uplinks not healthy (1):\n  ib-leaf-002  1 of 1 uplinks not healthy, worst "
             "sub-healthy: SymbolErrorCounter 4e-12 ber at"),
      std::string::npos)
      << t;
  EXPECT_NE(show_health_text(f, health_file_of(f, {})).find("none: every link healthy"), std::string::npos);
  HealthFile nv = health_file_of(f, {});
  nv.nvlink_report = "/srv/nvlink";
  nv.nvlink = {{"gpu002", HealthState::Down, 950, "GPU 00000018:01:00.0: Route Unhealthy True", "r:103"}};
  EXPECT_NE(show_health_text(f, nv).find("Hosts whose NVLink is not healthy (1, reports in /srv/nvlink):\n"
                                         "  gpu002  failing  since 950\n"),
            std::string::npos)
      << show_health_text(f, nv);
  EXPECT_EQ(show_health_json(f, nv)["nvlink"][0]["host"], "gpu002");
}

TEST(HealthMarks, ShowJsonHasHealthsShapeAndLeafGroups) {
  const Fabric f = two_tier();
  const auto j =
      show_health_json(f, health_file_of(f, {{.host = "gpu001", .state = HealthState::Down},
                                             {.leaf = "ib-leaf-002", .state = HealthState::Flapping}}));
  EXPECT_EQ(j["sweep"], 1'796'378'400);
  ASSERT_EQ(j["links"].size(), 2u);
  EXPECT_EQ(j["links"][0]["state"], "down") << "worst first, as `fabricfit health --json`";
  ASSERT_EQ(j["hosts"].size(), 1u);
  EXPECT_EQ(j["hosts"][0]["host"], "gpu001");
  EXPECT_TRUE(j["hosts"][0]["evidence"].contains("PortState"));
  ASSERT_EQ(j["leaf_groups"].size(), 1u);
  EXPECT_EQ(j["leaf_groups"][0]["name"], "ib-leaf-002");
  EXPECT_EQ(j["leaf_groups"][0]["state"], "flapping");
  EXPECT_EQ(j["leaf_groups"][0]["unhealthy_uplinks"], 1);
}

TEST(HealthMarks, FindHealthBesideTheSnapshotOrAsTold) {
  const Fabric f = two_tier();
  const auto dir = std::filesystem::temp_directory_path() / ("fabricfit-marks-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto snap = dir / "fabric.snapshot";
  std::filesystem::copy_file(kSnap, snap, std::filesystem::copy_options::overwrite_existing);
  EXPECT_FALSE(find_health("", "", snap)) << "no health file beside it yet: none, not an error";
  (void)health_file_of(f, {{.host = "gpu002"}}, dir / "fabric.health");
  const auto beside = find_health("", "", snap);
  ASSERT_TRUE(beside);
  EXPECT_EQ(beside->links.at(0).host, "gpu002");
  EXPECT_FALSE(find_health("", dir / "elsewhere.health", snap)) << "the conf's HealthFile wins over beside";
  EXPECT_THROW((void)find_health((dir / "missing.health").string(), "", snap), HealthFileError)
      << "a file named on the command line must load";
  { std::ofstream(dir / "bad.health") << "not a health file"; }
  EXPECT_THROW((void)find_health("", dir / "bad.health", snap), HealthFileError);
  std::filesystem::remove_all(dir);
}
