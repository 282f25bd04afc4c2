// SPDX-License-Identifier: GPL-2.0-or-later
// ff_engine_check_slurm_nodes(): the plugin passes Slurm's node names; the engine names
// the nodes the fabric lacks and the hosts Slurm lacks, once, as Slurm hostlists.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <string>
#include <vector>

#include "capi/fabricfit_api.h"
#include "generated_fabric.hpp"
#include "topology/snapshot.hpp"

namespace fs = std::filesystem;

namespace {

TEST(SlurmNodesApi, NamesWhatDoesNotMatch) {
  const fs::path dir = fs::temp_directory_path() / ("ff-slurm-nodes-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string snap = (dir / "fabric.snap").string();
  fabricfit::ClosSpec spec;  // gpu001..gpu032
  fabricfit::save_snapshot(snap, fabricfit::testing::generated_fabric(spec), fabricfit::SnapshotInfo{});
  char err[512] = "";
  ff_engine_t* engine = nullptr;
  ASSERT_EQ(ff_engine_load(snap.c_str(), &engine, err, sizeof err), FF_OK) << err;

  std::vector<std::string> names;
  for (int i = 1; i <= 30; ++i) names.push_back(spec.host_name(i - 1));  // gpu031, gpu032 missing
  names.push_back("cpu1");
  names.push_back("cpu2");
  std::vector<const char*> c_names;
  for (const auto& n : names) c_names.push_back(n.c_str());
  char report[512] = "";
  EXPECT_EQ(ff_engine_check_slurm_nodes(engine, c_names.data(), c_names.size(), report, sizeof report), 30);
  EXPECT_STREQ(report,
               "2 Slurm node(s) not in the fabric, placed by Slurm's default selection: cpu[1-2]; "
               "2 fabric host(s) Slurm does not have, never placed on: gpu[031-032]");

  std::vector<std::string> all;
  for (int i = 1; i <= 32; ++i) all.push_back(spec.host_name(i - 1));
  c_names.clear();
  for (const auto& n : all) c_names.push_back(n.c_str());
  EXPECT_EQ(ff_engine_check_slurm_nodes(engine, c_names.data(), c_names.size(), report, sizeof report), 32);
  EXPECT_STREQ(report, "");
  EXPECT_EQ(ff_engine_check_slurm_nodes(nullptr, c_names.data(), c_names.size(), report, sizeof report), -1);
  ff_engine_free(engine);
  fs::remove_all(dir);
}

}  // namespace
