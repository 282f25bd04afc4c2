// SPDX-License-Identifier: GPL-2.0-or-later
// Which Slurm jobs fabricfit places and with what request (ff_job_request), --switches,
// and nodes' GPU counts right after a restart (ff_node_gpus).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "capi/fabricfit_api.h"

namespace {

constexpr unsigned kNoMax = 500000;  // Slurm's maximum when -N gave none

struct Decided {
  int rc;
  ff_request_t request;
  std::string reason;
};

Decided decide(const ff_job_facts_t& facts) {
  Decided d{};
  char reason[128] = "";
  d.rc = ff_job_request(&facts, nullptr, &d.request, reason, sizeof reason);
  d.reason = reason;
  return d;
}

ff_job_facts_t gpus_job(const char* per_job) {
  ff_job_facts_t f{};
  f.tres_per_job = per_job;
  f.min_nodes = 1;
  f.max_nodes = kNoMax;
  f.req_nodes = 1;
  return f;
}

}  // namespace

TEST(SlurmRequest, GpusWithoutNodeCountMayUseAsManyNodesAsNeeded) {
  // --gpus=16 and no -N: Slurm's req_nodes is 1, but the job needs two 8-GPU nodes.
  const auto d = decide(gpus_job("gres/gpu:16"));
  ASSERT_EQ(d.rc, FF_OK) << d.reason;
  EXPECT_EQ(d.request.total_gpus, 16u);
  EXPECT_EQ(d.request.gpus_per_node, 0u);
  EXPECT_EQ(d.request.min_nodes, 1u);
  EXPECT_GE(d.request.max_nodes, 2u);
  EXPECT_LE(d.request.max_nodes, 16u);  // never more nodes than GPUs
}

TEST(SlurmRequest, GpusWithNodeCountKeepIt) {
  auto f = gpus_job("gres/gpu:16");
  f.min_nodes = f.max_nodes = f.req_nodes = 4;
  const auto d = decide(f);
  ASSERT_EQ(d.rc, FF_OK);
  EXPECT_EQ(d.request.min_nodes, 4u);
  EXPECT_EQ(d.request.max_nodes, 4u);
  EXPECT_EQ(d.request.total_gpus, 16u);
}

TEST(SlurmRequest, TypedGpusCountTheirNumber) {
  const auto d = decide(gpus_job("gres/gpu:h100:16"));
  ASSERT_EQ(d.rc, FF_OK);
  EXPECT_EQ(d.request.total_gpus, 16u);
}

TEST(SlurmRequest, GpusPerNodeWithNodeRangeAimForSlurmsCount) {
  ff_job_facts_t f{};
  f.tres_per_node = "gres/gpu:8";
  f.min_nodes = 2;
  f.max_nodes = 4;
  f.req_nodes = 4;
  f.whole_node = 1;
  const auto d = decide(f);
  ASSERT_EQ(d.rc, FF_OK);
  EXPECT_EQ(d.request.gpus_per_node, 8u);
  EXPECT_EQ(d.request.min_nodes, 2u);
  EXPECT_EQ(d.request.max_nodes, 4u);
  EXPECT_EQ(d.request.exclusive, 1);
}

TEST(SlurmRequest, ExclusiveTopoIsPlacedByFabricfit) {
  // --exclusive=topo: Slurm offers wholly free NVLink domains only (topology_p_whole_topo),
  // and fabricfit chooses among them, asking for the GPUs the job asks (not whole hosts).
  auto f = gpus_job("gres/gpu:8");
  f.exclusive_topo = 1;
  const auto d = decide(f);
  ASSERT_EQ(d.rc, FF_OK) << d.reason;
  EXPECT_EQ(d.request.total_gpus, 8u);
  EXPECT_EQ(d.request.exclusive, 0);
}

TEST(SlurmRequest, GpusPerNodeWithoutNodeCountIsOneNode) {
  ff_job_facts_t f{};
  f.tres_per_node = "gres/gpu:2";
  f.min_nodes = 1;
  f.max_nodes = kNoMax;
  f.req_nodes = 1;
  const auto d = decide(f);
  ASSERT_EQ(d.rc, FF_OK);
  EXPECT_EQ(d.request.max_nodes, 1u);
}

TEST(SlurmRequest, TresPerTaskIsWrittenWithAnEqualsSign) {
  // What Slurm 24.11 stores for --gpus-per-task=2 (scontrol: TresPerTask=gres/gpu=2).
  EXPECT_EQ(ff_tres_gpus("gres/gpu=2"), 2u);
  EXPECT_EQ(ff_tres_gpus("cpu=4,gres/gpu=2"), 2u);
  EXPECT_EQ(ff_tres_gpus("gres/gpu:h100=3"), 3u);
  EXPECT_EQ(ff_tres_gpus("gres/gpumem=2"), 0u);
}

