// SPDX-License-Identifier: GPL-2.0-or-later
// `fabricfit report --html` (cli/html_report.hpp): the page is titled by the cluster's name,
// not by how its fabric was discovered, and the fragmentation plot has a time axis and
// axes that say what they measure (issue 28).
#include <gtest/gtest.h>

#include <regex>

#include "cli/frag_history.hpp"
#include "cli/html_report.hpp"
#include "cli/slurm_cluster.hpp"
#include "cli_fixtures.hpp"

using namespace fabricfit;
using namespace fabricfit::cli;
using fabricfit::testing::job;

namespace {

Fabric fabric() {
  Fabric f = fabricfit::testing::two_groups_of_four();
  f.origin = "live discovery from the first CA (first active port)";
  return f;
}

std::string between(const std::string& page, const std::string& open, const std::string& close) {
  const auto a = page.find(open);
  if (a == std::string::npos) return {};
  const auto b = page.find(close, a + open.size());
  return page.substr(a + open.size(), b == std::string::npos ? std::string::npos : b - a - open.size());
}

constexpr std::int64_t k10h = 1'796'378'400;  // 2026-12-04 10:00:00 UTC

}  // namespace

TEST(HtmlReport, TitledByTheClusterNotByTheFabricsOrigin) {
  const Fabric f = fabric();
  const LocalityIndex index(f);
  const GpuState gpus = GpuState::uniform(index.host_count(), 8);
  const std::string page = html_report(f, index, gpus, {}, "gpu-east");
  EXPECT_EQ(between(page, "<title>", "</title>"), "Cluster gpu-east: fabric and GPUs, by fabricfit");
  EXPECT_EQ(between(page, "<h1>", "</h1>"), "Cluster gpu-east");
  // The origin is still there, under the title.
  EXPECT_NE(between(page, "<p id=\"summary\">", "</p>").find("Fabric: live discovery from the first CA"),
            std::string::npos);
  EXPECT_EQ(between(page, "<title>", "</title>").find("live discovery"), std::string::npos);

  const std::string unnamed = html_report(f, index, gpus, {}, "");
  EXPECT_EQ(between(unnamed, "<h1>", "</h1>"), "Cluster (unnamed: fabricfit report --cluster NAME)");
  // A name is text, not markup.
  EXPECT_EQ(between(html_report(f, index, gpus, {}, "a<b"), "<h1>", "</h1>"), "Cluster a&lt;b");
}

TEST(HtmlReport, ClusterNameFromSlurmsJsonMeta) {
  EXPECT_EQ(slurm_cluster_name(R"({"meta": {"slurm": {"release": "24.11.5", "cluster": "gpu-east"}},
                                   "nodes": []})"),
            "gpu-east");
  EXPECT_EQ(slurm_cluster_name(R"({"nodes": []})"), "");
  EXPECT_EQ(slurm_cluster_name("not json"), "");
}

TEST(HtmlReport, TimeTicksAreWholeClockSteps) {
  // 2 h 30 min: every 30 minutes, on the half hour.
  EXPECT_EQ(
      time_ticks(k10h - 60, k10h + 9000),
      (std::vector<std::int64_t>{k10h, k10h + 1800, k10h + 3600, k10h + 5400, k10h + 7200, k10h + 9000}));
  // 40 s: every 10 s.
  EXPECT_EQ(time_ticks(k10h + 3, k10h + 43),
            (std::vector<std::int64_t>{k10h + 10, k10h + 20, k10h + 30, k10h + 40}));
  // 3 days: every day, at midnight UTC.
  const auto days = time_ticks(k10h, k10h + 3 * 86400);
  ASSERT_EQ(days.size(), 3u);
  EXPECT_EQ(days[0] % 86400, 0);
}

TEST(HtmlReport, FragmentationPlotHasATimeAxisAndLabelledAxes) {
  const Fabric f = fabric();
  const LocalityIndex index(f);
  const std::vector<int> total(static_cast<std::size_t>(index.host_count()), 8);
  const auto points = frag_history(
      index, total,
      {job(1, "COMPLETED", "gpu001", k10h, k10h + 3600), job(2, "RUNNING", "gpu002,gpu005", k10h + 1200, 0)});
  ASSERT_EQ(points.size(), 3u);
  const std::string svg = frag_history_svg(points);
  // Clock ticks along the x axis: 10:00 to 11:00 in 15-minute steps.
  std::vector<std::string> labels;
  const std::regex tick(R"re(<text class="x-tick" data-time="(\d+)"[^>]*>([^<]+)</text>)re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tick); it != std::sregex_iterator(); ++it)
    labels.push_back((*it)[2]);
  EXPECT_EQ(labels, (std::vector<std::string>{"10:00", "10:15", "10:30", "10:45", "11:00"}));
  // The first tick also gives the day, once (a span under a day).
  EXPECT_NE(svg.find("<text class=\"x-date\""), std::string::npos);
  EXPECT_EQ(svg.find(">2026-12-04</text>"), svg.rfind(">2026-12-04</text>"));
  // Value ticks from 0 to 1, and both axes say what they measure and in what.
  EXPECT_NE(svg.find(">0.5</text>"), std::string::npos);
  EXPECT_NE(svg.find(">1</text>"), std::string::npos);
  EXPECT_NE(svg.find(">time (UTC; 3 job starts and ends)</text>"), std::string::npos);
  EXPECT_NE(svg.find(">fragmentation (unusable / free GPUs)</text>"), std::string::npos);
  // Each point says when it was, too.
  EXPECT_NE(svg.find("<title>2026-12-04 10:20: "), std::string::npos);
}
