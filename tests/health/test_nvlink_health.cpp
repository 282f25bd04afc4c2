// SPDX-License-Identifier: GPL-2.0-or-later
// NVLink health from the nodes' own reports (health/nvlink_health.hpp): which hosts are
// degraded or failing, why, since when, read through the real reader from fixtures
// (tests/fixtures/nvlink-report/health, by-host) and from hand-written Fabric sections.
#include <gtest/gtest.h>

#include <string>

#include "health/nvlink_health.hpp"
#include "topology/readers/nvlink_report.hpp"

using namespace fabricfit;

namespace {

const std::string kFixtures = std::string(FF_SOURCE_DIR) + "/tests/fixtures/nvlink-report/";

// One host whose one GPU prints this Fabric section (indented as nvidia-smi does).
NvlinkReport one_gpu(const std::string& fabric) {
  NvlinkReport r;
  r.origin = "gpu001";
  r.hosts.push_back(
      parse_nvlink_host_report("GPU 00000008:01:00.0\n    Fabric\n" + fabric, "gpu001", "gpu001"));
  return r;
}

std::string fabric(const std::string& state, const std::string& status, const std::string& health_rows) {
  return "        State : " + state + "\n        Status : " + status + "\n        Health\n" + health_rows;
}

}  // namespace

TEST(NvlinkHealth, TheFixtureDirectoryHasOneDegradedAndOneFailingHost) {
  const std::vector<NvlinkHostStatus> s =
      judge_nvlink(load_nvlink_report(kFixtures + "health"), {}, 1000).hosts;
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0],
            (NvlinkHostStatus{"gpu002", HealthState::SubHealthy, 1000,
                              "GPU 00000009:01:00.0: Bandwidth Degraded", kFixtures + "health/gpu002:69"}));
  EXPECT_EQ(s[1],
            (NvlinkHostStatus{"gpu003", HealthState::Down, 1000, "GPU 00000018:01:00.0: Route Unhealthy True",
                              kFixtures + "health/gpu003:103"}));
}

TEST(NvlinkHealth, HostsNotRegisteredWithTheFabricAreFailing) {
  const std::vector<NvlinkHostStatus> s =
      judge_nvlink(load_nvlink_report(kFixtures + "by-host"), {}, 7).hosts;
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].host, "gpu007");
  EXPECT_EQ(s[0].state, HealthState::Down);
  EXPECT_TRUE(s[0].reason.starts_with(
      "GPU 00000008:01:00.0: not registered with the NVLink fabric (Fabric State In Progress)"))
      << s[0].reason;
  EXPECT_EQ(s[1].host, "gpu008");
  EXPECT_TRUE(
      s[1].reason.starts_with("GPU 00000008:01:00.0: failed to register with the NVLink fabric (Fabric "
                              "Status Insufficient Resources)"))
      << s[1].reason;
  EXPECT_TRUE(s[1].at.ends_with("by-host/gpu008.txt:30")) << s[1].at;
}

TEST(NvlinkHealth, EachHealthRowCountsAndFailingBeatsDegraded) {
  struct Case {
    std::string rows;
    HealthState state;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {"            Bandwidth : Full\n            Summary : Healthy\n", HealthState::Healthy, ""},
      {"            Bandwidth : Degraded\n", HealthState::SubHealthy, "Bandwidth Degraded"},
      {"            Summary : Limited Capacity\n", HealthState::SubHealthy,
       "Health Summary Limited Capacity"},
      {"            Route Recovery in progress : True\n", HealthState::Down,
       "Route Recovery in progress True"},
      {"            Access Timeout Recovery : True\n", HealthState::Down, "Access Timeout Recovery True"},
      {"            Incorrect Configuration : None\n", HealthState::Healthy, ""},
      {"            Incorrect Configuration : Not Supported\n", HealthState::Healthy, ""},
      {"            Incorrect Configuration : Insufficient Nvlinks\n", HealthState::Down,
       "Incorrect Configuration Insufficient Nvlinks"},
      {"            Summary : Unhealthy\n", HealthState::Down, "Health Summary Unhealthy"},
      {"            Bandwidth : Degraded\n            Route Unhealthy : True\n", HealthState::Down,
       "Route Unhealthy True"},
      {"            Bandwidth : N/A\n            Route Unhealthy : N/A\n", HealthState::Healthy, ""},
  };
  for (const Case& c : cases) {
    const auto s = judge_nvlink(one_gpu(fabric("Completed", "Success", c.rows)), {}, 1).hosts;
    if (c.state == HealthState::Healthy) {
      EXPECT_TRUE(s.empty()) << c.rows;
      continue;
    }
    ASSERT_EQ(s.size(), 1u) << c.rows;
    EXPECT_EQ(s[0].state, c.state) << c.rows;
    EXPECT_EQ(s[0].reason, "GPU 00000008:01:00.0: " + c.reason) << c.rows;
    EXPECT_EQ(s[0].at, "gpu001:5") << "the Health line";
  }
  // No Fabric State: no NVSwitch fabric here (a PCIe GPU, an old driver): not judged.
  EXPECT_TRUE(
      judge_nvlink(one_gpu(fabric("N/A", "N/A", "            Summary : Unhealthy\n")), {}, 1).hosts.empty());
  EXPECT_TRUE(judge_nvlink(one_gpu(fabric("Not Supported", "N/A", "")), {}, 1).hosts.empty());
}

