// SPDX-License-Identifier: GPL-2.0-or-later
// Placement records and the topology text (placement/slurm/fabric_status.hpp, ff_engine_record,
// ff_engine_topology) on a generated fabric, as discovery builds it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <string>
#include <vector>

#include "capi/fabricfit_api.h"
#include "generated_fabric.hpp"
#include "placement/slurm/fabric_status.hpp"
#include "topology/snapshot.hpp"

using namespace fabricfit;

namespace {

constexpr ff_pattern_t ring{FF_PATTERN_RING, 1, 1, 1};
constexpr ff_pattern_t tree{FF_PATTERN_TREE, 1, 1, 1};

// 3 leaf groups of 4 hosts, 2 spines, 2:1 oversubscribed leaves.
Fabric fabric() {
  return fabricfit::testing::generated_fabric(
      fabricfit::testing::clos_spec({.leaves = 3, .hosts_per_leaf = 4, .uplinks = 2}));
}

// A cable of leaf group `group`'s leaf found at 4xEDR where 4xHDR is expected, as the
// builder records one.
DegradedLink add_degraded_uplink(Fabric& f, int group, int port, const std::string& spine, int spine_port) {
  DegradedLink d;
  d.a = f.graph[f.leaf_groups[group].leaves[0]].name;
  d.port_a = port;
  d.b = spine;
  d.port_b = spine_port;
  d.rate = *parse_link_rate("4xEDR");
  d.expected_rate = *parse_link_rate("4xHDR");
  f.degraded_links.push_back(d);
  return d;
}

}  // namespace

TEST(PlacementRecord, FabricfitPlacementNamesGroupsPatternAndCosts) {
  const Fabric f = fabric();
  const LocalityIndex index(f);
  const std::vector<int> hosts{*index.find_host("gpu001"), *index.find_host("gpu002"),
                               *index.find_host("gpu005")};
  const std::vector<int> gpus{8, 8, 8};
  const auto rec = placement_record(index, nullptr, nullptr, hosts, gpus, parse_comm_pattern("ring"), "");
  EXPECT_TRUE(rec.starts_with("fabricfit placement=fabricfit leaf_groups=2 groups=") &&
              rec.ends_with(" pattern=ring"))
      << rec;
  EXPECT_NE(rec.find(index.leaf_group(0).name + "," + index.leaf_group(1).name), std::string::npos) << rec;
  EXPECT_NE(rec.find(" cross_spine_gb="), std::string::npos);
  EXPECT_EQ(rec.find("unusable_gpus"), std::string::npos);  // no free state given
  // One leaf group: nothing crosses a spine.
  const std::vector<int> one{hosts[0], hosts[1]};
  const auto local = placement_record(index, nullptr, nullptr, one, std::vector<int>{8, 8},
                                      parse_comm_pattern("alltoall"), "");
  EXPECT_NE(local.find("leaf_groups=1 "), std::string::npos) << local;
  EXPECT_NE(local.find("cross_spine_gb=0 "), std::string::npos) << local;
  EXPECT_NE(local.find("uplink_ms=0"), std::string::npos) << local;
}

TEST(PlacementRecord, NamesTheNvlinkDomainsOnAFabricWithThem) {
  Fabric f = fabric();
  const LocalityIndex plain(f);
  const std::vector<int> hosts{*plain.find_host("gpu001"), *plain.find_host("gpu003"),
                               *plain.find_host("gpu005")};
  const std::vector<int> gpus{8, 8, 8};
  EXPECT_EQ(
      placement_record(plain, nullptr, nullptr, hosts, gpus, parse_comm_pattern("ring"), "").find("domains"),
      std::string::npos);
  // nvl0: gpu001-002, nvl1: gpu003-004; gpu005 in none.
  set_nvlink_domains(f, {{"nvl0", {hosts[0], hosts[0] + 1}}, {"nvl1", {hosts[1], hosts[1] + 1}}});
  const LocalityIndex index(f);
  const auto rec = placement_record(index, nullptr, nullptr, hosts, gpus, parse_comm_pattern("ring"), "");
  EXPECT_NE(rec.find(" nvlink_domains=2 domains=nvl0,nvl1,(none) "), std::string::npos) << rec;
}

