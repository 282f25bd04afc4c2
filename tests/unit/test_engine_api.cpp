// SPDX-License-Identifier: GPL-2.0-or-later
// The placement engine at the C edge, as topology/fabricfit drives it: a snapshot of a
// generated fabric loaded, hosts looked up by Slurm node name, a placement chosen.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "capi/fabricfit_api.h"
#include "topology/clos_generator.hpp"
#include "topology/fabric_builder.hpp"
#include "topology/ibnetdiscover_reader.hpp"
#include "topology/snapshot.hpp"

namespace fs = std::filesystem;

namespace {

class EngineApi : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ff-engine-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    fabricfit::ClosSpec spec;  // 4 leaf groups of 8 hosts, gpu001..gpu032
    const auto raw = fabricfit::read_ibnetdiscover_text(fabricfit::generate_ibnetdiscover(spec), "generated");
    fabricfit::save_snapshot(snapshot_, fabricfit::build_fabric(raw, fabricfit::ModelOptions{}),
                             fabricfit::SnapshotInfo{});
    char err[512] = "";
    ASSERT_EQ(ff_engine_load(snapshot_.c_str(), &engine_, err, sizeof err), FF_OK) << err;
    hosts_ = ff_engine_host_count(engine_);
    free_.assign(hosts_, 8);
    total_.assign(hosts_, 8);
    allowed_.assign(hosts_, 1);
  }
  void TearDown() override {
    ff_engine_free(engine_);
    fs::remove_all(dir_);
  }
  int host(const char* name) const { return ff_engine_host(engine_, name); }
  // Leaf group of a generated host: 8 per leaf in name order.
  static int leaf_of(const std::string& name) { return (std::stoi(name.substr(3)) - 1) / 8; }

  fs::path dir_;
  fs::path snapshot_ =
      fs::temp_directory_path() / ("ff-engine-" + std::to_string(::getpid())) / "fabric.snap";
  ff_engine_t* engine_ = nullptr;
  int hosts_ = 0;
  std::vector<int> free_, total_;
  std::vector<unsigned char> allowed_;
};

// A two-tier fabric of `leaves` leaf groups of `hosts` hosts, `uplinks` cables up from each.
fabricfit::ClosSpec clos(int leaves, int hosts, int uplinks) {
  fabricfit::ClosSpec spec;
  spec.leaves = leaves;
  spec.hosts_per_leaf = hosts;
  spec.uplinks = uplinks;
  return spec;
}

// An engine on a generated fabric, in a directory of its own that goes with it.
struct GeneratedEngine {
  GeneratedEngine(const fabricfit::ClosSpec& spec, const std::string& tag)
      : dir(fs::temp_directory_path() / ("ff-engine-" + tag + "-" + std::to_string(::getpid()))) {
    fs::create_directories(dir);
    const auto snap = dir / "fabric.snap";
    const auto raw = fabricfit::read_ibnetdiscover_text(fabricfit::generate_ibnetdiscover(spec), "generated");
    fabricfit::save_snapshot(snap, fabricfit::build_fabric(raw, fabricfit::ModelOptions{}),
                             fabricfit::SnapshotInfo{});
    char err[512] = "";
    if (ff_engine_load(snap.c_str(), &engine, err, sizeof err) != FF_OK) ADD_FAILURE() << err;
  }
  GeneratedEngine(const GeneratedEngine&) = delete;
  GeneratedEngine& operator=(const GeneratedEngine&) = delete;
  ~GeneratedEngine() {
    ff_engine_free(engine);
    fs::remove_all(dir);
  }
  [[nodiscard]] int host(const char* name) const { return ff_engine_host(engine, name); }

  fs::path dir;
  ff_engine_t* engine = nullptr;
};

}  // namespace

TEST_F(EngineApi, FindsSlurmNodesAndRanksThemByLeafGroup) {
  EXPECT_EQ(hosts_, 32);
  ASSERT_GE(host("gpu001"), 0);
  EXPECT_EQ(host("gpu999"), -1);
  EXPECT_EQ(host(nullptr), -1);
  EXPECT_STREQ(ff_engine_host_name(engine_, host("gpu017")), "gpu017");
  EXPECT_EQ(ff_engine_host_name(engine_, hosts_), nullptr);
  std::set<int> ranks;
  for (int h = 0; h < hosts_; ++h) ranks.insert(ff_engine_host_rank(engine_, h));
  EXPECT_EQ(ranks.size(), 32u);
  // The 8 hosts of one leaf group hold 8 consecutive ranks.
  std::set<int> leaf1;
  for (const char* n : {"gpu001", "gpu002", "gpu003", "gpu004", "gpu005", "gpu006", "gpu007", "gpu008"}) {
    leaf1.insert(ff_engine_host_rank(engine_, host(n)));
  }
  EXPECT_EQ(*leaf1.rbegin() - *leaf1.begin(), 7);
}

