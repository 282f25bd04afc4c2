// SPDX-License-Identifier: GPL-2.0-or-later
// Reading Slurm's JSON output (cli/slurm_cluster.hpp): nodes' GPUs and state, jobs'
// nodes, GPUs and reasons, in the shapes Slurm 24.11's data_parser writes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/slurm_cluster.hpp"
#include "cli_fixtures.hpp"

using namespace fabricfit::cli;

TEST(SlurmCluster, GresStringsGiveGpuCounts) {
  EXPECT_EQ(gres_gpus("gpu:8"), 8);
  EXPECT_EQ(gres_gpus("gpu:h100:4(S:0-1),shard:16"), 4);
  EXPECT_EQ(gres_gpus("gpu:8(IDX:0-7)"), 8);
  EXPECT_EQ(gres_gpus("gpu:0(IDX:N/A)"), 0);
  EXPECT_EQ(gres_gpus("gpu:a100:2(IDX:0,2),gpu:h100:1(IDX:5)"), 3);
  EXPECT_EQ(gres_gpus(""), 0);
  EXPECT_EQ(gres_gpus("shard:4"), 0);
}

TEST(SlurmCluster, NodesWithTheirGpusAndWhetherTheyCanRunJobs) {
  const auto nodes = parse_slurm_nodes(R"json({"nodes": [
    {"name": "gpu001", "gres": "gpu:8", "gres_used": "gpu:8(IDX:0-7)", "state": ["MIXED"]},
    {"name": "gpu002", "gres": "gpu:8", "gres_used": "gpu:0(IDX:N/A)", "state": ["IDLE", "DRAIN"]},
    {"name": "gpu003", "gres": "gpu:h100:4(S:0)", "gres_used": "gpu:h100:1(IDX:2)", "state": ["IDLE"]}],
    "meta": {}, "errors": [], "warnings": []
})json",
                                       "t");
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[0].gpus, 8);
  EXPECT_EQ(nodes[0].gpus_used, 8);
  EXPECT_TRUE(nodes[0].usable);
  EXPECT_FALSE(nodes[1].usable);
  EXPECT_EQ(nodes[1].state, "IDLE+DRAIN");
  EXPECT_EQ(nodes[2].gpus, 4);
  EXPECT_EQ(nodes[2].gpus_used, 1);
}

TEST(SlurmCluster, JobsWithNodesGpusAndReasons) {
  const auto jobs = parse_slurm_jobs(R"json({"jobs": [
    {"job_id": 12, "job_state": ["RUNNING"], "nodes": "gpu[001-002]", "state_reason": "None",
     "node_count": {"set": true, "infinite": false, "number": 2}, "tres_per_node": "gres/gpu:8",
     "gres_detail": ["gpu:8(IDX:0-7)", "gpu:8(IDX:0-7)"], "admin_comment": "fabricfit placement=fabricfit pattern=ring",
     "shared": [], "exclusive": ["false"], "start_time": {
  "set" : true, "infinite" : false, "number" : 1700000000}},
    {"job_id": 13, "job_state": ["PENDING"], "nodes": "", "state_reason": "Resources",
     "node_count": {"set": true, "infinite": false, "number": 16}, "tres_per_job": "gres/gpu:32",
     "gres_detail": [], "segment_size": 4}]
})json",
                                     "t");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].id, 12u);
  EXPECT_EQ(jobs[0].state, "RUNNING");
  EXPECT_EQ(jobs[0].nodes, "gpu[001-002]");
  EXPECT_EQ(jobs[0].node_count, 2);
  EXPECT_EQ(jobs[0].gpus_per_node, 8);
  EXPECT_EQ(jobs[0].gpus_on_node, (std::vector<int>{8, 8}));
  EXPECT_EQ(jobs[0].start_time, 1700000000);
  EXPECT_EQ(jobs[1].state, "PENDING");
  EXPECT_EQ(jobs[1].reason, "Resources");
  EXPECT_EQ(jobs[1].total_gpus, 32);
  EXPECT_EQ(jobs[1].gpus_per_node, 0);
  EXPECT_EQ(jobs[0].segment_size, 0);  // 24.11's JSON has none
  EXPECT_EQ(jobs[1].segment_size, 4);
}

TEST(SlurmCluster, AnUnknownJobGivesSlurmsReason) {
  try {
    (void)parse_slurm_jobs(
        R"({"jobs": [], "errors": [{"description": "Invalid job id specified", "error_number": 2017}]})",
        "scontrol show job --json");
    FAIL();
  } catch (const SlurmError& e) {
    EXPECT_STREQ(e.what(), "scontrol show job --json: Invalid job id specified");
  }
  EXPECT_TRUE(parse_slurm_jobs(R"({"jobs": [], "errors": []})", "t").empty());
}

TEST(SlurmCluster, TextThatIsNotSlurmsJsonIsNamed) {
  EXPECT_THROW((void)parse_slurm_jobs("slurm_load_jobs error: Invalid job id specified", "scontrol"),
               SlurmError);
  try {
    (void)parse_slurm_nodes(R"({"jobs": []})", "nodes.json");
    FAIL();
  } catch (const SlurmError& e) {
    EXPECT_NE(std::string(e.what()).find("nodes.json: no \"nodes\" list"), std::string::npos);
  }
}

