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

TEST(EngineApiTres, GpusFromSlurmTresStrings) {
  EXPECT_EQ(ff_tres_gpus("gres/gpu:8"), 8u);
  EXPECT_EQ(ff_tres_gpus("gres/gpu:h100:4"), 4u);
  EXPECT_EQ(ff_tres_gpus("cpu=4,gres/gpu:2,gres/shard:3"), 2u);
  EXPECT_EQ(ff_tres_gpus("gres/gpuish:3"), 0u);
  EXPECT_EQ(ff_tres_gpus("gres/shard:3"), 0u);
  EXPECT_EQ(ff_tres_gpus(nullptr), 0u);
  EXPECT_EQ(ff_tres_gpus(""), 0u);
}