TEST(NvlinkHealth, SinceIsKeptWhileTheStateHoldsAndMovesWhenItChanges) {
  const NvlinkReport r = load_nvlink_report(kFixtures + "health");
  const std::vector<NvlinkHostStatus> before = {
      {"gpu002", HealthState::SubHealthy, 500, "old", "old"},  // still degraded: since kept
      {"gpu003", HealthState::SubHealthy, 600, "old", "old"},  // now failing: since moves
      {"gpu001", HealthState::Down, 400, "old", "old"},        // healthy now: not listed
  };
  const auto s = judge_nvlink(r, before, 2000).hosts;
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].since_unix, 500);
  EXPECT_EQ(s[0].reason, "GPU 00000009:01:00.0: Bandwidth Degraded") << "the reason is today's";
  EXPECT_EQ(s[1].since_unix, 2000);
}

TEST(NvlinkHealth, AHostIsAsBadAsItsWorstGpuAndSaysHowManyAreBad) {
  NvlinkReport r;
  r.hosts.push_back(
      parse_nvlink_host_report("GPU 00000008:01:00.0\n    Fabric\n" +
                                   fabric("Completed", "Success", "            Bandwidth : Degraded\n") +
                                   "GPU 00000009:01:00.0\n    Fabric\n" + fabric("In Progress", "N/A", ""),
                               "gpu005", "r"));
  const auto s = judge_nvlink(r, {}, 1).hosts;
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].state, HealthState::Down);
  EXPECT_EQ(s[0].reason,
            "GPU 00000009:01:00.0: not registered with the NVLink fabric (Fabric State In Progress) "
            "(2 of 2 GPUs not healthy)");
}

TEST(NvlinkHealth, NoNewsIsNoHealAHostWithoutACurrentReportKeepsItsState) {
  const std::vector<NvlinkHostStatus> before = {
      {"gpu002", HealthState::Down, 500, "GPU 00000018:01:00.0: Route Unhealthy True", "r:103"},
      {"gpu009", HealthState::Down, 600, "GPU 00000008:01:00.0: Route Unhealthy True", "r:5"},
      {"gpu010", HealthState::SubHealthy, 700, "GPU 00000008:01:00.0: Bandwidth Degraded", "r:5"}};
  NvlinkReport r = load_nvlink_report(kFixtures + "health");  // gpu001-003
  // gpu010's nvidia-smi could not reach the driver: a report with no GPU, no news.
  r.hosts.push_back(
      parse_nvlink_host_report("NVIDIA-SMI has failed because it couldn't communicate with the "
                               "NVIDIA driver.\n",
                               "gpu010", "gpu010"));
  const NvlinkJudgement j = judge_nvlink(r, before, 2000);
  ASSERT_EQ(j.hosts.size(), 4u);
  EXPECT_EQ(j.hosts[1].host, "gpu003");  // gpu002 healed: its report says so
  EXPECT_EQ(j.hosts[0].host, "gpu002");
  EXPECT_EQ(j.hosts[0].state, HealthState::SubHealthy) << "gpu002's report now says degraded";
  EXPECT_EQ(j.hosts[2], before[1]) << "gpu009 has no report: its state stands";
  EXPECT_EQ(j.hosts[3], before[2]) << "gpu010 listed no GPU: its state stands";
  EXPECT_EQ(j.unreported, (std::vector<std::string>{"gpu009", "gpu010"}));
  // A report whose GPUs say nothing of the fabric (State N/A) is no news either.
  NvlinkReport mute;
  mute.hosts.push_back(
      parse_nvlink_host_report("GPU 00000008:01:00.0\n    Fabric\n        State : N/A\n", "gpu009", "m"));
  const NvlinkJudgement k = judge_nvlink(mute, before, 3000);
  EXPECT_EQ(k.hosts, before) << "gpu009 stays failing; the others have no report at all";
  EXPECT_EQ(k.unreported, (std::vector<std::string>{"gpu002", "gpu009", "gpu010"}));
  EXPECT_TRUE(j.stale.empty());
}

TEST(NvlinkHealth, AReportOlderThanTheBoundKeepsTheLastState) {
  NvlinkReport r = load_nvlink_report(kFixtures + "health");
  for (auto& h : r.hosts) h.mtime_unix = 10'000;
  const std::vector<NvlinkHostStatus> before = {{"gpu001", HealthState::Down, 500, "old", "r:1"}};
  NvlinkJudgement j = judge_nvlink(r, before, 10'000 + 3601, 3600);
  EXPECT_EQ(j.stale, (std::vector<std::string>{"gpu001", "gpu002", "gpu003"}));
  EXPECT_EQ(j.hosts, before) << "stale reports are no news: gpu001 stays failing, the others unjudged";
  EXPECT_TRUE(j.unreported.empty());
  j = judge_nvlink(r, before, 10'000 + 3600, 3600);
  EXPECT_TRUE(j.stale.empty());
  ASSERT_EQ(j.hosts.size(), 2u) << "fresh: gpu001 healed, gpu002 and gpu003 judged";
  EXPECT_EQ(judge_nvlink(r, before, 1'000'000, 0).stale.size(), 0u) << "0: never stale";
  EXPECT_GT(load_nvlink_report(kFixtures + "health").hosts[0].mtime_unix, 0) << "the reader dates each file";
}
