// SPDX-License-Identifier: GPL-2.0-or-later
// What `fabricfit explain` says of a job's own placement (cli/explain_placement.hpp): a job
// accounting kept without GPU counts takes its figures from its placement record, a running
// job's unusable GPUs of now and of its placement are told apart, and a snapshot that will
// not load says where its path came from.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli/explain_placement.hpp"
#include "cli/slurm_cluster.hpp"
#include "cli_fixtures.hpp"
#include "health_fixture.hpp"

using namespace fabricfit::cli;
using nlohmann::json;

namespace {

// The issue's job: fabricfit placed it over 2 leaf groups.
const char* const kSplitRecord =
    "fabricfit placement=fabricfit leaf_groups=2 groups=ib-leaf-001,ib-leaf-002 cross_spine_gb=3.88 "
    "uplink_ms=0.62 unusable_gpus=-2.3 pattern=ring";

// `sacct -j 77 --json` of a cluster without AccountingStorageTRES=gres/gpu: no gres/gpu in
// the allocated TRES (24.11's data_parser shape).
std::string sacct_job(const std::string& record, const std::string& gpu_tres) {
  return R"json({"jobs": [{"job_id": 77, "nodes": "gpu[007-010]", "allocation_nodes": 4,
     "comment": {"administrator": ")json" +
         record + R"json(", "job": "", "system": ""},
     "state": {"current": ["COMPLETED"], "reason": "None"},
     "time": {"start": 100, "end": 160, "submission": 90},
     "tres": {"requested": [], "allocated": [{"type": "cpu", "name": "", "count": 4},
                                             {"type": "node", "name": "", "count": 4})json" +
         gpu_tres + "]}}]}";
}

// What describe() computes for the job's nodes when its GPUs read as 0 (accounting without
// gres/gpu): no traffic at all.
json computed_with_zero_gpus() {
  return {{"nodes", "gpu[007-010]"},
          {"leaf_groups", {"ib-leaf-001", "ib-leaf-002"}},
          {"pods", 0},
          {"gpus", 0},
          {"cross_spine_gb_per_gb", 0.0},
          {"cross_spine_share", 0.0},
          {"cross_core_gb_per_gb", 0.0},
          {"busiest_uplinks", ""},
          {"uplink_ms_per_gb", 0.0},
          {"uplink_oversubscription", 1.0},
          {"gpus_made_unusable", 0.0}};
}

}  // namespace

TEST(ExplainPlacement, AccountingWithoutGresGpuIsNamedWithTheSettingThatKeepsIt) {
  const auto jobs = parse_sacct_jobs(sacct_job(kSplitRecord, ""), "t");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].total_gpus, 0);
  EXPECT_TRUE(accounting_lacks_gpus(jobs[0]));
  const std::string note = accounting_gpus_note(jobs[0]);
  EXPECT_NE(note.find("accounting has no GPU counts"), std::string::npos) << note;
  EXPECT_NE(note.find("AccountingStorageTRES=gres/gpu"), std::string::npos) << note;
  EXPECT_NE(note.find("placement record's"), std::string::npos) << note;

  // With gres/gpu kept, the count is accounting's.
  const auto kept =
      parse_sacct_jobs(sacct_job(kSplitRecord, R"(, {"type": "gres", "name": "gpu", "count": 32})"), "t");
  EXPECT_EQ(kept[0].total_gpus, 32);
  EXPECT_FALSE(accounting_lacks_gpus(kept[0]));
  // A CPU job has no GPUs to keep; a job slurmctld still holds is not read from accounting.
  EXPECT_FALSE(accounting_lacks_gpus(
      parse_sacct_jobs(sacct_job("fabricfit placement=slurm reason=no-gpus", ""), "t")[0]));
  SlurmJob live = jobs[0];
  live.from_accounting = false;
  EXPECT_FALSE(accounting_lacks_gpus(live));
}