// get_rank on Slurm 26.05 orders a job's tasks by these leaf groups.
TEST_F(EngineApi, NamesEachHostsLeafGroupInRankOrder) {
  for (const char* n : {"gpu001", "gpu008", "gpu009", "gpu017", "gpu032"}) {
    EXPECT_EQ(ff_engine_host_leaf_group(engine_, host(n)) >= 0, true) << n;
  }
  EXPECT_EQ(ff_engine_host_leaf_group(engine_, host("gpu001")),
            ff_engine_host_leaf_group(engine_, host("gpu008")));
  EXPECT_NE(ff_engine_host_leaf_group(engine_, host("gpu008")),
            ff_engine_host_leaf_group(engine_, host("gpu009")));
  std::set<int> groups;
  for (int h = 0; h < hosts_; ++h) groups.insert(ff_engine_host_leaf_group(engine_, h));
  EXPECT_EQ(groups, (std::set<int>{0, 1, 2, 3}));
  // A lower leaf group always holds lower ranks: the two orders agree.
  for (int a = 0; a < hosts_; ++a) {
    for (int b = 0; b < hosts_; ++b) {
      if (ff_engine_host_leaf_group(engine_, a) < ff_engine_host_leaf_group(engine_, b)) {
        EXPECT_LT(ff_engine_host_rank(engine_, a), ff_engine_host_rank(engine_, b));
      }
    }
  }
  EXPECT_EQ(ff_engine_host_leaf_group(engine_, -1), -1);
  EXPECT_EQ(ff_engine_host_leaf_group(engine_, hosts_), -1);
  EXPECT_EQ(ff_engine_host_leaf_group(nullptr, 0), -1);
}

TEST_F(EngineApi, PlacesAJobInOneLeafGroupWhereFirstFitWouldSplitIt) {
  // gpu001-004 busy: first fit would take gpu005-012 over two leaves.
  for (const char* n : {"gpu001", "gpu002", "gpu003", "gpu004"}) free_[host(n)] = 0;
  ff_request_t req{8, 8, 8, 0, 0, "alltoall"};
  std::vector<int> chosen(hosts_);
  unsigned n = 0;
  char summary[512] = "", err[512] = "";
  ASSERT_EQ(ff_engine_place(engine_, &req, allowed_.data(), free_.data(), total_.data(), chosen.data(), &n,
                            summary, sizeof summary, err, sizeof err),
            FF_OK)
      << err;
  ASSERT_EQ(n, 8u);
  std::set<int> leaves;
  for (unsigned i = 0; i < n; ++i) {
    leaves.insert(ff_engine_host_rank(engine_, chosen[i]) / 8);
  }
  EXPECT_EQ(leaves.size(), 1u) << summary;
  EXPECT_NE(std::string(summary).find("leaf_groups=1 "), std::string::npos) << summary;
}

TEST_F(EngineApi, OnlyAllowedHostsAreChosenAndNoFitIsNotAnError) {
  std::fill(allowed_.begin(), allowed_.end(), 0);
  for (const char* n : {"gpu010", "gpu020"}) allowed_[host(n)] = 1;
  ff_request_t req{2, 2, 8, 0, 0, "ring"};
  std::vector<int> chosen(hosts_);
  unsigned n = 0;
  char summary[512] = "", err[512] = "";
  ASSERT_EQ(ff_engine_place(engine_, &req, allowed_.data(), free_.data(), total_.data(), chosen.data(), &n,
                            summary, sizeof summary, err, sizeof err),
            FF_OK);
  EXPECT_EQ(std::set<int>(chosen.begin(), chosen.begin() + n),
            (std::set<int>{host("gpu010"), host("gpu020")}));
  ff_request_t three{3, 3, 8, 0, 0, "ring"};
  EXPECT_EQ(ff_engine_place(engine_, &three, allowed_.data(), free_.data(), total_.data(), chosen.data(), &n,
                            summary, sizeof summary, err, sizeof err),
            FF_ENOFIT);
  ff_request_t bad{2, 2, 8, 0, 0, "rings"};
  EXPECT_EQ(ff_engine_place(engine_, &bad, allowed_.data(), free_.data(), total_.data(), chosen.data(), &n,
                            summary, sizeof summary, err, sizeof err),
            FF_EINVAL);
  EXPECT_NE(std::string(err).find("unknown pattern"), std::string::npos);
}

