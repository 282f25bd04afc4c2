// SPDX-License-Identifier: GPL-2.0-or-later
// HealthDrain (cli/health_drain.hpp): which nodes a sweep drains, resumes or leaves alone,
// on tests/fixtures/snapshots/two-tier.snap (gpu001-004) with health files written by the
// real writer and Slurm nodes as `scontrol show nodes --json` reports them.
#include <gtest/gtest.h>

#include "cli/health_drain.hpp"
#include "health_fixture.hpp"
#include "topology/snapshot.hpp"

using namespace fabricfit;
using namespace fabricfit::cli;
using fabricfit::testing::health_file_of;

namespace {

const std::string kSnap = std::string(FF_SOURCE_DIR) + "/tests/fixtures/snapshots/two-tier.snap";

SlurmNode node(std::string name, std::string state = "IDLE", std::string reason = "") {
  SlurmNode n;
  n.name = std::move(name);
  n.state = std::move(state);
  n.reason = std::move(reason);
  return n;
}

std::vector<std::string> names(const std::vector<NodeAction>& actions) {
  std::vector<std::string> out;
  for (const auto& a : actions) out.push_back(a.node);
  return out;
}

std::vector<SlurmNode> idle_nodes() {
  return {node("gpu001"), node("gpu002"), node("gpu003"), node("gpu004")};
}

}  // namespace

TEST(HealthDrain, DrainsAFlappingHostWithItsEvidenceAsReason) {
  const Fabric f = load_snapshot(kSnap).fabric;
  const HealthFile h = health_file_of(f, {{.host = "gpu003", .state = HealthState::Flapping}});
  const DrainPlan plan = plan_drains(f, h, idle_nodes(), 2);
  ASSERT_EQ(names(plan.drain), std::vector<std::string>{"gpu003"});
  EXPECT_TRUE(
      plan.drain[0].why.starts_with("fabricfit: HCA link flapping (LinkDownedCounter 3 in_window at "))
      << plan.drain[0].why;
  EXPECT_TRUE(plan.resume.empty());
  EXPECT_TRUE(plan.held.empty());
}

TEST(HealthDrain, OnlyFlappingHostLinksDrain) {
  const Fabric f = load_snapshot(kSnap).fabric;
  // A sub-healthy or down host link, or a flapping uplink, is placement's to avoid.
  const HealthFile h = health_file_of(f, {{.host = "gpu001", .state = HealthState::SubHealthy},
                                          {.host = "gpu002", .state = HealthState::Down},
                                          {.leaf = "ib-leaf-002", .state = HealthState::Flapping}});
  const DrainPlan plan = plan_drains(f, h, idle_nodes(), 4);
  EXPECT_TRUE(plan.drain.empty());
  EXPECT_TRUE(plan.held.empty());
}

TEST(HealthDrain, NeverMoreThanTheCapCountingItsEarlierDrains) {
  const Fabric f = load_snapshot(kSnap).fabric;
  const HealthFile h = health_file_of(f, {{.host = "gpu001", .state = HealthState::Flapping},
                                          {.host = "gpu002", .state = HealthState::Flapping},
                                          {.host = "gpu004", .state = HealthState::Flapping}});
  auto nodes = idle_nodes();
  nodes[1] = node("gpu002", "IDLE+DRAIN", "fabricfit: HCA link flapping (earlier)");
  const DrainPlan plan = plan_drains(f, h, nodes, 2);
  EXPECT_EQ(names(plan.drain), std::vector<std::string>{"gpu001"}) << "gpu002 holds one of the 2 places";
  ASSERT_EQ(names(plan.held), std::vector<std::string>{"gpu004"});
  EXPECT_EQ(plan.held[0].why, "HealthDrainMax=2 nodes are drained by fabricfit already");
  EXPECT_TRUE(plan.resume.empty()) << "gpu002 still flaps";
  EXPECT_TRUE(plan_drains(f, h, idle_nodes(), 0).drain.empty()) << "HealthDrainMax=0 drains none";
}

