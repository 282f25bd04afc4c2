// SPDX-License-Identifier: GPL-2.0-or-later
// The variables a job's tasks get (placement/slurm/job_environment.hpp and ff_job_env), on
// fabrics the generator writes and the builder reads, as discovery would see them.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <fmt/format.h>

#include "capi/fabricfit_api.h"
#include "generated_fabric.hpp"
#include "placement/placement_score.hpp"
#include "placement/slurm/job_environment.hpp"
#include "topology/snapshot.hpp"

using namespace fabricfit;

namespace {

// 2 leaf groups of 4 hosts, `rails` rails, one storage HCA per host (mlx5_<rails>).
Fabric lab_fabric(int rails, int storage = 1, int pods = 0) {
  ClosSpec spec =
      fabricfit::testing::clos_spec({.pods = pods, .leaves = 2, .hosts_per_leaf = 4, .rails = rails});
  spec.extras.storage_hcas = storage > 0;
  ModelOptions options;
  options.compute_hca_pattern = rails == 1 ? "mlx5_0" : "mlx5_[0-" + std::to_string(rails - 1) + "]";
  return fabricfit::testing::generated_fabric(spec, options);
}

std::map<std::string, std::string> as_map(const JobEnvironment& env) {
  std::map<std::string, std::string> m;
  for (const auto& [k, v] : env.vars) m[k] = v;
  return m;
}

JobEnvironmentInput job(std::string node, std::vector<std::string> nodes, const char* pattern = "ring") {
  JobEnvironmentInput in;
  in.node = std::move(node);
  in.nodes = std::move(nodes);
  in.pattern = parse_comm_pattern(pattern);
  in.gpus_on_node = 8;
  return in;
}

}  // namespace

TEST(JobEnvironment, TwoRailHostGetsItsComputeHcasInRailOrderNeverStorage) {
  const Fabric f = lab_fabric(2);
  const LocalityIndex index(f);
  ASSERT_EQ(f.rails, 2);
  const int h = *f.host_index("gpu003");
  EXPECT_EQ(nccl_ib_hca(f, h), "=mlx5_0:1,mlx5_1:1");
  const auto env = as_map(job_environment(f, index, SiteConfig{}, job("gpu003", {"gpu003", "gpu005"})));
  EXPECT_EQ(env.at("NCCL_IB_HCA"), "=mlx5_0:1,mlx5_1:1");
  EXPECT_EQ(env.at("NCCL_CROSS_NIC"), "0");
  EXPECT_EQ(env.count("NCCL_COLLNET_ENABLE"), 0u);
  EXPECT_EQ(env.at("FABRICFIT_PATTERN"), "ring");
  EXPECT_EQ(env.at("FABRICFIT_LEAF_GROUPS"), f.leaf_groups[0].name + "," + f.leaf_groups[1].name);
}

TEST(JobEnvironment, SingleRailFabricLeavesCrossNicUnset) {
  const Fabric f = lab_fabric(1);
  const LocalityIndex index(f);
  const auto env = as_map(job_environment(f, index, SiteConfig{}, job("gpu001", {"gpu001", "gpu002"})));
  EXPECT_EQ(env.at("NCCL_IB_HCA"), "=mlx5_0:1");
  EXPECT_EQ(env.count("NCCL_CROSS_NIC"), 0u);
}

TEST(JobEnvironment, ScoreIsWhatTheScoreCommandComputes) {
  const Fabric f = lab_fabric(2);
  const LocalityIndex index(f);
  const std::vector<std::string> nodes{"gpu001", "gpu002", "gpu005", "gpu006"};
  const auto env = as_map(job_environment(f, index, SiteConfig{}, job("gpu001", nodes)));
  std::vector<int> hosts;
  for (const auto& n : nodes) hosts.push_back(*index.find_host(n));
  const auto s = score_hosts(index, hosts, std::vector<int>(4, 8), parse_comm_pattern("ring"));
  EXPECT_GT(s.spine_bytes, 0);
  EXPECT_NE(env.at("FABRICFIT_SCORE").find(fmt::format("spine_bytes={:.6g} ", s.spine_bytes)),
            std::string::npos)
      << env.at("FABRICFIT_SCORE");
  EXPECT_NE(env.at("FABRICFIT_SCORE").find("leaf_groups=2 "), std::string::npos);
}