TEST(ExplainPlacement, APurgedJobWithoutGpuCountsTakesItsRecordsFigures) {
  const auto job = parse_sacct_jobs(sacct_job(kSplitRecord, ""), "t")[0];
  const json p = reconcile_own_placement(
      computed_with_zero_gpus(),
      {.ended = true, .gpus_known = !accounting_lacks_gpus(job), .record = job.placement_record});
  EXPECT_TRUE(p["gpus"].is_null());
  EXPECT_DOUBLE_EQ(p["cross_spine_gb_per_gb"].get<double>(), 3.88);
  EXPECT_DOUBLE_EQ(p["uplink_ms_per_gb"].get<double>(), 0.62);
  EXPECT_DOUBLE_EQ(p["gpus_made_unusable"].get<double>(), -2.3);
  EXPECT_EQ(p.value("figures_from", ""), "placement record");

  const std::string text = render_placement(p);
  EXPECT_EQ(text.find("(0 GPUs)"), std::string::npos) << text;
  EXPECT_EQ(text.find("no traffic leaves a leaf group"), std::string::npos) << text;
  EXPECT_NE(text.find("GPUs unknown: accounting has no GPU counts"), std::string::npos) << text;
  EXPECT_NE(text.find("leaf groups  2 (ib-leaf-001, ib-leaf-002)"), std::string::npos) << text;
  EXPECT_NE(text.find("cross-spine  3.88 GB per GB of message (placement record)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("uplinks      0.62 ms per GB of message on the busiest (placement record)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("-2.3 GPUs the workload mix can no longer use: at placement (its placement record)"),
            std::string::npos)
      << text;
}

TEST(ExplainPlacement, APurgedJobWhoseRecordHasNoFiguresHasUnknownTraffic) {
  // -w over both leaf groups: Slurm's choice, recorded without figures.
  const auto job = parse_sacct_jobs(sacct_job("fabricfit placement=slurm reason=required-nodes", ""), "t")[0];
  ASSERT_TRUE(accounting_lacks_gpus(job));
  EXPECT_NE(accounting_gpus_note(job).find("its traffic is unknown"), std::string::npos);
  const json p = reconcile_own_placement(
      computed_with_zero_gpus(), {.ended = true, .gpus_known = false, .record = job.placement_record});
  EXPECT_TRUE(p["cross_spine_gb_per_gb"].is_null());
  EXPECT_TRUE(p["gpus_made_unusable"].is_null());
  const std::string text = render_placement(p);
  EXPECT_EQ(text.find("(0 GPUs)"), std::string::npos) << text;
  EXPECT_EQ(text.find("no traffic leaves a leaf group"), std::string::npos) << text;
  EXPECT_NE(text.find("traffic      unknown"), std::string::npos) << text;
  EXPECT_EQ(text.find("unusable"), std::string::npos) << text;
}

TEST(ExplainPlacement, AnEndedJobWithGpuCountsKeepsItsComputedTraffic) {
  json computed = computed_with_zero_gpus();
  computed["gpus"] = 32;
  computed["cross_spine_gb_per_gb"] = 1.5;
  computed["cross_spine_share"] = 0.5;
  computed["busiest_uplinks"] = "ib-leaf-001";
  computed["uplink_ms_per_gb"] = 0.25;
  const json p =
      reconcile_own_placement(computed, {.ended = true, .gpus_known = true, .record = kSplitRecord});
  EXPECT_EQ(p["gpus"], 32);
  EXPECT_DOUBLE_EQ(p["cross_spine_gb_per_gb"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(p["gpus_made_unusable"].get<double>(), -2.3);
  const std::string text = render_placement(p);
  EXPECT_NE(text.find("gpu[007-010] (32 GPUs)"), std::string::npos) << text;
  EXPECT_NE(text.find("(50% of its inter-node traffic)"), std::string::npos) << text;
  EXPECT_NE(text.find("on the busiest (ib-leaf-001), oversubscribed 1:1"), std::string::npos) << text;
}

TEST(ExplainPlacement, ARunningJobsUnusableGpusOfNowAndOfItsPlacementAreLabelled) {
  json computed = computed_with_zero_gpus();
  computed["gpus"] = 32;
  computed["cross_spine_gb_per_gb"] = 3.88;
  computed["cross_spine_share"] = 0.5;
  computed["busiest_uplinks"] = "ib-leaf-001";
  computed["uplink_ms_per_gb"] = 0.62;
  computed["gpus_made_unusable"] = 2.3;  // on today's free GPUs
  const json p =
      reconcile_own_placement(computed, {.ended = false, .gpus_known = true, .record = kSplitRecord});
  EXPECT_DOUBLE_EQ(p["gpus_made_unusable"].get<double>(), 2.3);
  EXPECT_DOUBLE_EQ(p.value("gpus_made_unusable_at_placement", 0.0), -2.3);
  EXPECT_EQ(p.value("unusable_when", ""), "now");
  const std::string text = render_placement(p);
  EXPECT_NE(text.find("unusable     +2.3 GPUs the workload mix can no longer use: now, on today's free GPUs"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("-2.3 at placement (its placement record)"), std::string::npos) << text;

  // Without a record, only the figure of now, still labelled.
  const std::string alone =
      render_placement(reconcile_own_placement(computed, {.ended = false, .gpus_known = true, .record = ""}));
  EXPECT_NE(alone.find(": now, on today's free GPUs"), std::string::npos) << alone;
  EXPECT_EQ(alone.find("at placement"), std::string::npos) << alone;
}

TEST(ExplainPlacement, ChoicesOnTheSameFreeGpusAreNotLabelled) {
  json choice = computed_with_zero_gpus();
  choice["gpus"] = 32;
  choice["leaf_groups"] = {"ib-leaf-001"};
  const std::string text = render_placement(choice);
  EXPECT_NE(text.find("gpu[007-010] (32 GPUs)"), std::string::npos) << text;
  EXPECT_NE(text.find("uplinks      none used: no traffic leaves a leaf group"), std::string::npos) << text;
  EXPECT_NE(text.find("unusable     +0.0 GPUs the workload mix can no longer use\n"), std::string::npos)
      << text;
}

TEST(ExplainPlacement, SegmentsAreListedOrSaidNotToHold) {
  json choice = computed_with_zero_gpus();
  choice["segments"] = {{"size", 2}, {"nodes", {"gpu[001-002]", "gpu[005-006]"}}};
  std::string text = render_placement(choice);
  EXPECT_NE(text.find("  segments     2 of 2 node(s), one domain each (gpu[001-002], gpu[005-006])\n"),
            std::string::npos)
      << text;
  choice["segments"]["nodes"] = json::array();
  text = render_placement(choice);
  EXPECT_NE(text.find("  segments     not 2-node segments of one domain each\n"), std::string::npos) << text;
}

TEST(ExplainPlacement, ASnapshotWithNoConfigBehindItSaysWhatWasTried) {
  const std::string error = "/var/lib/fabricfit/fabric.snapshot: cannot open";
  const std::string none = snapshot_load_error("/etc/slurm/fabricfit.conf", false, false, error);
  EXPECT_NE(none.find("no fabricfit.conf found (tried /etc/slurm/fabricfit.conf, the default of --conf)"),
            std::string::npos)
      << none;
  EXPECT_NE(none.find("using the default snapshot path: " + error), std::string::npos) << none;
  EXPECT_NE(none.find("--snapshot FILE"), std::string::npos) << none;
  const std::string named = snapshot_load_error("/tmp/site.conf", true, false, error);
  EXPECT_NE(named.find("tried /tmp/site.conf, named by --conf"), std::string::npos) << named;
  const std::string found = snapshot_load_error("/etc/slurm/fabricfit.conf", false, true, error);
  EXPECT_EQ(found.find("no fabricfit.conf found"), std::string::npos) << found;
  EXPECT_NE(found.find(error + " (SnapshotFile of /etc/slurm/fabricfit.conf"), std::string::npos) << found;
}

// What crossed_parts says of a job in two leaf groups, and of one in one group.
constexpr fabricfit::CrossedParts kSplit{
    .host_links = true, .nvlink = true, .nvlink_paced = true, .uplinks = true};
constexpr fabricfit::CrossedParts kOneGroup{
    .host_links = true, .nvlink = true, .nvlink_paced = true, .uplinks = false};

// Issue 29: the unhealthy links a placement crosses (its hosts' HCA links; its leaf groups'
// uplinks when it spans several) and those it avoided among the free hosts it did not use.
// two_groups_of_four: gpu001-004 under the first leaf, gpu005-008 under the second.
TEST(ExplainHealth, CrossedAndAvoidedLinksOfASplitJob) {
  using fabricfit::HealthState;
  const fabricfit::Fabric f = fabricfit::testing::two_groups_of_four();
  const auto health =
      fabricfit::testing::health_file_of(f, {{.host = "gpu001", .state = HealthState::Flapping},
                                             {.host = "gpu003", .state = HealthState::SubHealthy},
                                             {.host = "gpu004", .state = HealthState::Down},
                                             {.leaf = f.leaf_groups[1].name, .state = HealthState::Down}});
  // gpu004 had no free GPUs: not a candidate, so not avoided.
  const json h = placement_health(f, health, {"gpu001", "gpu005"}, kSplit,
                                  {"gpu001", "gpu002", "gpu003", "gpu005", "gpu006", "gpu007", "gpu008"});
  ASSERT_EQ(h["crossed"].size(), 2u) << h.dump(2);
  EXPECT_EQ(h["crossed"][0]["host"], "gpu001");
  EXPECT_EQ(h["crossed"][0]["state"], "flapping");
  EXPECT_NE(h["crossed"][0]["evidence"].get<std::string>().find("LinkDownedCounter"), std::string::npos);
  EXPECT_EQ(h["crossed"][1]["leaf_group"], f.leaf_groups[1].name)
      << "it spans two groups: their uplinks count";
  EXPECT_EQ(h["crossed"][1]["state"], "down");
  ASSERT_EQ(h["avoided"].size(), 1u) << h.dump(2);
  EXPECT_EQ(h["avoided"][0]["host"], "gpu003");
  EXPECT_EQ(h["sweeps"], 7);

  const std::string t = render_placement_health(h);
  EXPECT_NE(
      t.find("health       crosses 2 link(s) not healthy (health sweep 7):\n               gpu001 HCA link "),
      std::string::npos)
      << t;
  EXPECT_NE(t.find("avoided      1 link(s) not healthy among the free hosts it did not use:\n               "
                   "gpu003 HCA link"),
            std::string::npos)
      << t;
}

TEST(ExplainHealth, NvlinkHostsCrossedAndAvoided) {
  using fabricfit::HealthState;
  const fabricfit::Fabric f = fabricfit::testing::two_groups_of_four();
  auto health = fabricfit::testing::health_file_of(f, {});
  health.nvlink = {
      {"gpu002", HealthState::SubHealthy, 950, "GPU 00000009:01:00.0: Bandwidth Degraded", "r:69"},
      {"gpu003", HealthState::Down, 960, "GPU 00000018:01:00.0: Route Unhealthy True", "r:103"},
      {"gpu008", HealthState::Down, 960, "not free: not a choice", "r:5"}};
  const json h =
      placement_health(f, health, {"gpu001", "gpu002"}, kOneGroup, {"gpu001", "gpu002", "gpu003", "gpu004"});
  ASSERT_EQ(h["crossed"].size(), 1u) << h.dump(2);
  EXPECT_EQ(h["crossed"][0]["nvlink"], "gpu002");
  EXPECT_EQ(h["crossed"][0]["state"], "degraded");
  ASSERT_EQ(h["avoided"].size(), 1u) << h.dump(2);
  EXPECT_EQ(h["avoided"][0]["nvlink"], "gpu003");
  const std::string t = render_placement_health(h);
  EXPECT_NE(t.find("crosses 1 link(s) not healthy (health sweep 7):\n"
                   "               gpu002 NVLink  degraded: GPU 00000009:01:00.0: Bandwidth Degraded\n"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("               gpu003 NVLink  failing: GPU 00000018:01:00.0: Route Unhealthy True\n"),
            std::string::npos)
      << t;
}

TEST(ExplainHealth, OneLeafGroupCrossesNoUplinkAndAvoidsTheOthers) {
  using fabricfit::HealthState;
  const fabricfit::Fabric f = fabricfit::testing::two_groups_of_four();
  const auto health = fabricfit::testing::health_file_of(
      f, {{.leaf = f.leaf_groups[0].name, .state = HealthState::Down},
          {.leaf = f.leaf_groups[1].name, .state = HealthState::Flapping}});
  const json h = placement_health(f, health, {"gpu001", "gpu002"}, kOneGroup, {"gpu001", "gpu002", "gpu006"});
  EXPECT_TRUE(h["crossed"].empty()) << "its traffic stays under its leaf: " << h.dump(2);
  ASSERT_EQ(h["avoided"].size(), 1u);
  EXPECT_EQ(h["avoided"][0]["leaf_group"], f.leaf_groups[1].name);
  EXPECT_EQ(h["avoided"][0]["state"], "flapping");
  EXPECT_NE(render_placement_health(h).find("crosses no link that is not healthy"), std::string::npos);
  // No free host in the other group: nothing there was a choice, so nothing avoided.
  EXPECT_TRUE(placement_health(f, health, {"gpu001", "gpu002"}, kOneGroup, {"gpu003"})["avoided"].empty());
  EXPECT_TRUE(placement_health(f, fabricfit::testing::health_file_of(f, {}), {"gpu001", "gpu005"}, kSplit,
                               {"gpu006"})["crossed"]
                  .empty());
}

// A one-host job crosses no HCA link and no uplink; with one GPU it crosses nothing at all,
// with several it crosses its host's NVLink (crossed_parts): explain says what placement
// counted, and lists as avoided only parts of the kinds the job would have crossed.
TEST(ExplainHealth, OneHostJobsCrossOnlyTheirNvlink) {
  using fabricfit::HealthState;
  const fabricfit::Fabric f = fabricfit::testing::two_groups_of_four();
  auto health =
      fabricfit::testing::health_file_of(f, {{.host = "gpu001", .state = HealthState::Down},
                                             {.host = "gpu002", .state = HealthState::Down},
                                             {.leaf = f.leaf_groups[0].name, .state = HealthState::Down}});
  health.nvlink = {{"gpu001", HealthState::SubHealthy, 950, "GPU 0: Bandwidth Degraded", "r:69"},
                   {"gpu003", HealthState::Down, 960, "GPU 0: Route Unhealthy True", "r:103"}};
  const std::vector<std::string> free{"gpu001", "gpu002", "gpu003"};
  const json one_gpu = placement_health(f, health, {"gpu001"}, fabricfit::CrossedParts{}, free);
  EXPECT_TRUE(one_gpu["crossed"].empty()) << one_gpu.dump(2);
  EXPECT_TRUE(one_gpu["avoided"].empty()) << one_gpu.dump(2);

  const json four_gpus = placement_health(
      f, health, {"gpu001"}, fabricfit::CrossedParts{.nvlink = true, .nvlink_paced = true}, free);
  ASSERT_EQ(four_gpus["crossed"].size(), 1u) << four_gpus.dump(2);
  EXPECT_EQ(four_gpus["crossed"][0]["nvlink"], "gpu001");
  ASSERT_EQ(four_gpus["avoided"].size(), 1u)
      << "gpu002's HCA link was never a concern: " << four_gpus.dump(2);
  EXPECT_EQ(four_gpus["avoided"][0]["nvlink"], "gpu003");
}

// A job NVLink does not pace (across domains, ring traffic: crossed_parts) is not slowed by a
// degraded NVLink: explain lists only failing ones, as placement counts only those.
TEST(ExplainHealth, ADegradedNvlinkIsNotCrossedByAJobItDoesNotPace) {
  using fabricfit::HealthState;
  const fabricfit::Fabric f = fabricfit::testing::two_groups_of_four();
  auto health = fabricfit::testing::health_file_of(f, {});
  health.nvlink = {{"gpu001", HealthState::SubHealthy, 950, "GPU 0: Bandwidth Degraded", "r:69"},
                   {"gpu002", HealthState::Down, 960, "GPU 0: Route Unhealthy True", "r:103"},
                   {"gpu003", HealthState::SubHealthy, 950, "GPU 0: Bandwidth Degraded", "r:70"}};
  const fabricfit::CrossedParts across{.host_links = true, .nvlink = true, .nvlink_paced = false};
  const json h = placement_health(f, health, {"gpu001", "gpu002"}, across, {"gpu003"});
  ASSERT_EQ(h["crossed"].size(), 1u) << h.dump(2);
  EXPECT_EQ(h["crossed"][0]["nvlink"], "gpu002");
  EXPECT_TRUE(h["avoided"].empty()) << h.dump(2);
}