TEST_F(EngineApi, FragmentationCountsStrandedGpus) {
  double share = -1, unusable = -1;
  char err[256] = "";
  ASSERT_EQ(ff_engine_fragmentation(engine_, free_.data(), total_.data(), &share, &unusable, err, sizeof err),
            FF_OK);
  EXPECT_DOUBLE_EQ(unusable, 0.0) << "an idle cluster wastes nothing";
  // 7 free GPUs on every host: no 8-GPU job fits anywhere.
  std::fill(free_.begin(), free_.end(), 7);
  ASSERT_EQ(ff_engine_fragmentation(engine_, free_.data(), total_.data(), &share, &unusable, err, sizeof err),
            FF_OK);
  EXPECT_GT(share, 0.0);
  EXPECT_GT(unusable, 0.0);
}

TEST(EngineApiLoad, BadSnapshotIsRefusedWithItsName) {
  const auto path = fs::temp_directory_path() / ("ff-engine-bad-" + std::to_string(::getpid()));
  std::ofstream(path) << "not a snapshot";
  ff_engine_t* engine = reinterpret_cast<ff_engine_t*>(0x1);
  char err[512] = "";
  EXPECT_EQ(ff_engine_load(path.c_str(), &engine, err, sizeof err), FF_EINVAL);
  EXPECT_EQ(engine, nullptr);
  EXPECT_NE(std::string(err).find(path.string()), std::string::npos) << err;
  fs::remove(path);
  EXPECT_EQ(ff_engine_load("/nonexistent/fabric.snap", &engine, err, sizeof err), FF_EINVAL);
}

// LocalityWaitRouting reaches the run-time model: on a 2:1 fabric (two leaf groups of 4
// hosts, 2 uplink cables each), a ring gpu001-gpu005 is running and a ring gpu002-gpu007
// is offered. Both send towards gpu005 and gpu007, which static routes (destination mod
// cables) pin to the same cable of the second group: each gets half its demand (rho 0.5,
// slowdown 1 + f). ECMP spreads them over both cables: no slowdown. The running job is
// priced again when the setting changes, both ways.
TEST(EngineApiWait, LocalityWaitRoutingPricesRunningJobsAgain) {
  const GeneratedEngine generated(clos(2, 4, 2), "routing");
  ff_engine_t* engine = generated.engine;
  ASSERT_NE(engine, nullptr);
  const int n = ff_engine_host_count(engine);
  ASSERT_EQ(n, 8);
  const auto h = [&](const char* name) { return generated.host(name); };
  char err[512] = "";
  ff_request_t req{2, 2, 8, 16, 0, "ring"};
  const int running[] = {h("gpu001"), h("gpu005")};
  ASSERT_EQ(ff_engine_running_add(engine, 41, &req, running, 2, err, sizeof err), FF_OK) << err;

  std::vector<int> free_gpus(n, 8), total(n, 8), hosts(n);
  free_gpus[running[0]] = free_gpus[running[1]] = 0;
  std::vector<unsigned char> usable(n, 1);
  std::vector<double> free_at(n, 0.0);
  free_at[running[0]] = free_at[running[1]] = 1000.0 + 600;
  const int placed[] = {h("gpu002"), h("gpu007")};
  const auto slowdown = [&](int static_routing) {
    ff_wait_facts_t facts{};
    facts.now = facts.eligible = 1000.0;
    facts.time_limit_s = 3600;
    facts.comm_share = 0.3;
    facts.cap_s = 3600;
    EXPECT_EQ(ff_engine_use_routing(engine, static_routing, err, sizeof err), FF_OK) << err;
    ff_wait_advice_t advice{};
    EXPECT_EQ(ff_engine_wait_advice(engine, &req, placed, 2, usable.data(), free_gpus.data(), total.data(),
                                    free_at.data(), &facts, &advice, hosts.data(), err, sizeof err),
              FF_OK)
        << err;
    return advice.slowdown_now;
  };
  EXPECT_NEAR(slowdown(0), 1.0, 1e-9);
  EXPECT_NEAR(slowdown(1), 1.3, 1e-9);
  EXPECT_EQ(ff_engine_running_jobs(engine, nullptr, 0), 1u) << "the running job is kept across the change";
  EXPECT_NEAR(slowdown(0), 1.0, 1e-9);
  // Alone (the running job gone), static routes do not collide: one flow per cable.
  ASSERT_EQ(ff_engine_running_remove(engine, 41, err, sizeof err), FF_OK) << err;
  EXPECT_NEAR(slowdown(1), 1.0, 1e-9);
}