TEST(JobEnvironment, SiteKeysPatternNoneAndTheSiteSwitch) {
  const Fabric f = lab_fabric(2);
  const LocalityIndex index(f);
  SiteConfig site;
  site.nccl_ib_sl = 3;
  site.nccl_ib_tc = 106;
  site.nccl_ib_gid_index = 3;
  site.nccl_socket_ifname = "=eth0";
  auto env = as_map(job_environment(f, index, site, job("gpu001", {"gpu001", "gpu002"})));
  EXPECT_EQ(env.at("NCCL_IB_SL"), "3");
  EXPECT_EQ(env.at("NCCL_IB_TC"), "106");
  EXPECT_EQ(env.at("NCCL_IB_GID_INDEX"), "3");
  EXPECT_EQ(env.at("NCCL_SOCKET_IFNAME"), "=eth0");

  env = as_map(job_environment(f, index, site, job("gpu001", {"gpu001", "gpu002"}, "none")));
  EXPECT_EQ(env.count("NCCL_IB_HCA"), 0u);
  EXPECT_EQ(env.count("NCCL_IB_SL"), 0u);
  EXPECT_EQ(env.at("FABRICFIT_PATTERN"), "none");

  site.nccl_settings = false;
  env = as_map(job_environment(f, index, site, job("gpu001", {"gpu001", "gpu002"})));
  EXPECT_EQ(env.count("NCCL_IB_HCA"), 0u);
  EXPECT_EQ(env.count("FABRICFIT_LEAF_GROUPS"), 1u);
}

TEST(JobEnvironment, UnknownNodeGetsNoNcclAndOneNote) {
  const Fabric f = lab_fabric(2);
  const LocalityIndex index(f);
  const auto env = job_environment(f, index, SiteConfig{}, job("cpu001", {"cpu001", "gpu001"}));
  EXPECT_EQ(as_map(env).count("NCCL_IB_HCA"), 0u);
  ASSERT_EQ(env.notes.size(), 1u);
  EXPECT_NE(env.notes[0].find("cpu001"), std::string::npos);
  EXPECT_EQ(as_map(env).count("FABRICFIT_SCORE"), 0u);  // the placement is not all on the fabric
}

TEST(JobEnvironment, CollnetOnlyWithSharpSwitchesAndTheSiteSaysSo) {
  const Fabric f = lab_fabric(1);
  const LocalityIndex index(f);
  SiteConfig site;
  site.sharp = true;
  EXPECT_EQ(as_map(job_environment(f, index, site, job("gpu001", {"gpu001", "gpu005"})))
                .count("NCCL_COLLNET_ENABLE"),
            0u);  // no aggregation nodes in this fabric
  Fabric with_sharp = f;
  with_sharp.sharp_nodes = 2;
  EXPECT_EQ(as_map(job_environment(with_sharp, index, site, job("gpu001", {"gpu001", "gpu005"})))
                .at("NCCL_COLLNET_ENABLE"),
            "1");
  site.sharp = false;
  EXPECT_EQ(as_map(job_environment(with_sharp, index, site, job("gpu001", {"gpu001", "gpu005"})))
                .count("NCCL_COLLNET_ENABLE"),
            0u);
}

TEST(JobEnvironment, CollnetNeedsOnePodOnThreeTiers) {
  Fabric f = lab_fabric(1, 0, 2);
  f.sharp_nodes = 1;
  const LocalityIndex index(f);
  ASSERT_EQ(index.pod_count(), 2);
  SiteConfig site;
  site.sharp = true;
  // gpu001-008 in pod 1, gpu009-016 in pod 2.
  EXPECT_EQ(as_map(job_environment(f, index, site, job("gpu001", {"gpu001", "gpu005"})))
                .count("NCCL_COLLNET_ENABLE"),
            1u);
  EXPECT_EQ(as_map(job_environment(f, index, site, job("gpu001", {"gpu001", "gpu009"})))
                .count("NCCL_COLLNET_ENABLE"),
            0u);
}

// gpu001-002 in nvl0, gpu003-004 in nvl1 (leaf group 1); gpu005-008 in no domain.
Fabric domain_fabric() {
  Fabric f = lab_fabric(1);
  set_nvlink_domains(f, {{"nvl0", {*f.host_index("gpu001"), *f.host_index("gpu002")}},
                         {"nvl1", {*f.host_index("gpu003"), *f.host_index("gpu004")}}});
  return f;
}

