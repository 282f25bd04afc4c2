// SPDX-License-Identifier: GPL-2.0-or-later
// The fabric's health in placement (placement/selection/health_view.hpp and the C edge
// slurmctld uses, capi/health_api.cpp): a health file written by the real writer for a
// generated fabric (4 leaf groups of 8 hosts, gpu001..gpu032), its view, and the engine
// placing by it.
#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "../cli/health_fixture.hpp"
#include "capi/fabricfit_api.h"
#include "generated_fabric.hpp"
#include "pattern_value.hpp"
#include "placement/locality_index.hpp"
#include "placement/selection/health_view.hpp"
#include "topology/snapshot.hpp"

namespace fs = std::filesystem;
using namespace fabricfit;
using fabricfit::testing::BadCable;
using fabricfit::testing::health_file_of;

namespace {

Fabric clos4x8() {
  return fabricfit::testing::generated_fabric(ClosSpec{});
}

// The name of leaf group g's leaf switch (for a BadCable on its uplink).
std::string leaf_of_group(const Fabric& f, int g) {
  for (Vertex v = 0; v < boost::num_vertices(f.graph); ++v) {
    const auto& p = f.graph[v];
    if (p.kind == VertexKind::Switch && p.tier == SwitchTier::Leaf && p.leaf_group == g) return p.name;
  }
  throw std::logic_error("no leaf in group " + std::to_string(g));
}

}  // namespace

TEST(HealthView, FlappingAndDownAreFailingSubHealthyAndCongestedDegraded) {
  EXPECT_EQ(part_health(HealthState::Flapping), PartHealth::Failing);
  EXPECT_EQ(part_health(HealthState::Down), PartHealth::Failing);
  EXPECT_EQ(part_health(HealthState::SubHealthy), PartHealth::Degraded);
  EXPECT_EQ(part_health(HealthState::Congested), PartHealth::Degraded);
  EXPECT_EQ(part_health(HealthState::Healthy), PartHealth::Healthy);

  const Fabric f = clos4x8();
  const LocalityIndex index(f);
  const HealthFile h = health_file_of(f, {{.host = "gpu003", .state = HealthState::Flapping},
                                          {.host = "gpu012", .state = HealthState::Congested},
                                          {.leaf = leaf_of_group(f, 2), .state = HealthState::SubHealthy},
                                          {.leaf = leaf_of_group(f, 3), .state = HealthState::Down}});
  const FabricHealthView v = build_health_view(f, h);
  ASSERT_EQ(v.host_link.size(), 32u);
  ASSERT_EQ(v.uplinks.size(), 4u);
  EXPECT_EQ(v.host_link[*index.find_host("gpu003")], PartHealth::Failing);
  EXPECT_EQ(v.host_link[*index.find_host("gpu012")], PartHealth::Degraded);
  EXPECT_EQ(std::ranges::count(v.host_link, PartHealth::Healthy), 30);
  EXPECT_EQ(v.uplinks, (std::vector<PartHealth>{PartHealth::Healthy, PartHealth::Healthy,
                                                PartHealth::Degraded, PartHealth::Failing}));
  EXPECT_TRUE(build_health_view(f, health_file_of(f, {})).all_healthy());
}

TEST(HealthView, AnotherFabricsFileIsRefused) {
  const Fabric f = clos4x8();
  const Fabric other = fabricfit::testing::generated_fabric(
      fabricfit::testing::clos_spec({.leaves = 2, .hosts_per_leaf = 4, .uplinks = 2}));
  HealthFile h = health_file_of(other, {{.host = "gpu003", .state = HealthState::Flapping}});
  // Its GUIDs are not this fabric's: make sure, whatever the generator's numbering.
  for (auto& p : h.ports) p.id.guid ^= 0x5a5a000000000000ULL;
  for (auto& l : h.links) {
    l.a_guid ^= 0x5a5a000000000000ULL;
    l.b_guid ^= 0x5a5a000000000000ULL;
  }
  EXPECT_THROW((void)build_health_view(f, h), HealthViewError);
  // The links alone (no ports swept): an uplink no cable of this fabric has.
  HealthFile links_only = h;
  links_only.ports.clear();
  for (auto& l : links_only.links) l.host.clear();
  EXPECT_THROW((void)build_health_view(f, links_only), HealthViewError);
  // This fabric's own file is taken.
  EXPECT_NO_THROW((void)build_health_view(f, health_file_of(f, {{.host = "gpu003"}})));
}