// A split job is placed beside the registered running jobs (the hand case of
// test_selector_running.cpp, through the C edge): three leaf groups of 4 hosts with 2
// uplink cables each, one free host per group (gpu001, gpu005, gpu010), a ring running on
// gpu003 and gpu008. A 2-host ring must split. Its cheapest plan, gpu001 + gpu005, sends
// towards gpu001 on the cable of leaf-02 that the running ring's flow towards gpu003
// fills (static routes: destination mod cables), so gpu005 + gpu010 is taken, whose flows
// use the other cables. Under ECMP both groups' bundles have room: the cheapest plan.
TEST(EngineApiPlace, SplitJobIsPlacedOffTheCablesARunningJobFills) {
  const GeneratedEngine generated(clos(3, 4, 2), "beside");
  ff_engine_t* engine = generated.engine;
  ASSERT_NE(engine, nullptr);
  const int n = ff_engine_host_count(engine);
  ASSERT_EQ(n, 12);
  const auto h = [&](const char* name) { return generated.host(name); };
  char err[512] = "";
  std::vector<int> free_gpus(n, 0), total(n, 8), chosen(n);
  for (const char* name : {"gpu001", "gpu005", "gpu010"}) free_gpus[h(name)] = 8;
  std::vector<unsigned char> allowed(n, 1);
  ff_request_t ring{2, 2, 8, 0, 0, "ring"};
  // place ROUTING: the chosen hosts' names and the summary's uplink_share word ("" if none).
  const auto place = [&](int static_routing) {
    EXPECT_EQ(ff_engine_use_routing(engine, static_routing, err, sizeof err), FF_OK) << err;
    unsigned nchosen = 0;
    char summary[512] = "";
    EXPECT_EQ(ff_engine_place(engine, &ring, allowed.data(), free_gpus.data(), total.data(), chosen.data(),
                              &nchosen, summary, sizeof summary, err, sizeof err),
              FF_OK)
        << err;
    std::set<std::string> names;
    for (unsigned i = 0; i < nchosen; ++i) names.insert(ff_engine_host_name(engine, chosen[i]));
    const std::string words(summary);
    const auto at = words.find("uplink_share=");
    return std::pair{names, at == std::string::npos ? std::string() : words.substr(at)};
  };
  const std::set<std::string> cheapest{"gpu001", "gpu005"}, off_busy{"gpu005", "gpu010"};
  EXPECT_EQ(place(1), std::pair(cheapest, std::string())) << "nothing running: blind";

  const int running[] = {h("gpu003"), h("gpu008")};
  ASSERT_EQ(ff_engine_running_add(engine, 7, &ring, running, 2, err, sizeof err), FF_OK) << err;
  EXPECT_EQ(place(1), std::pair(off_busy, std::string("uplink_share=1")));
  EXPECT_EQ(place(0), std::pair(cheapest, std::string("uplink_share=1"))) << "ECMP: room on both bundles";
  EXPECT_EQ(place(1), std::pair(off_busy, std::string("uplink_share=1"))) << "back to static routes";
  ASSERT_EQ(ff_engine_running_remove(engine, 7, err, sizeof err), FF_OK) << err;
  EXPECT_EQ(place(1), std::pair(cheapest, std::string()));
}

TEST(EngineApiTres, GpusFromSlurmTresStrings) {
  EXPECT_EQ(ff_tres_gpus("gres/gpu:8"), 8u);
  EXPECT_EQ(ff_tres_gpus("gres/gpu:h100:4"), 4u);
  EXPECT_EQ(ff_tres_gpus("cpu=4,gres/gpu:2,gres/shard:3"), 2u);
  EXPECT_EQ(ff_tres_gpus("gres/gpuish:3"), 0u);
  EXPECT_EQ(ff_tres_gpus("gres/shard:3"), 0u);
  EXPECT_EQ(ff_tres_gpus(nullptr), 0u);
  EXPECT_EQ(ff_tres_gpus(""), 0u);
}