TEST(JobEnvironment, MultiNodeJobInsideOneDomainRequiresMnnvlWhereTheSiteRunsImex) {
  const Fabric f = domain_fabric();
  const LocalityIndex index(f);
  SiteConfig site;
  site.imex = true;
  const auto inside = as_map(job_environment(f, index, site, job("gpu002", {"gpu001", "gpu002"})));
  EXPECT_EQ(inside.at("NCCL_MNNVL_ENABLE"), "1");
  EXPECT_EQ(inside.at("FABRICFIT_NVLINK_DOMAINS"), "nvl0");
  EXPECT_EQ(inside.at("NCCL_IB_HCA"), "=mlx5_0:1");  // IB settings stay (NCCL's bootstrap, other steps)

  // Across domains: NCCL's own default (MNNVL inside each, IB between), IB settings kept.
  const auto across = as_map(job_environment(f, index, site, job("gpu001", {"gpu003", "gpu001", "gpu002"})));
  EXPECT_EQ(across.count("NCCL_MNNVL_ENABLE"), 0u);
  EXPECT_EQ(across.at("FABRICFIT_NVLINK_DOMAINS"), "nvl1,nvl0");  // node-list order
  EXPECT_EQ(across.at("NCCL_IB_HCA"), "=mlx5_0:1");

  // A host in no domain with one in a domain: no NVLink between them.
  const auto mixed = as_map(job_environment(f, index, site, job("gpu001", {"gpu001", "gpu005"})));
  EXPECT_EQ(mixed.count("NCCL_MNNVL_ENABLE"), 0u);
  EXPECT_EQ(mixed.at("FABRICFIT_NVLINK_DOMAINS"), "nvl0");

  // One host: its GPUs talk over its own NVLink, no multi-node NVLink to ask for.
  EXPECT_EQ(as_map(job_environment(f, index, site, job("gpu001", {"gpu001"}))).count("NCCL_MNNVL_ENABLE"),
            0u);
  // No domains at all: no variable.
  const auto none = as_map(job_environment(f, index, site, job("gpu005", {"gpu005", "gpu006"})));
  EXPECT_EQ(none.count("FABRICFIT_NVLINK_DOMAINS"), 0u);
  EXPECT_EQ(none.count("NCCL_MNNVL_ENABLE"), 0u);
}

TEST(JobEnvironment, MnnvlOnlyWhereTheSiteSaysImexAndNcclSettingsAreOn) {
  const Fabric f = domain_fabric();
  const LocalityIndex index(f);
  SiteConfig site;  // Imex=no by default: without IMEX channels MNNVL=1 would fail the job
  auto env = as_map(job_environment(f, index, site, job("gpu001", {"gpu001", "gpu002"})));
  EXPECT_EQ(env.count("NCCL_MNNVL_ENABLE"), 0u);
  EXPECT_EQ(env.at("FABRICFIT_NVLINK_DOMAINS"), "nvl0");  // a fact of the placement, always
  site.imex = true;
  site.nccl_settings = false;
  env = as_map(job_environment(f, index, site, job("gpu001", {"gpu001", "gpu002"})));
  EXPECT_EQ(env.count("NCCL_MNNVL_ENABLE"), 0u);
  EXPECT_EQ(env.at("FABRICFIT_NVLINK_DOMAINS"), "nvl0");
  site.nccl_settings = true;
  env = as_map(job_environment(f, index, site, job("gpu001", {"gpu001", "gpu002"}, "none")));
  EXPECT_EQ(env.count("NCCL_MNNVL_ENABLE"), 0u);
}