TEST(HealthView, StaleAfterMaxAgeNeverWithZero) {
  HealthFile h;
  h.sweep_unix = 1000;
  EXPECT_FALSE(health_stale(h, 1180, 180));
  EXPECT_TRUE(health_stale(h, 1181, 180));
  EXPECT_FALSE(health_stale(h, 1'000'000, 0));
}

namespace {

// The engine over the generated fabric, and a health file for it on disk.
class HealthApi : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(dir_);
    fabric_ = clos4x8();
    save_snapshot(dir_ / "fabric.snap", fabric_, SnapshotInfo{});
    char err[512] = "";
    ASSERT_EQ(ff_engine_load((dir_ / "fabric.snap").c_str(), &engine_, err, sizeof err), FF_OK) << err;
    hosts_ = ff_engine_host_count(engine_);
    free_.assign(hosts_, 8);
    total_.assign(hosts_, 8);
    allowed_.assign(hosts_, 1);
  }
  void TearDown() override {
    ff_engine_free(engine_);
    fs::remove_all(dir_);
  }
  // Writes a health file with `bad` and has the engine place by it.
  void use(const std::vector<BadCable>& bad) {
    const fs::path file = dir_ / "fabric.health";
    (void)health_file_of(fabric_, bad, file);
    ff_health_t* h = nullptr;
    char err[512] = "";
    ASSERT_EQ(ff_health_load(file.c_str(), &h, err, sizeof err), FF_OK) << err;
    ASSERT_EQ(ff_engine_use_health(engine_, h, err, sizeof err), FF_OK) << err;
    ff_health_free(h);
  }
  // Has the engine place by `file`, written and read back by the real writer.
  void use_file(const HealthFile& file) {
    const fs::path path = dir_ / "nvlink.health";
    save_health(path, file);
    ff_health_t* h = nullptr;
    char err[512] = "";
    ASSERT_EQ(ff_health_load(path.c_str(), &h, err, sizeof err), FF_OK) << err;
    ASSERT_EQ(ff_engine_use_health(engine_, h, err, sizeof err), FF_OK) << err;
    ff_health_free(h);
  }
  int place(unsigned nodes, unsigned gpus, std::set<std::string>* names) {
    ff_request_t req{nodes, nodes, gpus, 0, 0, pattern_value(nodes > 1 ? "ring" : "none")};
    std::vector<int> chosen(hosts_);
    unsigned n = 0;
    err_[0] = summary_[0] = '\0';
    const int rc = ff_engine_place(engine_, &req, allowed_.data(), free_.data(), total_.data(), chosen.data(),
                                   &n, summary_, sizeof summary_, err_, sizeof err_);
    names->clear();
    for (unsigned i = 0; i < n; ++i) names->insert(ff_engine_host_name(engine_, chosen[i]));
    return rc;
  }
  // Only the hosts named may be used.
  void allow_only(std::initializer_list<const char*> names) {
    std::fill(allowed_.begin(), allowed_.end(), 0);
    for (const char* n : names) allowed_[ff_engine_host(engine_, n)] = 1;
  }
  // With gpu003 degraded and gpu004 failing (their HCA link or their NVLink): a 2-node job
  // that only fits on gpu001+gpu003 takes gpu003; one that only fits across gpu004 waits.
  void expect_degraded_taken_failing_waits() {
    std::set<std::string> got;
    allow_only({"gpu001", "gpu003"});
    ASSERT_EQ(place(2, 8, &got), FF_OK) << err_;
    EXPECT_EQ(got, (std::set<std::string>{"gpu001", "gpu003"}));
    EXPECT_NE(summary().find(" health=took_degraded"), std::string::npos) << summary();
    allow_only({"gpu001", "gpu004"});
    EXPECT_EQ(place(2, 8, &got), FF_EHEALTH);
    EXPECT_EQ(summary(), "health=waits");
    EXPECT_TRUE(got.empty());
  }
  std::string summary() const { return summary_; }

  fs::path dir_ = fs::temp_directory_path() / ("ff-health-api-" + std::to_string(::getpid()));
  Fabric fabric_;
  ff_engine_t* engine_ = nullptr;
  int hosts_ = 0;
  std::vector<int> free_, total_;
  std::vector<unsigned char> allowed_;
  char summary_[512] = "", err_[512] = "";
};

}  // namespace