TEST(SlurmRequest, GpusPerTaskBecomeATotalOrAPerNodeCount) {
  ff_job_facts_t f{};
  f.tres_per_task = "gres/gpu=2";
  f.num_tasks = 8;
  f.min_nodes = 1;
  f.max_nodes = kNoMax;
  f.req_nodes = 1;
  auto d = decide(f);
  ASSERT_EQ(d.rc, FF_OK);
  EXPECT_EQ(d.request.total_gpus, 16u);
  EXPECT_LE(d.request.max_nodes, 8u);  // no more nodes than tasks
  f.ntasks_per_node = 4;
  f.min_nodes = f.req_nodes = f.max_nodes = 2;
  d = decide(f);
  ASSERT_EQ(d.rc, FF_OK);
  EXPECT_EQ(d.request.gpus_per_node, 8u);
  EXPECT_EQ(d.request.total_gpus, 0u);
  f.num_tasks = 0;
  f.ntasks_per_node = 0;
  EXPECT_EQ(decide(f).rc, FF_EDECLINE);
}

TEST(SlurmRequest, ShapesFabricfitDoesNotChooseGoToSlurmWithAReason) {
  const struct {
    const char* reason;
    void (*set)(ff_job_facts_t&);
  } cases[] = {
      {"required-nodes", [](ff_job_facts_t& f) { f.required_nodes = 1; }},
      {"contiguous", [](ff_job_facts_t& f) { f.contiguous = 1; }},
      {"spread-job", [](ff_job_facts_t& f) { f.spread_job = 1; }},
      {"gpus-per-socket", [](ff_job_facts_t& f) { f.tres_per_socket = "gres/gpu:1"; }},
      {"no-gpus", [](ff_job_facts_t& f) { f.tres_per_job = "gres/shard:2"; }},
  };
  for (const auto& c : cases) {
    auto f = gpus_job("gres/gpu:8");
    c.set(f);
    const auto d = decide(f);
    EXPECT_EQ(d.rc, FF_EDECLINE) << c.reason;
    EXPECT_EQ(d.reason, c.reason);
  }
}

// The request carries the job's pattern, read once from its record: what it asked for, else
// `none` when the request fits one node, else the site default; `ring` for a recorded
// value that does not parse.
TEST(SlurmRequest, TheRequestCarriesTheJobsPattern) {
  ff_settings_t site{};
  site.default_pattern.kind = FF_PATTERN_TREE;
  char reason[128] = "";
  ff_request_t r{};
  auto f = gpus_job("gres/gpu:16");
  ASSERT_EQ(ff_job_request(&f, &site, &r, reason, sizeof reason), FF_OK) << reason;
  EXPECT_EQ(r.pattern.kind, FF_PATTERN_TREE) << "none asked for: the site default";
  f.comm_pattern = "tp=8,dp=2";
  ASSERT_EQ(ff_job_request(&f, &site, &r, reason, sizeof reason), FF_OK) << reason;
  EXPECT_EQ(r.pattern.kind, FF_PATTERN_PARALLEL);
  EXPECT_EQ(r.pattern.tp, 8U);
  EXPECT_EQ(r.pattern.dp, 2U);
  f.comm_pattern = "allreduce";
  ASSERT_EQ(ff_job_request(&f, &site, &r, reason, sizeof reason), FF_OK) << reason;
  EXPECT_EQ(r.pattern.kind, FF_PATTERN_RING) << "a bad recorded value: placed as a ring";
  // --gpus=1 with no -N: the evaluation allows many nodes, the request one.
  auto one = gpus_job("gres/gpu:1");
  ASSERT_EQ(ff_job_request(&one, &site, &r, reason, sizeof reason), FF_OK) << reason;
  EXPECT_EQ(r.max_nodes, 1U);
  EXPECT_EQ(r.pattern.kind, FF_PATTERN_NONE) << "a job on one node has no traffic between nodes";
}

TEST(SlurmRequest, SwitchesLimitLeafGroupsUntilTheWaitIsOver) {
  EXPECT_EQ(ff_switches_allow(0, 3, 0, 0), 1);      // no --switches
  EXPECT_EQ(ff_switches_allow(1, 1, 0, 300), 1);    // within the limit
  EXPECT_EQ(ff_switches_allow(1, 2, 10, 300), 0);   // over it, still waiting
  EXPECT_EQ(ff_switches_allow(1, 2, 300, 300), 1);  // waited long enough
}

TEST(SlurmRequest, NodeGpusSurviveTheRestartSentinel) {
  const unsigned long long no_val64 = 0xfffffffffffffffeULL;
  EXPECT_EQ(ff_node_gpus(8, "gpu:4"), 8);  // the reported count wins when plausible
  EXPECT_EQ(ff_node_gpus(no_val64, "gpu:8"), 8);
  EXPECT_EQ(ff_node_gpus(static_cast<unsigned long long>(static_cast<std::uint32_t>(-2)), "gpu:8"), 8);
  EXPECT_EQ(ff_node_gpus(0, "gpu:h100:4,gpu:a100:4(S:0-1),mps:200"), 8);
  EXPECT_EQ(ff_node_gpus(0, "gpu:h100"), 1);
  EXPECT_EQ(ff_node_gpus(0, "mps:100"), -1);
  EXPECT_EQ(ff_node_gpus(no_val64, nullptr), -1);
}