TEST(HealthDrain, ResumesOnlyWhatItDrainedOnceTheLinkNoLongerFlaps) {
  const Fabric f = load_snapshot(kSnap).fabric;
  const HealthFile h = health_file_of(f, {{.host = "gpu004", .state = HealthState::SubHealthy}});
  const std::vector<SlurmNode> nodes = {
      node("gpu001", "IDLE+DRAIN", "fabricfit: HCA link flapping (earlier)"),
      node("gpu002", "IDLE+DRAIN", "admin: cable check"),                // an admin's drain
      node("gpu003", "DOWN", "fabricfit: HCA link flapping (earlier)"),  // not drained: Slurm's now
      node("gpu004", "MIXED+DRAIN", "fabricfit: HCA link flapping (earlier)"),
  };
  const DrainPlan plan = plan_drains(f, h, nodes, 2);
  EXPECT_EQ(names(plan.resume), (std::vector<std::string>{"gpu001", "gpu004"}));
  EXPECT_TRUE(plan.drain.empty());
  EXPECT_TRUE(plan.held.empty());
}

TEST(HealthDrain, LeavesANodeWithSomeoneElsesReasonAndNamesHostsSlurmLacks) {
  const Fabric f = load_snapshot(kSnap).fabric;
  const HealthFile h = health_file_of(f, {{.host = "gpu002", .state = HealthState::Flapping},
                                          {.host = "gpu003", .state = HealthState::Flapping}});
  const std::vector<SlurmNode> nodes = {node("gpu001"), node("gpu002", "IDLE+DRAIN", "admin: cable check")};
  const DrainPlan plan = plan_drains(f, h, nodes, 4);
  EXPECT_TRUE(plan.drain.empty());
  ASSERT_EQ(names(plan.held), (std::vector<std::string>{"gpu002", "gpu003"}));
  EXPECT_EQ(plan.held[0].why, "it has a Reason of its own (\"admin: cable check\"): left to whoever set it");
  EXPECT_EQ(plan.held[1].why, "not a Slurm node");
}

TEST(HealthDrain, ANodeItDrainedThatLeftTheFabricStaysDrainedAndCounts) {
  const Fabric f = load_snapshot(kSnap).fabric;
  const HealthFile h = health_file_of(f, {{.host = "gpu001", .state = HealthState::Flapping}});
  auto nodes = idle_nodes();
  nodes.push_back(node("gpu099", "IDLE+DRAIN", "fabricfit: HCA link flapping (earlier)"));
  const DrainPlan plan = plan_drains(f, h, nodes, 1);
  EXPECT_TRUE(plan.drain.empty());
  ASSERT_EQ(names(plan.held), (std::vector<std::string>{"gpu099", "gpu001"}));
  EXPECT_TRUE(plan.resume.empty());
}

TEST(HealthDrain, KeepsItsDrainWhileTheLinkIsDown) {
  const Fabric f = load_snapshot(kSnap).fabric;
  const HealthFile h = health_file_of(f, {{.host = "gpu001", .state = HealthState::Down}});
  auto nodes = idle_nodes();
  nodes[0] = node("gpu001", "IDLE+DRAIN", "fabricfit: HCA link flapping (earlier)");
  const DrainPlan plan = plan_drains(f, h, nodes, 2);
  EXPECT_TRUE(plan.resume.empty()) << "down is no better than flapping";
  EXPECT_TRUE(plan.drain.empty());
}