TEST_F(HealthApi, MultiHostJobIsKeptOffAFlappingHostAOneHostJobIsNot) {
  // Group 0 (gpu001-008) is the only one with room; the host the job gets when all is
  // healthy is the one whose link flaps.
  for (int h = 8; h < hosts_; ++h) free_[h] = 0;
  std::set<std::string> got;
  ASSERT_EQ(place(4, 8, &got), FF_OK) << err_;
  ASSERT_EQ(got.size(), 4u);
  const std::string flapping = *got.begin();
  use({{.host = flapping, .state = HealthState::Flapping}});
  ASSERT_EQ(place(4, 8, &got), FF_OK) << err_;
  EXPECT_EQ(got.size(), 4u);
  EXPECT_FALSE(got.contains(flapping)) << summary();
  EXPECT_NE(summary().find(" health=kept_off"), std::string::npos) << summary();
  // A one-GPU job crosses no link: placed as if all were healthy, on that host too.
  allow_only({flapping.c_str()});
  ASSERT_EQ(place(1, 1, &got), FF_OK) << err_;
  EXPECT_EQ(got, std::set<std::string>{flapping});
  EXPECT_EQ(summary().find("health="), std::string::npos) << summary();
}

TEST_F(HealthApi, AHostWhoseNvlinkFailsIsKeptOffEveryJobThatCrossesIt) {
  for (int h = 8; h < hosts_; ++h) free_[h] = 0;
  std::set<std::string> got;
  ASSERT_EQ(place(4, 8, &got), FF_OK) << err_;
  const std::string failing = *got.begin();
  HealthFile file = health_file_of(fabric_, {});
  file.nvlink_report = "/var/lib/fabricfit/nvlink";
  file.nvlink = {{failing, HealthState::Down, 900, "GPU 00000008:01:00.0: Route Unhealthy True", "r:5"},
                 {"gpu999", HealthState::Down, 900, "not a host of this fabric: ignored", "r:5"}};
  use_file(file);
  char desc[256] = "";
  ff_engine_health_describe(engine_, desc, sizeof desc);
  EXPECT_STREQ(
      desc,
      "hosts_failing=0 hosts_degraded=0 leaf_groups_failing=0 leaf_groups_degraded=0 nvlink_failing=1 "
      "nvlink_degraded=0");
  ASSERT_EQ(place(4, 8, &got), FF_OK) << err_;
  EXPECT_EQ(got.size(), 4u);
  EXPECT_FALSE(got.contains(failing)) << summary();
  EXPECT_NE(summary().find(" health=kept_off"), std::string::npos) << summary();
  // One host, two GPUs: they talk over the host's NVLink, so it is kept off too; one GPU
  // talks to none, and lands there.
  const std::string other = failing == "gpu008" ? "gpu007" : "gpu008";
  allow_only({failing.c_str(), other.c_str()});
  ASSERT_EQ(place(1, 2, &got), FF_OK) << err_;
  EXPECT_EQ(got, std::set<std::string>{other}) << summary();
  EXPECT_NE(summary().find(" health=kept_off"), std::string::npos) << summary();
  allow_only({failing.c_str()});
  EXPECT_EQ(place(1, 2, &got), FF_EHEALTH);
  ASSERT_EQ(place(1, 1, &got), FF_OK) << err_;
  EXPECT_EQ(got, std::set<std::string>{failing});
  EXPECT_EQ(summary().find("health="), std::string::npos) << summary();

  // Degraded NVLink (bandwidth): taken when nothing else fits; failing: the job waits.
  file.nvlink = {{"gpu003", HealthState::SubHealthy, 900, "GPU 00000009:01:00.0: Bandwidth Degraded", "r:5"},
                 {"gpu004", HealthState::Down, 900, "GPU 00000009:01:00.0: Route Unhealthy True", "r:5"}};
  use_file(file);
  expect_degraded_taken_failing_waits();
}

TEST_F(HealthApi, DegradedIsTakenWhenNothingElseFitsFailingWaits) {
  use({{.host = "gpu003", .state = HealthState::SubHealthy}, {.host = "gpu004", .state = HealthState::Down}});
  expect_degraded_taken_failing_waits();
  std::set<std::string> got;
  // All healthy again (no file): the same request is placed.
  char err[64] = "";
  ASSERT_EQ(ff_engine_use_health(engine_, nullptr, err, sizeof err), FF_OK);
  EXPECT_EQ(place(2, 8, &got), FF_OK);
  EXPECT_EQ(summary().find("health="), std::string::npos) << summary();
}