TEST(JobEnvironment, UsersOwnVariableIsKeptOursFromAnEarlierStepIsRecomputed) {
  const Fabric f = lab_fabric(2);
  const LocalityIndex index(f);
  const auto fresh = job_environment(f, index, SiteConfig{}, job("gpu005", {"gpu001", "gpu005"}));
  // The batch step on gpu001 recorded what it set; srun now runs on gpu005.
  std::map<std::string, std::string> jobenv{
      {"NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1"},
      {"NCCL_CROSS_NIC", "0"},
      {"FABRICFIT_NCCL_SET", "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1;NCCL_CROSS_NIC=0"}};
  const auto lookup = [&](const std::string& n) -> std::optional<std::string> {
    const auto it = jobenv.find(n);
    return it == jobenv.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
  auto env = as_map(keep_users_own(fresh, lookup));
  EXPECT_EQ(env.at("NCCL_IB_HCA"), "=mlx5_0:1,mlx5_1:1");
  EXPECT_EQ(env.at("FABRICFIT_NCCL_SET"), "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1;NCCL_CROSS_NIC=0");
  // The user's own value (not what fabricfit recorded) is kept: not in the list to set.
  jobenv["NCCL_IB_HCA"] = "=mlx5_1:1";
  env = as_map(keep_users_own(fresh, lookup));
  EXPECT_EQ(env.count("NCCL_IB_HCA"), 0u);
  EXPECT_EQ(env.at("NCCL_CROSS_NIC"), "0");
  EXPECT_EQ(env.at("FABRICFIT_NCCL_SET"), "NCCL_CROSS_NIC=0");
  // Set by the user before any step: no record, kept.
  jobenv.erase("FABRICFIT_NCCL_SET");
  env = as_map(keep_users_own(fresh, lookup));
  EXPECT_EQ(env.count("NCCL_IB_HCA"), 0u);
  EXPECT_EQ(env.count("NCCL_CROSS_NIC"), 0u);
}

namespace {

struct TempDir {
  TempDir() : path(std::filesystem::temp_directory_path() / ("ff-jobenv-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::filesystem::path path;
};

const char* user_env(void* ctx, const char* name) {
  const auto* m = static_cast<std::map<std::string, std::string>*>(ctx);
  const auto it = m->find(name);
  return it == m->end() ? nullptr : it->second.c_str();
}

}  // namespace

TEST(JobEnvApi, LinesFromTheSnapshotTheConfigNames) {
  TempDir dir;
  save_snapshot(dir.path / "fabric.snapshot", lab_fabric(2), SnapshotInfo{});
  std::ofstream(dir.path / "fabricfit.conf")
      << "SnapshotFile=" << (dir.path / "fabric.snapshot").string() << "\nNcclIbSl=2\n";
  char err[512] = "";
  ff_site_t* site = nullptr;
  ASSERT_EQ(ff_site_load((dir.path / "fabricfit.conf").c_str(), nullptr, &site, err, sizeof err), FF_OK)
      << err;
  std::map<std::string, std::string> user{{"NCCL_SOCKET_IFNAME", "lo"}};
  const ff_pattern_t alltoall{FF_PATTERN_ALLTOALL, 1, 1, 1}, ring{FF_PATTERN_RING, 1, 1, 1};
  char out[4096], notes[512], kept[512];
  ASSERT_EQ(ff_job_env(site, "gpu002", "gpu[001-002,005]", &alltoall, 8, user_env, &user, out, sizeof out,
                       notes, sizeof notes, kept, sizeof kept, err, sizeof err),
            FF_OK)
      << err;
  const std::string lines = out;
  EXPECT_NE(lines.find("NCCL_IB_HCA==mlx5_0:1,mlx5_1:1\n"), std::string::npos) << lines;
  EXPECT_NE(lines.find("NCCL_IB_SL=2\n"), std::string::npos);
  EXPECT_EQ(lines.find("mlx5_2"), std::string::npos);  // the storage HCA
  EXPECT_NE(lines.find("FABRICFIT_PATTERN=alltoall\n"), std::string::npos);
  EXPECT_STREQ(notes, "");

  // A bad edit: the user-facing side gets the same settings the controller keeps.
  std::ofstream(dir.path / "fabricfit.conf") << "NcclIbSl=99\n";
  ff_site_free(site);
  EXPECT_EQ(ff_site_load((dir.path / "fabricfit.conf").c_str(), nullptr, &site, err, sizeof err), FF_EINVAL);
  EXPECT_NE(std::string(err).find("fabricfit.conf:1: NcclIbSl=99"), std::string::npos) << err;
  ASSERT_NE(site, nullptr);
  ff_settings_t s;
  ff_site_settings(site, &s);
  EXPECT_STREQ(s.source, "defaults");
  EXPECT_EQ(ff_job_env(site, "gpu002", "gpu[001-002]", &ring, 8, user_env, &user, out, sizeof out, notes,
                       sizeof notes, kept, sizeof kept, err, sizeof err),
            FF_EINVAL);  // the default snapshot path does not exist here
  ff_site_free(site);
}

// slurmstepd keeps this node's last good copy of the snapshot, as slurmctld does: a bad
// snapshot on the shared path leaves the tasks their settings, with a note naming both.
TEST(JobEnvApi, ABadSnapshotGivesTheNodesLastGoodCopy) {
  TempDir dir;
  const auto snap = dir.path / "fabric.snapshot", copy = dir.path / "fabricfit.snapshot.last-good";
  save_snapshot(snap, lab_fabric(2), SnapshotInfo{});
  std::ofstream(dir.path / "fabricfit.conf") << "SnapshotFile=" << snap.string() << "\n";
  char err[512] = "";
  ff_site_t* site = nullptr;
  // The copy goes beside fabricfit.conf's last good copy by default.
  ASSERT_EQ(ff_site_load((dir.path / "fabricfit.conf").c_str(), (dir.path / "conf.last-good").c_str(), &site,
                         err, sizeof err),
            FF_OK)
      << err;
  std::map<std::string, std::string> user;
  const ff_pattern_t ring{FF_PATTERN_RING, 1, 1, 1};
  char out[4096], notes[512], kept[1024];
  const auto step = [&] {
    return ff_job_env(site, "gpu002", "gpu[001-002]", &ring, 8, user_env, &user, out, sizeof out, notes,
                      sizeof notes, kept, sizeof kept, err, sizeof err);
  };
  ASSERT_EQ(step(), FF_OK) << err;
  EXPECT_STREQ(kept, "");
  const std::string good = out;
  ASSERT_TRUE(std::filesystem::exists(copy));
  const auto written = std::filesystem::last_write_time(copy);

  std::filesystem::resize_file(snap, std::filesystem::file_size(snap) - 7);  // a half-written copy
  ASSERT_EQ(step(), FF_OK) << err;
  EXPECT_EQ(std::string(out), good) << "the same NCCL settings as before";
  EXPECT_NE(good.find("NCCL_IB_HCA==mlx5_0:1,mlx5_1:1\n"), std::string::npos) << good;
  const std::string note = kept;
  EXPECT_TRUE(note.starts_with(snap.string() + ": truncated")) << note;
  EXPECT_TRUE(note.ends_with("; using the last good snapshot " + copy.string())) << note;
  EXPECT_EQ(note.find('\n'), std::string::npos) << "one line";
  EXPECT_STREQ(notes, "");
  EXPECT_EQ(std::filesystem::last_write_time(copy), written) << "the good copy is untouched";

  // slurmstepd reads it ahead, as root (slurm_spank_init), for the step's ff_job_env.
  ASSERT_EQ(ff_site_read_snapshot(site, err, sizeof err), FF_OK) << err;
  std::filesystem::remove(copy);  // what was read is held: the copy is not read again
  ASSERT_EQ(step(), FF_OK) << err;
  EXPECT_EQ(std::string(out), good);
  EXPECT_EQ(std::string(kept), note);
  EXPECT_EQ(step(), FF_EINVAL) << "let go after one step: read again, and no copy now";

  // Without a copy (snapshot_last_good= empty): no settings, the snapshot's error, as before.
  ff_site_keep_snapshot(site, "");
  EXPECT_EQ(ff_site_read_snapshot(site, err, sizeof err), FF_EINVAL);
  EXPECT_EQ(step(), FF_EINVAL);
  EXPECT_TRUE(std::string(err).starts_with(snap.string() + ": truncated")) << err;
  EXPECT_EQ(step(), FF_EINVAL);
  EXPECT_TRUE(std::string(err).starts_with(snap.string() + ": truncated")) << err;
  // An explicit path is used as given (the good snapshot back: copied there again).
  save_snapshot(snap, lab_fabric(2), SnapshotInfo{});
  const auto elsewhere = dir.path / "elsewhere.last-good";
  ff_site_keep_snapshot(site, elsewhere.c_str());
  EXPECT_EQ(step(), FF_OK) << err;
  EXPECT_TRUE(std::filesystem::exists(elsewhere));
  ff_site_free(site);
}

TEST(JobEnvironment, WhatAnEarlierStepSetIsUnsetOnANodeWithoutSettings) {
  const Fabric f = lab_fabric(2);
  const LocalityIndex index(f);
  // srun from a batch script on gpu001 reaches cpu001, which the fabric lacks.
  const auto fresh = job_environment(f, index, SiteConfig{}, job("cpu001", {"gpu001", "cpu001"}));
  std::map<std::string, std::string> jobenv{
      {"NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1"},
      {"NCCL_IB_SL", "5"},
      {"FABRICFIT_NCCL_SET", "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1;NCCL_IB_SL=3"}};
  const auto env = keep_users_own(fresh, [&](const std::string& n) -> std::optional<std::string> {
    const auto it = jobenv.find(n);
    return it == jobenv.end() ? std::nullopt : std::optional<std::string>(it->second);
  });
  // NCCL_IB_SL=5 is not what fabricfit set (3): the user changed it, it stays.
  EXPECT_EQ(env.unset, std::vector<std::string>{"NCCL_IB_HCA"});
}