TEST(PlacementRecord, FallbackSaysWhyInOneWord) {
  const Fabric f = fabric();
  const LocalityIndex index(f);
  EXPECT_EQ(placement_record(index, nullptr, nullptr, {}, {}, parse_comm_pattern("tp=2,dp=2"), "no-gpus"),
            "fabricfit placement=slurm reason=no-gpus pattern=tp=2,pp=1,dp=2");
  EXPECT_EQ(placement_record(index, nullptr, nullptr, {}, {}, parse_comm_pattern("ring"),
                             "node x is not in the fabric"),
            "fabricfit placement=slurm reason=node_x_is_not_in_the_fabric pattern=ring");
}

TEST(TopologyText, LeafGroupsWithHostlistsFreeGpusAndUplinks) {
  const Fabric f = fabric();
  GpuState gpus = GpuState::uniform(static_cast<int>(f.hosts.size()), 8);
  gpus.free[*f.host_index("gpu002")] = 3;
  SnapshotInfo info;
  info.producer = "fabricfit test";
  info.created_unix = 1000;
  const auto text = topology_text(f, info, gpus, {}, 1090);
  EXPECT_NE(text.find("SnapshotAge=90s"), std::string::npos) << text;
  EXPECT_NE(text.find("Hosts=12 LeafGroups=3 Pods=0 Rails=1 Tiers=2"), std::string::npos) << text;
  EXPECT_NE(text.find(fmt::format("LeafGroup={} Hosts=gpu[001-004] FreeGpus=27/32 Uplinks=2 UplinkGbps=400 "
                                  "Oversubscription=2.00\n",
                                  f.leaf_groups[0].name)),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Hosts=gpu[009-012] FreeGpus=32/32"), std::string::npos) << text;
  // Limited to a node list: only the groups of those nodes.
  const auto some = topology_text(f, info, gpus, {"gpu010"}, 1090);
  EXPECT_EQ(some.find("gpu[001-004]"), std::string::npos) << some;
  EXPECT_NE(some.find("Hosts=gpu[009-012]"), std::string::npos) << some;
}

TEST(TopologyText, DegradedLinksAreListed) {
  Fabric f = fabric();
  const DegradedLink d = add_degraded_uplink(f, 0, 5, "ib-spine-01", 1);
  const GpuState gpus = GpuState::uniform(static_cast<int>(f.hosts.size()), 8);
  const auto text = topology_text(f, SnapshotInfo{}, gpus, {}, 0);
  EXPECT_NE(text.find(fmt::format("DegradedLink={}[5]-ib-spine-01[1] Rate=4xEDR Expected=4xHDR", d.a)),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("SnapshotAge=unknown"), std::string::npos);
  EXPECT_EQ(topology_text(f, SnapshotInfo{}, gpus, {"gpu012"}, 0).find("DegradedLink="), std::string::npos);
}

TEST(TopologyText, NvlinkDomainsWithTheirFreeGpusUnderTheGroupsShown) {
  Fabric f = fabric();
  const auto at = [&](const char* name) { return *f.host_index(name); };
  // nvl0 = gpu001-002 (leaf group 0), nvl1 = gpu005-006 (group 1); nothing in group 2.
  set_nvlink_domains(f, {{"nvl0", {at("gpu001"), at("gpu002")}}, {"nvl1", {at("gpu005"), at("gpu006")}}});
  GpuState gpus = GpuState::uniform(static_cast<int>(f.hosts.size()), 8);
  gpus.free[at("gpu002")] = 3;
  const auto text = topology_text(f, SnapshotInfo{}, gpus, {}, 0);
  EXPECT_NE(text.find(" Warnings=0 NvlinkDomains=2\n"), std::string::npos) << text;
  EXPECT_NE(text.find(fmt::format("NvlinkDomain=nvl0 Hosts=gpu[001-002] FreeGpus=11/16 WholeFreeHosts=1 "
                                  "LeafGroups={}\n",
                                  f.leaf_groups[0].name)),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("NvlinkDomain=nvl1 Hosts=gpu[005-006] FreeGpus=16/16 WholeFreeHosts=2 "),
            std::string::npos)
      << text;
  // A node list keeps the domains under its nodes' leaf groups, in the controller and in
  // the client's filter alike.
  const auto some = topology_text(f, SnapshotInfo{}, gpus, {"gpu007"}, 0);
  EXPECT_EQ(some.find("NvlinkDomain=nvl0"), std::string::npos) << some;
  EXPECT_NE(some.find("NvlinkDomain=nvl1"), std::string::npos) << some;
  EXPECT_EQ(filter_topology_text(text, {"gpu007"}), some);
  EXPECT_EQ(topology_text(f, SnapshotInfo{}, gpus, {"gpu010"}, 0).find("NvlinkDomain="), std::string::npos);
  // No domains: no count and no lines.
  EXPECT_EQ(topology_text(fabric(), SnapshotInfo{}, gpus, {}, 0).find("NvlinkDomain"), std::string::npos);
  // With the health view: the hosts of each domain whose NVLink fails or is degraded.
  FabricHealthView health;
  health.nvlink.assign(f.hosts.size(), PartHealth::Healthy);
  health.nvlink[at("gpu002")] = PartHealth::Failing;
  health.nvlink[at("gpu005")] = PartHealth::Degraded;
  health.nvlink[at("gpu006")] = PartHealth::Degraded;
  const auto sick = topology_text(f, SnapshotInfo{}, gpus, {}, 0, &health);
  EXPECT_NE(sick.find(fmt::format("WholeFreeHosts=1 LeafGroups={} NvlinkFailing=1\n", f.leaf_groups[0].name)),
            std::string::npos)
      << sick;
  EXPECT_NE(
      sick.find(fmt::format("WholeFreeHosts=2 LeafGroups={} NvlinkDegraded=2\n", f.leaf_groups[1].name)),
      std::string::npos)
      << sick;
  EXPECT_EQ(filter_topology_text(sick, {"gpu007"}),
            topology_text(f, SnapshotInfo{}, gpus, {"gpu007"}, 0, &health));
}

TEST(TopologyText, AClientFiltersThePackedTextAsTheControllerWould) {
  Fabric f = fabric();
  add_degraded_uplink(f, 2, 6, "ib-spine-02", 3);
  const GpuState gpus = GpuState::uniform(static_cast<int>(f.hosts.size()), 8);
  const auto all = topology_text(f, SnapshotInfo{}, gpus, {}, 0);
  EXPECT_NE(all.find(" LeafGroup=" + f.leaf_groups[2].name), std::string::npos) << all;
  for (const std::vector<std::string>& nodes :
       {std::vector<std::string>{"gpu010"}, {"gpu001", "gpu012"}, {"gpu005"}, {"nowhere"}}) {
    EXPECT_EQ(filter_topology_text(all, nodes), topology_text(f, SnapshotInfo{}, gpus, nodes, 0)) << nodes[0];
  }
  EXPECT_EQ(filter_topology_text(all, {}), all);
  char out[4096], err[128];
  ASSERT_EQ(ff_topology_filter(all.c_str(), "gpu[009-010]", out, sizeof out, err, sizeof err), FF_OK) << err;
  EXPECT_EQ(std::string(out), topology_text(f, SnapshotInfo{}, gpus, {"gpu009"}, 0));
}

TEST(ReportApi, RecordAndTopologyThroughTheCEdge) {
  const auto dir = std::filesystem::temp_directory_path() / ("ff-report-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  SnapshotInfo info;
  info.created_unix = 1;
  save_snapshot(dir / "fabric.snapshot", fabric(), info);
  char err[256] = "";
  ff_engine_t* engine = nullptr;
  ASSERT_EQ(ff_engine_load((dir / "fabric.snapshot").c_str(), &engine, err, sizeof err), FF_OK) << err;
  const int n = ff_engine_host_count(engine);
  std::vector<int> free(n, 8), total(n, 8);
  const int hosts[] = {ff_engine_host(engine, "gpu001"), ff_engine_host(engine, "gpu002")};
  const int gpus[] = {8, 8};
  char out[8192];
  ASSERT_EQ(ff_engine_record(engine, hosts, gpus, 2, free.data(), total.data(), &ring, nullptr, out,
                             sizeof out, err, sizeof err),
            FF_OK)
      << err;
  EXPECT_TRUE(std::string(out).starts_with("fabricfit placement=fabricfit leaf_groups=1 ")) << out;
  EXPECT_NE(std::string(out).find(" unusable_gpus="), std::string::npos) << out;
  ASSERT_EQ(ff_engine_record(engine, nullptr, nullptr, 0, nullptr, nullptr, &ring, "no-fit", out, sizeof out,
                             err, sizeof err),
            FF_OK);
  EXPECT_STREQ(out, "fabricfit placement=slurm reason=no-fit pattern=ring");
  EXPECT_EQ(ff_engine_record(engine, nullptr, nullptr, 0, nullptr, nullptr, &ring, nullptr, out, sizeof out,
                             err, sizeof err),
            FF_EINVAL);
  EXPECT_EQ(ff_engine_record(engine, hosts, gpus, 2, free.data(), total.data(), nullptr, nullptr, out,
                             sizeof out, err, sizeof err),
            FF_EINVAL)
      << "fabricfit's placement is recorded with its pattern";
  EXPECT_NE(std::string(err).find("needs its pattern"), std::string::npos) << err;
  ASSERT_EQ(
      ff_engine_topology(engine, free.data(), total.data(), "gpu[005-006]", out, sizeof out, err, sizeof err),
      FF_OK)
      << err;
  EXPECT_NE(std::string(out).find("Hosts=gpu[005-008] FreeGpus=32/32"), std::string::npos) << out;
  EXPECT_EQ(std::string(out).find("gpu[001-004]"), std::string::npos) << out;
  char small[16];
  EXPECT_NE(
      ff_engine_topology(engine, free.data(), total.data(), nullptr, small, sizeof small, err, sizeof err),
      FF_OK);
  ff_engine_free(engine);
  std::filesystem::remove_all(dir);
}

TEST(ReportApi, AJobsRecordOrdersItsHostsAndSpreadsItsGpus) {
  const auto dir = std::filesystem::temp_directory_path() / ("ff-jobrec-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  save_snapshot(dir / "fabric.snapshot", fabric(), SnapshotInfo{});
  char err[256] = "", out[4096], direct[4096];
  ff_engine_t* engine = nullptr;
  ASSERT_EQ(ff_engine_load((dir / "fabric.snapshot").c_str(), &engine, err, sizeof err), FF_OK) << err;
  const int n = ff_engine_host_count(engine);
  std::vector<int> free(n, 8), total(n, 8);
  // Slurm's node order (gpu005 first) is not the rank order: the record is the same.
  const int given[] = {ff_engine_host(engine, "gpu005"), ff_engine_host(engine, "gpu001")};
  const int ranked[] = {ff_engine_host(engine, "gpu001"), ff_engine_host(engine, "gpu005")};
  ff_request_t request{};
  request.min_nodes = 2;
  request.gpus_per_node = 8;
  request.pattern = ring;
  ASSERT_EQ(ff_engine_job_record(engine, &request, given, 2, free.data(), total.data(), out, sizeof out, err,
                                 sizeof err),
            FF_OK)
      << err;
  const int eight[] = {8, 8};
  ASSERT_EQ(ff_engine_record(engine, ranked, eight, 2, free.data(), total.data(), &ring, nullptr, direct,
                             sizeof direct, err, sizeof err),
            FF_OK);
  EXPECT_STREQ(out, direct);
  EXPECT_NE(std::string(out).find(" leaf_groups=2 "), std::string::npos) << out;
  // --gpus=10 on two nodes with 8 and 4 free: 8 on the first in rank order, 2 on the next.
  request.gpus_per_node = 0;
  request.total_gpus = 10;
  free[ranked[1]] = 4;
  ASSERT_EQ(ff_engine_job_record(engine, &request, given, 2, free.data(), total.data(), out, sizeof out, err,
                                 sizeof err),
            FF_OK);
  const int spread[] = {8, 2};
  ASSERT_EQ(ff_engine_record(engine, ranked, spread, 2, free.data(), total.data(), &ring, nullptr, direct,
                             sizeof direct, err, sizeof err),
            FF_OK);
  EXPECT_STREQ(out, direct);
  ff_engine_free(engine);
  std::filesystem::remove_all(dir);
}

TEST(ReportApi, AFallbackRecordNeedsNoEngineAndLeavesAnUnknownPatternOut) {
  char out[256], err[128];
  ASSERT_EQ(ff_engine_record(nullptr, nullptr, nullptr, 0, nullptr, nullptr, nullptr, "no snapshot at /x",
                             out, sizeof out, err, sizeof err),
            FF_OK)
      << err;
  EXPECT_STREQ(out, "fabricfit placement=slurm reason=no_snapshot_at_/x");
  ASSERT_EQ(ff_engine_record(nullptr, nullptr, nullptr, 0, nullptr, nullptr, &tree, "no-fit", out, sizeof out,
                             err, sizeof err),
            FF_OK);
  EXPECT_STREQ(out, "fabricfit placement=slurm reason=no-fit pattern=tree");
  EXPECT_EQ(ff_engine_record(nullptr, nullptr, nullptr, 0, nullptr, nullptr, &ring, nullptr, out, sizeof out,
                             err, sizeof err),
            FF_EINTERNAL);
}