TEST_F(HealthApi, UplinkErrorsSteerASplitJobOffThatLeafGroup) {
  // Groups 0-2 offered (24 hosts), 12 wanted: a split over two of them. The first group
  // the split uses when all is healthy gets uplink errors.
  for (int h = 24; h < hosts_; ++h) allowed_[h] = 0;
  const LocalityIndex index(fabric_);
  std::set<std::string> got;
  ASSERT_EQ(place(12, 8, &got), FF_OK) << err_;
  ASSERT_EQ(got.size(), 12u);
  const int bad = index.leaf_group_of(*index.find_host(*got.begin()));
  use({{.leaf = leaf_of_group(fabric_, bad), .state = HealthState::Flapping}});
  ASSERT_EQ(place(12, 8, &got), FF_OK) << err_;
  ASSERT_EQ(got.size(), 12u);
  for (const auto& n : got) EXPECT_NE(index.leaf_group_of(*index.find_host(n)), bad) << n << " " << summary();
  EXPECT_NE(summary().find(" health=kept_off"), std::string::npos) << summary();
  // A job inside that group crosses none of its uplinks: it may land there.
  std::vector<const char*> names;
  for (const int h : index.hosts_of(bad)) names.push_back(index.host_name(h).c_str());
  std::fill(allowed_.begin(), allowed_.end(), 0);
  for (const char* n : names) allowed_[ff_engine_host(engine_, n)] = 1;
  ASSERT_EQ(place(2, 8, &got), FF_OK) << err_;
  EXPECT_EQ(got.size(), 2u);
  EXPECT_EQ(summary().find("health="), std::string::npos) << summary();
}

TEST_F(HealthApi, BadFilesAreRefusedAtTheEdgeAndKeepTheViewInUse) {
  use({{.host = "gpu003", .state = HealthState::Flapping}});
  char desc[256] = "";
  ff_engine_health_describe(engine_, desc, sizeof desc);
  EXPECT_STREQ(desc, "hosts_failing=1 hosts_degraded=0 leaf_groups_failing=0 leaf_groups_degraded=0");
  const fs::path garbled = dir_ / "garbled.health";
  std::ofstream(garbled) << "not a health file";
  ff_health_t* h = nullptr;
  char err[512] = "";
  EXPECT_EQ(ff_health_load(garbled.c_str(), &h, err, sizeof err), FF_EINVAL);
  EXPECT_EQ(h, nullptr);
  EXPECT_NE(std::string(err).find(garbled.string()), std::string::npos) << err;
  EXPECT_EQ(ff_health_load((dir_ / "missing.health").c_str(), &h, err, sizeof err), FF_EINVAL);

  // Another fabric's file: FF_EINVAL, and the engine keeps its view.
  const Fabric other = fabricfit::testing::generated_fabric(
      fabricfit::testing::clos_spec({.leaves = 2, .hosts_per_leaf = 4, .uplinks = 2}));
  HealthFile theirs = health_file_of(other, {{.host = "gpu001"}});
  for (auto& p : theirs.ports) p.id.guid ^= 0x5a5a000000000000ULL;
  save_health(dir_ / "theirs.health", theirs);
  ASSERT_EQ(ff_health_load((dir_ / "theirs.health").c_str(), &h, err, sizeof err), FF_OK) << err;
  EXPECT_EQ(ff_engine_use_health(engine_, h, err, sizeof err), FF_EINVAL);
  EXPECT_NE(std::string(err).find("another fabric"), std::string::npos) << err;
  ff_engine_health_describe(engine_, desc, sizeof desc);
  EXPECT_STREQ(desc, "hosts_failing=1 hosts_degraded=0 leaf_groups_failing=0 leaf_groups_degraded=0");
  EXPECT_EQ(ff_health_stale(h, ff_health_sweep_time(h) + 181, 180), 1);
  EXPECT_EQ(ff_health_stale(h, ff_health_sweep_time(h) + 180, 180), 0);
  EXPECT_EQ(ff_health_stale(h, ff_health_sweep_time(h) + 100000, 0), 0);
  ff_health_free(h);
}

TEST(HealthApiPath, ConfHealthFileElseBesideTheSnapshot) {
  ff_settings_t s{};
  char out[FF_PATH_MAX];
  snprintf(s.snapshot_file, sizeof s.snapshot_file, "/var/lib/fabricfit/fabric.snapshot");
  ff_health_path(&s, out, sizeof out);
  EXPECT_STREQ(out, "/var/lib/fabricfit/fabric.health");
  snprintf(s.health_file, sizeof s.health_file, "/run/ff/h");
  ff_health_path(&s, out, sizeof out);
  EXPECT_STREQ(out, "/run/ff/h");
  char err[256] = "";
  ASSERT_EQ(ff_settings_load("/nonexistent/fabricfit.conf", nullptr, &s, err, sizeof err), FF_OK) << err;
  EXPECT_EQ(s.health_max_age_s, 180);
  EXPECT_STREQ(s.health_file, "");
}
