// SPDX-License-Identifier: GPL-2.0-or-later
// `fabricfit health` output: the JSON shape of issue 29 (links with a, a_port, b, b_port,
// state, since, evidence; hosts), the text and the Prometheus metrics.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/health_report.hpp"

using namespace fabricfit;

namespace {

HealthFile two_links() {
  HealthFile h;
  h.sweeps = 3;
  h.sweep_unix = 1000;
  h.ports.resize(8);
  h.missed = {{0x10, 2}};
  h.links.push_back(LinkStatus{1,
                               5,
                               "ib-leaf-001",
                               2,
                               1,
                               "gpu003 mlx5_0",
                               "gpu003",
                               HealthState::Flapping,
                               900,
                               {{"LinkDownedCounter", 2, "in_window", 2, 800, "gpu003 mlx5_0[1]"}}});
  h.links.push_back(LinkStatus{3,
                               9,
                               "ib-leaf-002",
                               4,
                               1,
                               "ib-spine-01",
                               "",
                               HealthState::SubHealthy,
                               700,
                               {{"SymbolErrorCounter", 3e-12, "ber", 1e-12, 600, "ib-leaf-002[9]"},
                                {"SymbolErrorCounter", 5e-12, "ber", 1e-12, 650, "ib-spine-01[1]"}}});
  return h;
}

}  // namespace

TEST(HealthReport, JsonHasTheIssuesShape) {
  const auto j = nlohmann::json::parse(cli::health_json(two_links()));
  ASSERT_EQ(j["links"].size(), 2u);
  const auto& l = j["links"][1];
  EXPECT_EQ(l["a"], "ib-leaf-002");
  EXPECT_EQ(l["a_port"], 9);
  EXPECT_EQ(l["b"], "ib-spine-01");
  EXPECT_EQ(l["b_port"], 1);
  EXPECT_EQ(l["state"], "sub-healthy");
  EXPECT_EQ(l["since"], 700);
  EXPECT_EQ(l["evidence"]["SymbolErrorCounter"]["at"], "ib-spine-01[1]") << "the end with the higher rate";
  ASSERT_EQ(j["hosts"].size(), 1u);
  EXPECT_EQ(j["hosts"][0]["host"], "gpu003");
  EXPECT_EQ(j["hosts"][0]["hca"], "gpu003 mlx5_0");
  EXPECT_EQ(j["hosts"][0]["state"], "flapping");
  EXPECT_EQ(j["missed"][0]["port"], 2);
}

TEST(HealthReport, TextListsLinksHostsAndEvidence) {
  const std::string t = cli::health_text(two_links());
  EXPECT_NE(t.find("ib-leaf-001[5] -- gpu003 mlx5_0[1]  flapping  since 900  host gpu003"), std::string::npos)
      << t;
  EXPECT_NE(t.find("LinkDownedCounter at gpu003 mlx5_0[1]: 2 in_window"), std::string::npos) << t;
  EXPECT_NE(t.find("Hosts whose HCA link is not healthy (1):\n  gpu003  flapping (gpu003 mlx5_0[1])"),
            std::string::npos)
      << t;
  EXPECT_NE(cli::health_text(HealthFile{}).find("All links healthy."), std::string::npos);
}

TEST(HealthReport, PromCountsLinksByState) {
  const std::string p = cli::health_prom(two_links());
  // 8 ports: 4 cables, 2 of them listed.
  EXPECT_NE(p.find("fabricfit_health_links{state=\"healthy\"} 2\n"), std::string::npos) << p;
  EXPECT_NE(p.find("fabricfit_health_links{state=\"flapping\"} 1\n"), std::string::npos);
  EXPECT_NE(p.find("fabricfit_health_missed_ports 1\n"), std::string::npos);
  EXPECT_NE(p.find("fabricfit_health_counter_rate{at=\"ib-spine-01[1]\",counter=\"SymbolErrorCounter\",unit="
                   "\"ber\"} 5e-12"),
            std::string::npos)
      << p;
}

TEST(HealthReport, PromLabelsAreEscaped) {
  HealthFile h;
  h.links.push_back(LinkStatus{1, 1, "sw \"core\" A", 2, 1, "b", "", HealthState::Down, 1, {}});
  EXPECT_NE(cli::health_prom(h).find("a=\"sw \\\"core\\\" A\""), std::string::npos) << cli::health_prom(h);
}

TEST(HealthReport, NvlinkHostsInTextJsonAndProm) {
  HealthFile h = two_links();
  h.nvlink_report = "/var/lib/fabricfit/nvlink";
  h.nvlink = {
      {"gpu002", HealthState::Down, 950, "GPU 00000018:01:00.0: Route Unhealthy True", "r/gpu002:103"},
      {"gpu007", HealthState::SubHealthy, 960, "GPU 00000009:01:00.0: Bandwidth Degraded", "r/gpu007:69"}};
  const std::string t = cli::health_text(h);
  EXPECT_NE(
      t.find("Hosts whose NVLink is not healthy (2, reports in /var/lib/fabricfit/nvlink):\n"
             "  gpu002  failing  since 950\n    GPU 00000018:01:00.0: Route Unhealthy True (r/gpu002:103)\n"
             "  gpu007  degraded  since 960\n"),
      std::string::npos)
      << t;
  const auto j = nlohmann::json::parse(cli::health_json(h));
  EXPECT_EQ(j["nvlink_report"], "/var/lib/fabricfit/nvlink");
  ASSERT_EQ(j["nvlink"].size(), 2u);
  EXPECT_EQ(j["nvlink"][1]["host"], "gpu007");
  EXPECT_EQ(j["nvlink"][1]["state"], "degraded");
  EXPECT_EQ(j["nvlink"][0]["at"], "r/gpu002:103");
  const std::string p = cli::health_prom(h);
  EXPECT_NE(p.find("fabricfit_health_nvlink_hosts{state=\"degraded\"} 1\n"
                   "fabricfit_health_nvlink_hosts{state=\"failing\"} 1\n"),
            std::string::npos)
      << p;
  EXPECT_NE(p.find("fabricfit_health_nvlink_host_state{host=\"gpu002\",state=\"failing\"} 1\n"),
            std::string::npos);
  // Reports read, all healthy: said so; none read: nothing said.
  h.nvlink.clear();
  EXPECT_NE(cli::health_text(h).find("NVLink: every host healthy (reports in /var/lib/fabricfit/nvlink)."),
            std::string::npos);
  EXPECT_EQ(cli::health_text(two_links()).find("NVLink"), std::string::npos);
  EXPECT_EQ(cli::health_prom(two_links()).find("nvlink"), std::string::npos);
}