TEST(HealthDrain, AFailingNvlinkDrainsADegradedOneDoesNotAndItResumesOnceItHeals) {
  const Fabric f = load_snapshot(kSnap).fabric;
  HealthFile h = health_file_of(f, {});
  h.nvlink = {{"gpu002", HealthState::Down, 900, "GPU 00000018:01:00.0: Route Unhealthy True", "r:103"},
              {"gpu003", HealthState::SubHealthy, 900, "GPU 00000009:01:00.0: Bandwidth Degraded", "r:69"}};
  DrainPlan plan = plan_drains(f, h, idle_nodes(), 2);
  ASSERT_EQ(names(plan.drain), std::vector<std::string>{"gpu002"});
  EXPECT_EQ(plan.drain[0].why, "fabricfit: NVLink failing (GPU 00000018:01:00.0: Route Unhealthy True)");
  // Drained, still failing: kept, and it holds a place under the cap.
  auto nodes = idle_nodes();
  nodes[1] = node("gpu002", "IDLE+DRAIN", plan.drain[0].why);
  h.nvlink.push_back({"gpu004", HealthState::Down, 950, "GPU 00000008:01:00.0: Route Unhealthy True", "r:5"});
  plan = plan_drains(f, h, nodes, 1);
  EXPECT_TRUE(plan.resume.empty());
  EXPECT_TRUE(plan.drain.empty());
  ASSERT_EQ(names(plan.held), std::vector<std::string>{"gpu004"});
  // Healed: resumed, saying why.
  h.nvlink.clear();
  plan = plan_drains(f, h, nodes, 1);
  ASSERT_EQ(names(plan.resume), std::vector<std::string>{"gpu002"});
  EXPECT_EQ(plan.resume[0].why, "its NVLink no longer fails");
}

// A drained node's Reason follows its cause: its HCA link healed but its NVLink now fails,
// or its flapping link went down for good. Same cause, newer evidence: left as it is (the
// Reason's time stays when the drain began for it).
TEST(HealthDrain, TheReasonIsRewrittenWhenItsCauseEndsAndAnotherHoldsTheNode) {
  const Fabric f = load_snapshot(kSnap).fabric;
  HealthFile h = health_file_of(f, {{.host = "gpu001", .state = HealthState::Down},
                                    {.host = "gpu003", .state = HealthState::Flapping}});
  h.nvlink = {{"gpu002", HealthState::Down, 900, "GPU 00000018:01:00.0: Route Unhealthy True", "r:103"},
              {"gpu003", HealthState::Down, 900, "GPU 00000008:01:00.0: Route Unhealthy True", "r:5"}};
  const std::vector<SlurmNode> nodes = {
      node("gpu001", "IDLE+DRAIN", "fabricfit: HCA link flapping (LinkDownedCounter 3 earlier)"),
      node("gpu002", "IDLE+DRAIN", "fabricfit: HCA link flapping (LinkDownedCounter 3 earlier)"),
      node("gpu003", "IDLE+DRAIN", "fabricfit: NVLink failing (GPU 00000008:01:00.0: older evidence)"),
      node("gpu004", "IDLE+DRAIN", "fabricfit: NVLink failing (GPU 0: healed since)"),
  };
  const DrainPlan plan = plan_drains(f, h, nodes, 4);
  ASSERT_EQ(names(plan.reason), (std::vector<std::string>{"gpu001", "gpu002"}))
      << "gpu003 still fails its NVLink";
  EXPECT_TRUE(plan.reason[0].why.starts_with("fabricfit: HCA link down (")) << plan.reason[0].why;
  EXPECT_EQ(plan.reason[1].why, "fabricfit: NVLink failing (GPU 00000018:01:00.0: Route Unhealthy True)");
  ASSERT_EQ(names(plan.resume), std::vector<std::string>{"gpu004"});
  EXPECT_EQ(plan.resume[0].why, "its NVLink no longer fails");
  EXPECT_TRUE(plan.drain.empty());
  EXPECT_TRUE(plan.held.empty());
  // Its link up again, a node its Reason says was down is resumed saying so.
  const DrainPlan up =
      plan_drains(f, health_file_of(f, {}), {node("gpu001", "IDLE+DRAIN", plan.reason[0].why)}, 4);
  ASSERT_EQ(names(up.resume), std::vector<std::string>{"gpu001"});
  EXPECT_EQ(up.resume[0].why, "its HCA link is up again");
  // A link that is down for good keeps a drain but starts none.
  EXPECT_TRUE(
      plan_drains(f, health_file_of(f, {{.host = "gpu001", .state = HealthState::Down}}), idle_nodes(), 4)
          .drain.empty());
}