// The shape of `sacct -j ID --json` (Slurm 24.11's data_parser v0.0.42 for slurmdbd's job records).
TEST(SlurmCluster, FinishedJobsFromAccountingCarryTheirPlacementRecord) {
  const auto jobs = parse_sacct_jobs(R"json({"jobs": [
    {"job_id": 41, "nodes": "gpu[001-002]", "allocation_nodes": 2,
     "comment": {"administrator": "ticket 7; fabricfit placement=fabricfit leaf_groups=1 groups=L1 cross_spine_gb=0 uplink_ms=0 unusable_gpus=+0.0 pattern=ring",
                 "job": "", "system": ""},
     "state": {"current": ["COMPLETED"], "reason": "None"},
     "time": {"start": 100, "end": 160, "submission": 90},
     "tres": {"requested": [], "allocated": [{"type": "cpu", "name": "", "count": 2},
                                             {"type": "gres", "name": "gpu", "count": 16}]}},
    {"job_id": 42, "nodes": "None assigned", "allocation_nodes": 0, "comment": {"administrator": ""},
     "state": {"current": ["CANCELLED"], "reason": "None"}, "time": {"start": 0, "end": 95, "submission": 91}}
  ]})json",
                                     "t");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].id, 41u);
  EXPECT_EQ(jobs[0].state, "COMPLETED");
  EXPECT_EQ(jobs[0].nodes, "gpu[001-002]");
  EXPECT_EQ(jobs[0].node_count, 2);
  EXPECT_EQ(jobs[0].total_gpus, 16);
  EXPECT_EQ(jobs[0].end_time, 160);
  EXPECT_TRUE(jobs[0].placement_record.starts_with("fabricfit placement=fabricfit leaf_groups=1 "));
  EXPECT_EQ(jobs[1].nodes, "");
  EXPECT_EQ(jobs[1].placement_record, "");
}

using fabricfit::testing::two_groups_of_four;

TEST(SlurmCluster, AJobsHostsAndGpusFromItsRecord) {
  const fabricfit::Fabric fabric = two_groups_of_four();
  const fabricfit::LocalityIndex index(fabric);
  SlurmJob j;
  j.nodes = "gpu[001,005]";
  j.gpus_on_node = {8, 4};  // as allocated, per node
  auto a = allocation_of(index, j);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->hosts, (std::vector<int>{*index.find_host("gpu001"), *index.find_host("gpu005")}));
  EXPECT_EQ(a->gpus, (std::vector<int>{8, 4}));

  j.gpus_on_node.clear();
  j.nodes = "gpu[002-004]";
  j.total_gpus = 12;  // --gpus=12: spread evenly
  a = allocation_of(index, j);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->gpus, (std::vector<int>{4, 4, 4}));

  j.nodes = "gpu[004,042]";
  std::string missing;
  EXPECT_FALSE(allocation_of(index, j, &missing));
  EXPECT_EQ(missing, "gpu042");
}

TEST(SlurmCluster, ThePatternItsPlacementRecordNames) {
  SlurmJob j;
  EXPECT_FALSE(recorded_pattern(j));
  j.placement_record = "fabricfit placement=fabricfit leaf_groups=2 pattern=alltoall";
  ASSERT_TRUE(recorded_pattern(j));
  EXPECT_EQ(recorded_pattern(j)->to_string(), "alltoall");
  j.placement_record = "fabricfit placement=fabricfit leaf_groups=2 pattern=bogus";
  EXPECT_FALSE(recorded_pattern(j)) << "a pattern that does not parse is no pattern";
}

// What `fabricfit frag --live` reports of slurmctld's snapshot (fabricfit_snapshot_ok).
TEST(SlurmCluster, SlurmctldsSnapshotStatusFromScontrolShowTopology) {
  const std::string loaded =
      "Plugin=topology/fabricfit Version=\"fabricfit 0.1.0\"\n"
      "Config=/etc/slurm/fabricfit.conf Status=\"ok\" Using=file\n"
      "SnapshotFile=/shared/fabric.snapshot DefaultPattern=ring\n"
      "Placement=fabricfit Snapshot=\"loaded /shared/fabric.snapshot (hosts=32 leaf_groups=4)\"\n";
  ASSERT_TRUE(slurmctld_snapshot_status(loaded));
  EXPECT_EQ(*slurmctld_snapshot_status(loaded), "loaded /shared/fabric.snapshot (hosts=32 leaf_groups=4)");
  EXPECT_TRUE(snapshot_status_ok(*slurmctld_snapshot_status(loaded)));
  const std::string bad =
      "SnapshotFile=/shared/fabric.snapshot DefaultPattern=ring\n"
      "Placement=fabricfit Snapshot=\"bad snapshot: /shared/fabric.snapshot: truncated: ... (keeping the one "
      "already loaded)\"\n";
  ASSERT_TRUE(slurmctld_snapshot_status(bad));
  EXPECT_FALSE(snapshot_status_ok(*slurmctld_snapshot_status(bad)));
  EXPECT_FALSE(snapshot_status_ok("no snapshot at /shared/fabric.snapshot (keeping the one already loaded)"));
  EXPECT_FALSE(slurmctld_snapshot_status("SwitchName=s1 Nodes=gpu[001-004]\n")) << "topology/tree";
}
