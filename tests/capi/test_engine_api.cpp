// SPDX-License-Identifier: GPL-2.0-or-later
// The placement engine at the C edge, as topology/fabricfit drives it: a snapshot of a
// generated fabric loaded, hosts looked up by Slurm node name, a placement chosen.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "capi/fabricfit_api.h"
#include "generated_fabric.hpp"
#include "pattern_value.hpp"
#include "topology/snapshot.hpp"

namespace fs = std::filesystem;

namespace {

class EngineApi : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ff-engine-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    fabricfit::ClosSpec spec;  // 4 leaf groups of 8 hosts, gpu001..gpu032
    fabricfit::save_snapshot(snapshot_, fabricfit::testing::generated_fabric(spec),
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
  return fabricfit::testing::clos_spec({.leaves = leaves, .hosts_per_leaf = hosts, .uplinks = uplinks});
}

// An engine on a generated fabric, in a directory of its own that goes with it.
struct GeneratedEngine {
  GeneratedEngine(const fabricfit::ClosSpec& spec, const std::string& tag)
      : dir(fs::temp_directory_path() / ("ff-engine-" + tag + "-" + std::to_string(::getpid()))) {
    fs::create_directories(dir);
    const auto snap = dir / "fabric.snap";
    fabricfit::save_snapshot(snap, fabricfit::testing::generated_fabric(spec), fabricfit::SnapshotInfo{});
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

// What ff_engine_wait_advice reads of a cluster: every host 8 GPUs, none free and busy until
// `busy_until` but the ones freed, all usable; asked at now = eligible = 1000 with f = 0.5 and
// a 3600 s cap. `hosts` gets the hosts the job expects.
struct WaitCluster {
  WaitCluster(int n, double busy_until)
      : free_gpus(n, 0), total(n, 8), hosts(n), usable(n, 1), free_at(n, busy_until) {}
  void free_now(int host) {
    free_gpus[host] = 8;
    free_at[host] = 0;
  }
  ff_wait_advice_t ask(ff_engine_t* engine, const ff_request_t& req, const std::vector<int>& placed,
                       double limit) {
    ff_wait_facts_t facts{};
    facts.now = facts.eligible = 1000.0;
    facts.time_limit_s = limit;
    facts.comm_share = 0.5;
    facts.cap_s = 3600;
    ff_wait_advice_t advice{};
    char err[512] = "";
    EXPECT_EQ(ff_engine_wait_advice(engine, &req, placed.data(), static_cast<unsigned>(placed.size()),
                                    usable.data(), free_gpus.data(), total.data(), free_at.data(), &facts,
                                    &advice, hosts.data(), err, sizeof err),
              FF_OK)
        << err;
    return advice;
  }
  std::vector<int> free_gpus, total, hosts;
  std::vector<unsigned char> usable;
  std::vector<double> free_at;
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
  ff_request_t req{8, 8, 8, 0, 0, pattern_value("alltoall")};
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
  ff_request_t req{2, 2, 8, 0, 0, pattern_value("ring")};
  std::vector<int> chosen(hosts_);
  unsigned n = 0;
  char summary[512] = "", err[512] = "";
  ASSERT_EQ(ff_engine_place(engine_, &req, allowed_.data(), free_.data(), total_.data(), chosen.data(), &n,
                            summary, sizeof summary, err, sizeof err),
            FF_OK);
  EXPECT_EQ(std::set<int>(chosen.begin(), chosen.begin() + n),
            (std::set<int>{host("gpu010"), host("gpu020")}));
  ff_request_t three{3, 3, 8, 0, 0, pattern_value("ring")};
  EXPECT_EQ(ff_engine_place(engine_, &three, allowed_.data(), free_.data(), total_.data(), chosen.data(), &n,
                            summary, sizeof summary, err, sizeof err),
            FF_ENOFIT);
  ff_request_t bad{2, 2, 8, 0, 0, ff_pattern_t{.kind = 42, .tp = 1, .pp = 1, .dp = 1}};
  EXPECT_EQ(ff_engine_place(engine_, &bad, allowed_.data(), free_.data(), total_.data(), chosen.data(), &n,
                            summary, sizeof summary, err, sizeof err),
            FF_EINVAL);
  EXPECT_NE(std::string(err).find("unknown pattern kind 42"), std::string::npos) << err;
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
  ff_request_t req{2, 2, 8, 16, 0, pattern_value("ring")};
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
  ff_request_t ring{2, 2, 8, 0, 0, pattern_value("ring")};
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

// The controller forgets the running jobs Slurm no longer runs, and its scans count each
// running job once per engine (ff_engine_running_prune, ff_running_scan_*).
TEST(EngineApiRunning, PruneForgetsEndedJobsAndScansCountOncePerEngine) {
  const GeneratedEngine generated(clos(2, 4, 2), "prune");
  ff_engine_t* engine = generated.engine;
  ASSERT_NE(engine, nullptr);
  const auto h = [&](const char* name) { return generated.host(name); };
  char err[512] = "";
  ff_request_t req{2, 2, 8, 0, 0, pattern_value("ring")};
  const int split_a[] = {h("gpu001"), h("gpu005")}, split_b[] = {h("gpu002"), h("gpu006")};
  ASSERT_EQ(ff_engine_running_add(engine, 41, &req, split_a, 2, err, sizeof err), FF_OK) << err;
  ASSERT_EQ(ff_engine_running_add(engine, 42, &req, split_b, 2, err, sizeof err), FF_OK) << err;
  std::set<std::uint32_t> still_running{42};
  const auto runs = [](void* ctx, uint32_t id) {
    return static_cast<std::set<std::uint32_t>*>(ctx)->count(id) > 0 ? 1 : 0;
  };
  ASSERT_EQ(ff_engine_running_prune(engine, runs, &still_running, err, sizeof err), FF_OK) << err;
  std::uint32_t ids[4] = {};
  ASSERT_EQ(ff_engine_running_jobs(engine, ids, 4), 1u);
  EXPECT_EQ(ids[0], 42u) << "job 41 ended";

  ff_running_scan_t* scan = ff_running_scan_new();
  ASSERT_NE(scan, nullptr);
  EXPECT_EQ(ff_running_scan_due(scan, 1, 1000), 1);
  ASSERT_EQ(ff_running_scan_start(scan, engine, 1, 1000, err, sizeof err), FF_OK) << err;
  EXPECT_EQ(ff_running_scan_should_count(scan, 42, 900), 0) << "held already";
  EXPECT_EQ(ff_running_scan_should_count(scan, 43, 950), 1);
  int fresh = 0, running = 0;
  ASSERT_EQ(ff_running_scan_finish(scan, engine, &fresh, &running, err, sizeof err), FF_OK) << err;
  EXPECT_EQ(fresh, 1);
  EXPECT_EQ(running, 2);
  EXPECT_EQ(ff_running_scan_due(scan, 1, 1005), 0);
  ASSERT_EQ(ff_running_scan_start(scan, engine, 1, 1010, err, sizeof err), FF_OK) << err;
  EXPECT_EQ(ff_running_scan_should_count(scan, 43, 950), 0) << "not counted last time, not tried again";
  ASSERT_EQ(ff_running_scan_finish(scan, engine, &fresh, &running, err, sizeof err), FF_OK) << err;
  EXPECT_EQ(fresh, 0);
  ff_running_scan_free(scan);
}

// Which running jobs load the uplinks (ff_engine_running_count): whatever placed them,
// a GPU job on two leaf groups counts, with the pattern it asked for or the site default;
// a job without GPUs, or one in one leaf group, loads none.
TEST(EngineApiRunning, RunningJobsCountByWhatTheyLoadNotByWhoPlacedThem) {
  const GeneratedEngine generated(clos(2, 4, 2), "count");
  ff_engine_t* engine = generated.engine;
  ASSERT_NE(engine, nullptr);
  const auto h = [&](const char* name) { return generated.host(name); };
  ff_settings_t settings{};
  settings.default_pattern = pattern_value("alltoall");
  char err[512] = "";
  const auto held = [&] {
    std::vector<std::uint32_t> ids(8);
    ids.resize(ff_engine_running_jobs(engine, ids.data(), 8));
    return std::set<std::uint32_t>(ids.begin(), ids.end());
  };
  const int split[] = {h("gpu001"), h("gpu005")}, one_group[] = {h("gpu002"), h("gpu003")};

  ff_job_facts_t pinned{};  // sbatch -w gpu001,gpu005 --gpus-per-node=8: Slurm placed it
  pinned.tres_per_node = "gres/gpu:8";
  pinned.required_nodes = pinned.contiguous = 1;
  ASSERT_EQ(ff_engine_running_count(engine, 51, &pinned, &settings, split, 2, err, sizeof err), FF_OK) << err;
  EXPECT_EQ(held(), (std::set<std::uint32_t>{51})) << "-w and --contiguous jobs load the uplinks too";

  ff_job_facts_t cpus_only{};
  EXPECT_EQ(ff_engine_running_count(engine, 52, &cpus_only, &settings, split, 2, err, sizeof err),
            FF_EDECLINE);
  EXPECT_STREQ(err, "no-gpus");
  ff_job_facts_t in_one_group = pinned;
  EXPECT_EQ(ff_engine_running_count(engine, 53, &in_one_group, &settings, one_group, 2, err, sizeof err),
            FF_OK);
  EXPECT_EQ(held(), (std::set<std::uint32_t>{51})) << "a job in one leaf group is not kept";

  // The pattern changes what a job loads: `none` (asked for) sends nothing between nodes.
  ff_job_facts_t silent = pinned;
  silent.comm_pattern = "none";
  ASSERT_EQ(ff_engine_running_count(engine, 51, &silent, &settings, split, 2, err, sizeof err), FF_OK) << err;
  EXPECT_EQ(held(), (std::set<std::uint32_t>{})) << "counted again as `none`: it loads no uplink";
  silent.comm_pattern = "rings";  // a record from elsewhere: placed, priced and counted as a ring
  ASSERT_EQ(ff_engine_running_count(engine, 51, &silent, &settings, split, 2, err, sizeof err), FF_OK) << err;
  EXPECT_EQ(held(), (std::set<std::uint32_t>{51}));
  EXPECT_EQ(ff_engine_running_count(nullptr, 51, &silent, &settings, split, 2, err, sizeof err),
            FF_EINTERNAL);
}

// The locality waits through the C edge: the callbacks read the queue and receive the
// reasons to show and the node slots to take (ff_wait_book_*).
TEST(EngineApiWait, WaitBookAppliesItsRulesThroughCallbacks) {
  struct Slurm {
    std::map<std::uint32_t, ff_queued_job_t> jobs;
    std::vector<int> taken;
    std::vector<std::string> shown;
  } slurm;
  slurm.jobs[10] = ff_queued_job_t{1, 100};
  ff_wait_book_t* book = ff_wait_book_new();
  ASSERT_NE(book, nullptr);
  char err[256] = "";
  ff_wait_advice_t advice{};
  advice.wait = 1;
  advice.until = 1999.5;
  advice.ready_at = 1500;
  const int nodes[] = {5, 4};
  int changed = 0;
  ASSERT_EQ(
      ff_wait_book_keep(book, 10, &advice, nodes, 2, 32, "waits for gpu[005-006]", &changed, err, sizeof err),
      FF_OK)
      << err;
  EXPECT_EQ(changed, 1);
  EXPECT_EQ(ff_wait_book_next_end(book), 2000);
  EXPECT_STREQ(ff_wait_book_reason(book, 10), "waits for gpu[005-006]");

  const auto find = [](void* ctx, uint32_t id, ff_queued_job_t* out) {
    auto& jobs = static_cast<Slurm*>(ctx)->jobs;
    const auto it = jobs.find(id);
    if (it == jobs.end()) return 0;
    *out = it->second;
    return 1;
  };
  const auto show = [](void* ctx, uint32_t, const char* reason) {
    static_cast<Slurm*>(ctx)->shown.emplace_back(reason);
  };
  const auto take = [](void* ctx, int node) { static_cast<Slurm*>(ctx)->taken.push_back(node); };
  ff_evaluated_job_t later{};
  later.job_id = 11;
  later.priority = 50;
  ff_wait_begin_t begin{};
  ASSERT_EQ(ff_wait_book_begin(book, &later, 1000, 32, 32, find, show, take, &slurm, &begin, err, sizeof err),
            FF_OK)
      << err;
  EXPECT_EQ(slurm.taken, (std::vector<int>{4, 5}));
  EXPECT_EQ(slurm.shown, std::vector<std::string>{"waits for gpu[005-006]"});
  EXPECT_EQ(begin.may_run, 1);
  EXPECT_EQ(begin.schedule, 0);

  ff_evaluated_job_t self{};
  self.job_id = 10;
  self.priority = 100;
  EXPECT_EQ(ff_wait_book_after(book, &self, 0, nullptr, nullptr, 0), FF_WAIT_FORGOT);
  EXPECT_EQ(ff_wait_book_count(book), 0u);
  EXPECT_EQ(ff_wait_book_next_end(book), 0);
  ff_wait_book_free(book);
}

// The locality wait at the C edge on NVLink domains: request.segment decides which leaf
// group the job waits for. 2 leaf groups of 8 hosts, one uplink each (an all-to-all split
// gains much by waiting); domains of 2 consecutive hosts, 4 under each group. Free now:
// gpu001 (nvl0), gpu003 (nvl1), gpu011 (nvl5), gpu015 (nvl7), where the 4-host job, wider
// than a domain, is split now. The first group has 4 hosts by 1060 (gpu005, gpu007), but
// none of its domains two before 5000; the second has nvl5 and nvl7 whole by 1100.
TEST(EngineApiWait, ASegmentedJobWaitsForTheGroupWhoseDomainsHoldIt) {
  const fs::path dir = fs::temp_directory_path() / ("ff-engine-nvl-wait-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto fabric = fabricfit::testing::generated_fabric(
      fabricfit::testing::clos_spec({.leaves = 2, .hosts_per_leaf = 8, .spines = 1, .uplinks = 1}));
  std::vector<fabricfit::NvlinkDomain> domains;
  for (int d = 0; d < 8; ++d) domains.push_back({"nvl" + std::to_string(d), {2 * d, 2 * d + 1}});
  fabricfit::set_nvlink_domains(fabric, domains);
  const auto snap = dir / "fabric.snap";
  fabricfit::save_snapshot(snap, fabric, fabricfit::SnapshotInfo{});
  ff_engine_t* engine = nullptr;
  char err[512] = "";
  ASSERT_EQ(ff_engine_load(snap.c_str(), &engine, err, sizeof err), FF_OK) << err;
  const int n = ff_engine_host_count(engine);
  const auto h = [&](int number) { return ff_engine_host(engine, fmt::format("gpu{:03}", number).c_str()); };
  WaitCluster c(n, 5000.0);
  for (const int number : {1, 3, 11, 15}) c.free_now(h(number));
  for (const int number : {5, 7}) c.free_at[h(number)] = 1060;
  for (const int number : {12, 16}) c.free_at[h(number)] = 1100;
  const std::vector<int> placed{h(1), h(3), h(11), h(15)};
  const auto advise = [&](unsigned segment) {
    return c.ask(engine, ff_request_t{4, 4, 8, 0, 0, pattern_value("alltoall"), segment}, placed, 3600);
  };
  // No segment: wider than a domain, so any 4 hosts in domains: the first group at 1060.
  ff_wait_advice_t a = advise(0);
  EXPECT_STREQ(a.verdict, "waits");
  EXPECT_EQ(a.leaf_group, 0);
  EXPECT_DOUBLE_EQ(a.ready_at, 1060);
  // --segment=2: two hosts of one domain twice; the second group at 1100.
  a = advise(2);
  EXPECT_STREQ(a.verdict, "waits");
  EXPECT_EQ(a.leaf_group, 1);
  EXPECT_DOUBLE_EQ(a.ready_at, 1100);
  std::set<int> expected{h(11), h(12), h(15), h(16)}, got(c.hosts.begin(), c.hosts.begin() + a.nhosts);
  EXPECT_EQ(got, expected);
  EXPECT_EQ(a.leaf_groups, 1U);
  ff_engine_free(engine);
  fs::remove_all(dir);
}

// A job wider than every leaf group waits for the fewest groups at the C edge, and says how
// many (the plugin's reason names them): 3 groups of 6 hosts, one uplink each, an 8-host
// alltoall job spread 3|3|2 now and held 6|2 by groups 1 and 2 at 1060 (the numbers of
// WaitDecision.AWideJobWaitsForTheFewestGroups: slowdown 11/7 now, 19/14 there).
TEST(EngineApiWait, AJobWiderThanAnyGroupWaitsForTheFewestGroups) {
  const fs::path dir = fs::temp_directory_path() / ("ff-engine-wide-wait-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto fabric = fabricfit::testing::generated_fabric(
      fabricfit::testing::clos_spec({.leaves = 3, .hosts_per_leaf = 6, .spines = 1, .uplinks = 1}));
  const auto snap = dir / "fabric.snap";
  fabricfit::save_snapshot(snap, fabric, fabricfit::SnapshotInfo{});
  ff_engine_t* engine = nullptr;
  char err[512] = "";
  ASSERT_EQ(ff_engine_load(snap.c_str(), &engine, err, sizeof err), FF_OK) << err;
  const int n = ff_engine_host_count(engine);
  const auto h = [&](int number) { return ff_engine_host(engine, fmt::format("gpu{:03}", number).c_str()); };
  WaitCluster c(n, 2800.0);
  for (const int number : {1, 2, 3, 7, 8, 9, 13, 14}) c.free_now(h(number));
  for (const int number : {4, 5, 6}) c.free_at[h(number)] = 1060;
  const std::vector<int> placed{h(1), h(2), h(3), h(7), h(8), h(9), h(13), h(14)};
  const auto advise = [&](double limit) {
    return c.ask(engine, ff_request_t{8, 8, 8, 0, 0, pattern_value("alltoall"), 0}, placed, limit);
  };
  ff_wait_advice_t a = advise(600);
  EXPECT_STREQ(a.verdict, "waits");
  EXPECT_EQ(a.wait, 1);
  EXPECT_EQ(a.leaf_groups, 2U);
  EXPECT_NEAR(a.slowdown_now, 11.0 / 7.0, 1e-9);
  EXPECT_NEAR(a.gain_s, 600 * 3.0 / 14.0, 1e-6);
  EXPECT_DOUBLE_EQ(a.ready_at, 1060);
  std::set<int> expected{h(1), h(2), h(3), h(4), h(5), h(6), h(7), h(8)},
      got(c.hosts.begin(), c.hosts.begin() + a.nhosts);
  EXPECT_EQ(got, expected);
  a = advise(200);  // gains 42.9 s, less than the 60 s wait
  EXPECT_STREQ(a.verdict, "wait-exceeds-gain");
  EXPECT_EQ(a.wait, 0);
  ff_engine_free(engine);
  fs::remove_all(dir);
}

// NVLink domains at the C edge: a job that fits a domain waits (FF_EDOMAIN) rather than
// span two, and request.segment keeps every segment inside one domain.
TEST(EngineApiDomains, AJobThatFitsNoDomainNowWaitsAndSegmentsStayInside) {
  const fs::path dir = fs::temp_directory_path() / ("ff-engine-nvl-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto fabric = fabricfit::testing::generated_fabric(clos(2, 8, 8));  // gpu001..gpu016
  std::vector<fabricfit::NvlinkDomain> domains;
  for (int d = 0; d < 4; ++d)
    domains.push_back({"nvl" + std::to_string(d), {4 * d, 4 * d + 1, 4 * d + 2, 4 * d + 3}});
  fabricfit::set_nvlink_domains(fabric, domains);
  const auto snap = dir / "fabric.snap";
  fabricfit::save_snapshot(snap, fabric, fabricfit::SnapshotInfo{});
  ff_engine_t* engine = nullptr;
  char summary[512] = "", err[512] = "";
  ASSERT_EQ(ff_engine_load(snap.c_str(), &engine, err, sizeof err), FF_OK) << err;
  const int hosts = ff_engine_host_count(engine);
  std::vector<int> free(hosts, 8), total(hosts, 8), chosen(hosts);
  std::vector<unsigned char> allowed(hosts, 1);
  const auto domain_of = [](int h) { return h / 4; };  // hosts in name order, as the domains
  unsigned n = 0;
  // Each domain keeps 3 free hosts: 12 free, no 4 in one domain.
  for (int d = 0; d < 4; ++d) free[ff_engine_host(engine, fmt::format("gpu{:03}", 4 * d + 1).c_str())] = 0;
  ff_request_t four{4, 4, 8, 0, 0, pattern_value("ring")};
  EXPECT_EQ(ff_engine_place(engine, &four, allowed.data(), free.data(), total.data(), chosen.data(), &n,
                            summary, sizeof summary, err, sizeof err),
            FF_EDOMAIN);
  EXPECT_STREQ(summary, "domain=waits");
  // 6 nodes in segments of 3: two domains, 3 hosts each.
  ff_request_t six{6, 6, 8, 0, 0, pattern_value("ring"), 3};
  ASSERT_EQ(ff_engine_place(engine, &six, allowed.data(), free.data(), total.data(), chosen.data(), &n,
                            summary, sizeof summary, err, sizeof err),
            FF_OK)
      << err;
  ASSERT_EQ(n, 6u);
  std::map<int, int> per_domain;
  for (unsigned i = 0; i < n; ++i) ++per_domain[domain_of(chosen[i])];
  EXPECT_EQ(per_domain.size(), 2u) << summary;
  for (const auto& [d, count] : per_domain) EXPECT_EQ(count, 3) << "domain " << d;
  EXPECT_NE(std::string(summary).find(" nvlink_domains=2"), std::string::npos) << summary;
  // A segment larger than a domain makes no sense: the error says so.
  ff_request_t eight{8, 8, 8, 0, 0, pattern_value("ring"), 8};
  EXPECT_EQ(ff_engine_place(engine, &eight, allowed.data(), free.data(), total.data(), chosen.data(), &n,
                            summary, sizeof summary, err, sizeof err),
            FF_EINVAL);
  EXPECT_NE(std::string(err).find("--segment=8"), std::string::npos) << err;
  // 13 nodes fit nowhere (12 hosts are free): Slurm's no-fit, not a domain wait.
  ff_request_t thirteen{13, 13, 8, 0, 0, pattern_value("ring")};
  summary[0] = '\0';
  EXPECT_EQ(ff_engine_place(engine, &thirteen, allowed.data(), free.data(), total.data(), chosen.data(), &n,
                            summary, sizeof summary, err, sizeof err),
            FF_ENOFIT);
  EXPECT_STREQ(summary, "");
  // --exclusive=topo: one host of nvl1 and one of nvl3 widen to both domains, 8 hosts.
  std::vector<unsigned char> mask(hosts, 0);
  mask[ff_engine_host(engine, "gpu006")] = 1;
  mask[ff_engine_host(engine, "gpu016")] = 1;
  EXPECT_EQ(ff_engine_mark_whole_domains(engine, mask.data(), hosts), 6);
  for (int h = 0; h < hosts; ++h) {
    const int number = std::stoi(std::string(ff_engine_host_name(engine, h)).substr(3));
    EXPECT_EQ(mask[h] != 0, (number >= 5 && number <= 8) || number >= 13) << ff_engine_host_name(engine, h);
  }
  EXPECT_EQ(ff_engine_mark_whole_domains(engine, mask.data(), hosts), 0);  // already whole
  EXPECT_EQ(ff_engine_mark_whole_domains(engine, mask.data(), hosts - 1), -1);
  EXPECT_EQ(ff_engine_mark_whole_domains(nullptr, mask.data(), hosts), -1);
  // --segment=2 as allocated: gpu001, gpu005, gpu002, gpu006 are two segments, one per domain.
  const std::vector<int> got = {ff_engine_host(engine, "gpu001"), ff_engine_host(engine, "gpu005"),
                                ff_engine_host(engine, "gpu002"), ff_engine_host(engine, "gpu006")};
  std::vector<int> segment_of(got.size(), -1);
  EXPECT_EQ(ff_engine_segments(engine, got.data(), 4, 2, segment_of.data()), 2);
  EXPECT_EQ(segment_of, (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(ff_engine_segments(engine, got.data(), 4, 4, segment_of.data()), -1);  // 2 per domain
  EXPECT_EQ(ff_engine_segments(engine, got.data(), 4, 0, segment_of.data()), -1);
  ff_engine_free(engine);
  fs::remove_all(dir);
}
