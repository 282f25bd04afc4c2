// SPDX-License-Identifier: GPL-2.0-or-later
// `fabricfit report --html` (cli/html_report.hpp): the page is titled by the cluster's name,
// not by how its fabric was discovered, and the fragmentation plot has a time axis and
// axes that say what they measure (issue 28); host names are text, and the jobs table says
// who placed each job, with what pattern, under a caption true to the patterns, naming array
// tasks as Slurm does (issue 31). tests/integration/test_report_html.sh renders the page.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <regex>

#include "cli/frag_history.hpp"
#include "cli/html_report.hpp"
#include "cli/report_jobs.hpp"
#include "cli/slurm_cluster.hpp"
#include "cli_fixtures.hpp"
#include "health_fixture.hpp"
#include "placement/placement_score.hpp"

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

// What a reader sees: the page without its tags, attributes and tooltips (<title>).
std::string visible_text(const std::string& page) {
  const std::string no_tooltips = std::regex_replace(page, std::regex("<title>[^<]*</title>"), " ");
  const std::string body = no_tooltips.substr(no_tooltips.find("<body>"));
  const std::string text = std::regex_replace(body, std::regex("<[^>]*>"), " ");
  return std::regex_replace(text, std::regex("\\s+"), " ");
}

// The cells of the jobs table's row for `label`.
std::vector<std::string> row_of(const std::string& page, const std::string& label) {
  const std::string table = between(page, "<table id=\"jobs\">", "</table>");
  const std::regex row("<tr class=\"job\"[^>]*>(.*?)</tr>");
  const std::regex cell("<td[^>]*>([^<]*)</td>");
  for (auto it = std::sregex_iterator(table.begin(), table.end(), row); it != std::sregex_iterator(); ++it) {
    const std::string cells = (*it)[1];
    std::vector<std::string> out;
    for (auto c = std::sregex_iterator(cells.begin(), cells.end(), cell); c != std::sregex_iterator(); ++c)
      out.push_back((*c)[1]);
    if (!out.empty() && out[0] == label) return out;
  }
  return {};
}

SlurmJob recorded(std::uint64_t id, const char* nodes, const char* record) {
  SlurmJob j = job(id, "RUNNING", nodes, 1'796'378'400, 0);
  j.admin_comment = record;
  j.placement_record = record;
  return j;
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

TEST(HtmlReport, HostNamesAreTextNotOnlyTooltips) {
  const Fabric f = fabric();
  const LocalityIndex index(f);
  GpuState gpus = GpuState::uniform(index.host_count(), 8);
  gpus.free[1] = 3;
  const std::string page = html_report(f, index, gpus, {}, "gpu-east");
  const std::string text = visible_text(page);
  for (int h = 0; h < index.host_count(); ++h)
    EXPECT_NE(text.find(" " + index.host_name(h) + " "), std::string::npos) << index.host_name(h);
  // With its free GPUs beside it, and its state as a class the key explains.
  EXPECT_NE(page.find(fmt::format("data-host=\"{}\"", index.host_name(1))), std::string::npos);
  EXPECT_NE(text.find(" " + index.host_name(1) + " 3/8 "), std::string::npos) << text;
  EXPECT_NE(page.find("<div class=\"host stranded\" data-host=\"" + index.host_name(1) + "\""),
            std::string::npos);
}

TEST(HtmlReport, ArrayTasksAreNamedAsSlurmNamesThem) {
  // Slurm 24.11's data_parser: array_job_id 0 and no task id for a job that is no task.
  const auto jobs = parse_slurm_jobs(R"json({"jobs": [
    {"job_id": 25, "array_job_id": {"set": true, "infinite": false, "number": 24},
     "array_task_id": {"set": true, "infinite": false, "number": 0}, "job_state": ["RUNNING"],
     "nodes": "gpu001", "tres_per_node": "gres/gpu:8"},
    {"job_id": 24, "array_job_id": {"set": true, "infinite": false, "number": 24},
     "array_task_id": {"set": true, "infinite": false, "number": 1}, "job_state": ["RUNNING"],
     "nodes": "gpu002", "tres_per_node": "gres/gpu:8"},
    {"job_id": 30, "array_job_id": {"set": true, "infinite": false, "number": 0},
     "array_task_id": {"set": false, "infinite": false, "number": 0}, "job_state": ["RUNNING"],
     "nodes": "gpu003", "tres_per_node": "gres/gpu:8"},
    {"job_id": 31, "array_job_id": {"set": true, "infinite": false, "number": 31},
     "array_task_id": {"set": false, "infinite": false, "number": 0}, "array_task_string": "2-5",
     "job_state": ["PENDING"], "nodes": ""}]})json",
                                     "t");
  ASSERT_EQ(jobs.size(), 4u);
  EXPECT_EQ(job_label(jobs[0]), "24_0");
  EXPECT_EQ(job_label(jobs[1]), "24_1");  // the array's first task keeps the array's id
  EXPECT_EQ(job_label(jobs[2]), "30");
  EXPECT_EQ(job_label(jobs[3]), "31");  // the pending rest of an array: no one task
  // sacct: under "array".
  const auto done = parse_sacct_jobs(R"json({"jobs": [{"job_id": 27, "array": {"job_id": 24,
    "task_id": {"set": true, "infinite": false, "number": 3}, "task": "3"}, "state": {"current": ["COMPLETED"]}}]})json",
                                     "t");
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(job_label(done[0]), "24_3");

  const Fabric f = fabric();
  const LocalityIndex index(f);
  const std::string page = html_report(f, index, GpuState::uniform(index.host_count(), 8), jobs, "c");
  EXPECT_EQ(row_of(page, "24_0").size(), 7u);
  EXPECT_EQ(row_of(page, "24_1").size(), 7u);
  EXPECT_TRUE(row_of(page, "25").empty());
  // In task order, though Slurm lists task 1 (the array's own record) after task 0's split.
  EXPECT_LT(page.find(">24_0<"), page.find(">24_1<"));
}

TEST(HtmlReport, JobsTableSaysWhoPlacedEachJobWithWhichPattern) {
  const Fabric f = fabric();
  const LocalityIndex index(f);
  const std::vector<SlurmJob> jobs = {
      recorded(41, "gpu[001-002]",
               "fabricfit placement=fabricfit leaf_groups=1 groups=x cross_spine_gb=0 pattern=alltoall"),
      recorded(42, "gpu[004-005]", "fabricfit placement=slurm reason=required-nodes"),
      recorded(43, "gpu[003,006]", "fabricfit placement=slurm reason=no-fit pattern=ring"),
      recorded(44, "gpu007",
               "fabricfit placement=slurm reason=node_gpu009_is_not_in_the_fabric pattern=none"),
      job(45, "RUNNING", "gpu008", 1'796'378'400, 0)};
  const std::string page = html_report(f, index, GpuState::uniform(index.host_count(), 8), jobs, "c");
  const std::string head = between(page, "<table id=\"jobs\">", "</tr>");
  EXPECT_NE(head.find("<th>placement</th><th>pattern</th>"), std::string::npos) << head;
  // job, state, placement, pattern, nodes, leaf groups, cross-spine
  EXPECT_EQ(row_of(page, "41"),
            (std::vector<std::string>{"41", "RUNNING", "fabricfit", "alltoall", "gpu[001-002]", "1", "0%"}));
  EXPECT_EQ(row_of(page, "42"),
            (std::vector<std::string>{"42", "RUNNING", "Slurm (required-nodes)",
                                      "ring (assumed: none recorded)", "gpu[004-005]", "2", "100%"}));
  EXPECT_EQ(row_of(page, "43")[2], "Slurm (no-fit)");
  EXPECT_EQ(row_of(page, "43")[3], "ring");
  EXPECT_EQ(row_of(page, "44")[2], "Slurm (node gpu009 is not in the fabric)");
  EXPECT_EQ(row_of(page, "44")[6], "none between nodes");
  EXPECT_EQ(row_of(page, "45")[2], "no placement record");
}

TEST(HtmlReport, CaptionNamesThePatternTheSharesAreFor) {
  const Fabric f = fabric();
  const LocalityIndex index(f);
  const GpuState gpus = GpuState::uniform(index.host_count(), 8);
  const auto caption = [&](const std::vector<SlurmJob>& jobs) {
    return between(html_report(f, index, gpus, jobs, "c"), "<caption>", "</caption>");
  };
  const SlurmJob a2a = recorded(51, "gpu[001,005]", "fabricfit placement=fabricfit pattern=alltoall");
  const SlurmJob ring = recorded(52, "gpu[002,006]", "fabricfit placement=fabricfit pattern=ring");
  EXPECT_NE(caption({a2a}).find("for an all-to-all"), std::string::npos) << caption({a2a});
  EXPECT_EQ(caption({a2a}).find("ring"), std::string::npos) << caption({a2a});
  EXPECT_NE(caption({ring}).find("for a ring"), std::string::npos);
  EXPECT_NE(caption({a2a, ring}).find("for each job's pattern"), std::string::npos);
  // And each share is its own pattern's: on the same 4 hosts, 2 in each leaf group, a ring
  // crosses the spines on 2 of its 4 hops, an all-to-all with 4 of its 6 pairs.
  const SlurmJob a2a4 =
      recorded(53, "gpu[001-002,005-006]", "fabricfit placement=fabricfit pattern=alltoall");
  const SlurmJob ring4 = recorded(54, "gpu[001-002,005-006]", "fabricfit placement=fabricfit pattern=ring");
  const auto share = [&](PatternKind k) {
    const std::vector<int> hosts = {*index.find_host("gpu001"), *index.find_host("gpu002"),
                                    *index.find_host("gpu005"), *index.find_host("gpu006")};
    const PlacementScore s = score_hosts(index, hosts, std::vector<int>(4, 8), CommPattern{k});
    return fmt::format("{:.0f}%", 100 * s.spine_bytes / s.inter_node_bytes);
  };
  ASSERT_NE(share(PatternKind::AllToAll), share(PatternKind::Ring));
  const std::string page = html_report(f, index, gpus, {a2a4, ring4}, "c");
  EXPECT_EQ(row_of(page, "53")[6], share(PatternKind::AllToAll));
  EXPECT_EQ(row_of(page, "54")[6], share(PatternKind::Ring));
  EXPECT_EQ(pattern_words(parse_comm_pattern("tp=2,pp=1,dp=4")),
            "tensor/pipeline/data parallel tp=2,pp=1,dp=4");
}

// Issue 29: hosts whose HCA link and leaf groups whose uplinks are not healthy are marked in
// colour and in words, with a legend entry; without a health file there is no mark at all.
TEST(HtmlReport, UnhealthyHcaLinksAndUplinksAreMarkedWithALegend) {
  const Fabric f = fabric();
  const LocalityIndex index(f);
  const GpuState gpus = GpuState::uniform(index.host_count(), 8);
  const std::string second_leaf = f.leaf_groups[1].name;
  const HealthFile health =
      fabricfit::testing::health_file_of(f, {{.host = "gpu002", .state = HealthState::Flapping},
                                             {.leaf = second_leaf, .state = HealthState::Down}});
  const std::string page = html_report(f, index, gpus, {}, "c", &health);

  const std::regex host(
      "<div class=\"host free unhealthy\" data-host=\"gpu002\"[^>]*>.*?<span "
      "class=\"health-mark\">flapping</span></div>");
  EXPECT_TRUE(std::regex_search(page, host)) << page;
  EXPECT_EQ(page.find("data-host=\"gpu001\" title=\"gpu001: 8 of 8 GPUs free;"), std::string::npos)
      << "a healthy host is not marked";
  EXPECT_NE(page.find("<div class=\"host free\" data-host=\"gpu001\""), std::string::npos);
  EXPECT_NE(page.find("<div class=\"leaf-group unhealthy\" data-name=\"" + second_leaf + "\""),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("<div class=\"leaf-group\" data-name=\"" + f.leaf_groups[0].name + "\""),
            std::string::npos);
  const std::string text = visible_text(page);
  EXPECT_NE(text.find(second_leaf + " \u26a0 1 uplink(s) down"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu002 8/8 flapping"), std::string::npos) << text;
  EXPECT_NE(text.find("HCA link or uplinks not healthy"), std::string::npos) << "the legend";
  EXPECT_NE(between(page, "<ul id=\"unhealthy\">", "</ul>").find("flapping since 900 (LinkDownedCounter 3"),
            std::string::npos);
  EXPECT_NE(between(page, "<p id=\"summary\">", "</p>").find("2 link(s) not healthy at health sweep 7"),
            std::string::npos);

  const std::string plain = html_report(f, index, gpus, {}, "c");
  for (const char* mark : {"leaf-group unhealthy", "unhealthy\" data-host", "<span class=\"health-mark\">",
                           "flapping", "not healthy", "id=\"unhealthy\""})
    EXPECT_EQ(plain.find(mark), std::string::npos) << mark << " without a health file";
  const HealthFile clean = fabricfit::testing::health_file_of(f, {});
  const std::string all_healthy = html_report(f, index, gpus, {}, "c", &clean);
  EXPECT_EQ(all_healthy.find("class=\"host free unhealthy"), std::string::npos);
  EXPECT_NE(between(all_healthy, "<ul id=\"unhealthy\">", "</ul>").find("none"), std::string::npos);
}

// The summary counts in English: "1 rail", "2 rails".
TEST(HtmlReport, SummaryCountsRailsInTheSingularAndPlural) {
  Fabric one = fabric();
  one.rails = 1;
  const LocalityIndex index(one);
  const GpuState gpus = GpuState::uniform(index.host_count(), 8);
  const std::string summary = between(html_report(one, index, gpus, {}, "c"), "<p id=\"summary\">", "</p>");
  EXPECT_NE(summary.find(", 1 rail, "), std::string::npos) << summary;
  Fabric two = fabric();
  two.rails = 2;
  const LocalityIndex index2(two);
  EXPECT_NE(
      between(html_report(two, index2, gpus, {}, "c"), "<p id=\"summary\">", "</p>").find(", 2 rails, "),
      std::string::npos);
}

// Issue 30: on a fabric with NVLink domains each host names its domain, a table gives each
// domain's hosts, leaf groups, free GPUs and wholly free hosts with the domain- and
// half-domain-sized jobs that still fit, and each job row its domains.
namespace {

// gpu001-004 in the first leaf group, gpu005-008 in the second. nvl1 spans both (a tray per
// rail leaf); gpu003 and gpu008 are in no domain.
Fabric fabric_with_domains() {
  Fabric f = fabric();
  set_nvlink_domains(f, {{"nvl0", {0, 1}}, {"nvl1", {3, 4}}, {"nvl2", {5, 6}}});
  return f;
}

// The cells (tags dropped) of the domains table's row for `name`.
std::vector<std::string> domain_row(const std::string& page, const std::string& name) {
  const std::regex row("<tr class=\"domain[^\"]*\" data-domain=\"" + name + "\">(.*?)</tr>");
  std::smatch m;
  if (!std::regex_search(page, m, row)) return {};
  const std::string cells = m[1];
  const std::regex cell("<td[^>]*>(.*?)</td>");
  std::vector<std::string> out;
  for (auto c = std::sregex_iterator(cells.begin(), cells.end(), cell); c != std::sregex_iterator(); ++c)
    out.push_back(std::regex_replace((*c)[1].str(), std::regex("<[^>]*>"), ""));
  return out;
}

}  // namespace

TEST(HtmlReport, HostsNameTheirNvlinkDomain) {
  const Fabric f = fabric_with_domains();
  const LocalityIndex index(f);
  GpuState gpus = GpuState::uniform(index.host_count(), 8);
  gpus.free[1] = 3;  // gpu002
  gpus.free[4] = 0;  // gpu005
  const std::string page = html_report(f, index, gpus, {}, "c");
  EXPECT_NE(page.find("<div class=\"host stranded dom-0\" data-host=\"gpu002\" data-domain=\"nvl0\""),
            std::string::npos)
      << page;
  // A domain across leaf groups: each of its hosts says so in its own group.
  EXPECT_NE(page.find("<div class=\"host free dom-1\" data-host=\"gpu004\" data-domain=\"nvl1\""),
            std::string::npos);
  EXPECT_NE(page.find("<div class=\"host busy dom-1\" data-host=\"gpu005\" data-domain=\"nvl1\""),
            std::string::npos);
  EXPECT_NE(page.find("<div class=\"host free\" data-host=\"gpu003\" title="), std::string::npos);
  // As text, not only a colour or an attribute.
  const std::string text = visible_text(page);
  EXPECT_NE(text.find(" gpu002 3/8 nvl0 "), std::string::npos) << text;
  EXPECT_NE(text.find(" gpu005 0/8 nvl1 "), std::string::npos) << text;
  EXPECT_NE(text.find(" gpu003 8/8 gpu004 8/8 nvl1 "), std::string::npos) << text;
  EXPECT_NE(between(page, "<p id=\"summary\">", "</p>").find(", 2 tiers, 3 NVLink domains;"),
            std::string::npos);
}

TEST(HtmlReport, DomainsTableSaysWhatStillFitsInEachDomain) {
  const Fabric f = fabric_with_domains();
  const LocalityIndex index(f);
  GpuState gpus = GpuState::uniform(index.host_count(), 8);
  gpus.free[1] = 3;  // gpu002: nvl0 has 11 of 16 GPUs free, 1 of 2 hosts wholly free
  gpus.free[4] = 0;  // gpu005: nvl1 has 8 of 16, 1 of 2
  const std::string page = html_report(f, index, gpus, {}, "c");
  const std::string section = between(page, "<section id=\"nvlink-domains\">", "</section>");
  ASSERT_FALSE(section.empty()) << page;
  // Only nvl2 is wholly free; a half domain (1 host) fits on each wholly free host: 1 + 1 + 2.
  EXPECT_EQ(
      between(section, "<p id=\"domain-frag\">", "</p>"),
      "1 of 3 domains wholly free; 4 half-domain jobs still fit (of whole hosts, each inside one domain)");
  const std::string g0 = f.leaf_groups[0].name, g1 = f.leaf_groups[1].name;
  // domain, hosts, leaf groups, free GPUs, wholly free hosts
  EXPECT_EQ(domain_row(section, "nvl0"),
            (std::vector<std::string>{"nvl0", "gpu[001-002]", g0, "11/16", "1/2"}));
  EXPECT_EQ(domain_row(section, "nvl1"),
            (std::vector<std::string>{"nvl1", "gpu[004-005]", g0 + ", " + g1, "8/16", "1/2"}));
  EXPECT_EQ(domain_row(section, "nvl2"),
            (std::vector<std::string>{"nvl2", "gpu[006-007]", g1, "16/16", "2/2"}));
  EXPECT_NE(section.find("<tr class=\"domain wholly-free\" data-domain=\"nvl2\">"), std::string::npos);
  EXPECT_NE(section.find("<p id=\"no-domain\">2 host(s) in no NVLink domain</p>"), std::string::npos);
  // The table is the hosts' key: each name on the colour its hosts carry.
  EXPECT_NE(section.find("<span class=\"domain-mark dom-1\">nvl1</span>"), std::string::npos);
}

// Hosts whose NVLink is not healthy (the nodes' reports, in the health file) are marked as
// an unhealthy HCA link is, and say it in words; the domains table counts them per domain;
// without NVLink reports in the health file there is no NVLink column (no news is not health).
TEST(HtmlReport, NvlinkHostsAreMarkedAndCountedPerDomain) {
  const Fabric f = fabric_with_domains();
  const LocalityIndex index(f);
  const GpuState gpus = GpuState::uniform(index.host_count(), 8);
  HealthFile health = fabricfit::testing::health_file_of(f, {});
  health.nvlink_report = "/var/spool/fabricfit/nvlink";
  health.nvlink = {
      {"gpu002", HealthState::Down, 960, "GPU 00000018:01:00.0: Route Unhealthy True", "r:103"},
      {"gpu004", HealthState::SubHealthy, 950, "GPU 00000009:01:00.0: Bandwidth Degraded", "r:69"}};
  const std::string page = html_report(f, index, gpus, {}, "c", &health);
  EXPECT_TRUE(
      std::regex_search(page, std::regex("<div class=\"host free unhealthy dom-0\" data-host=\"gpu002\"[^>]*"
                                         "NVLink failing: GPU 00000018:01:00.0: Route Unhealthy True")))
      << page;
  const std::string text = visible_text(page);
  EXPECT_NE(text.find(" gpu002 8/8 nvl0 NVLink failing "), std::string::npos) << text;
  EXPECT_NE(text.find(" gpu004 8/8 nvl1 NVLink degraded "), std::string::npos) << text;
  EXPECT_NE(between(page, "<ul id=\"unhealthy\">", "</ul>")
                .find("gpu002 NVLink: failing since 960 (GPU 00000018:01:00.0: Route Unhealthy True, r:103)"),
            std::string::npos);
  EXPECT_NE(between(page, "<p id=\"summary\">", "</p>").find("2 host(s) with NVLink not healthy."),
            std::string::npos);
  const std::string section = between(page, "<section id=\"nvlink-domains\">", "</section>");
  EXPECT_EQ(domain_row(section, "nvl0").back(), "1 failing, 0 degraded");
  EXPECT_EQ(domain_row(section, "nvl1").back(), "0 failing, 1 degraded");
  EXPECT_EQ(domain_row(section, "nvl2").back(), "0 failing, 0 degraded");
  EXPECT_NE(visible_text(page).find("HCA link, NVLink or uplinks not healthy"), std::string::npos);
  health.nvlink_report.clear();
  health.nvlink.clear();
  const std::string unread = html_report(f, index, gpus, {}, "c", &health);
  EXPECT_EQ(unread.find("<th>NVLink</th>"), std::string::npos);
  EXPECT_EQ(domain_row(between(unread, "<section id=\"nvlink-domains\">", "</section>"), "nvl2").size(), 5u);
}

TEST(HtmlReport, JobsTableNamesEachJobsNvlinkDomains) {
  const Fabric f = fabric_with_domains();
  const LocalityIndex index(f);
  const std::vector<SlurmJob> jobs = {
      recorded(61, "gpu[006-007]",
               "fabricfit placement=fabricfit leaf_groups=1 groups=x cross_spine_gb=0 nvlink_domains=1 "
               "domains=nvl2 uplink_ms=0 pattern=ring"),
      recorded(62, "gpu[002,004]", "fabricfit placement=slurm reason=required-nodes"),
      recorded(63, "gpu[001,005]",
               "fabricfit placement=fabricfit leaf_groups=2 groups=x cross_spine_gb=1 nvlink_domains=2 "
               "domains=nvl0,nvl1 pattern=ring"),
      job(64, "RUNNING", "gpu003", 1'796'378'400, 0)};
  const std::string page = html_report(f, index, GpuState::uniform(index.host_count(), 8), jobs, "c");
  EXPECT_NE(between(page, "<table id=\"jobs\">", "</tr>").find("<th>leaf groups</th><th>NVLink domains</th>"),
            std::string::npos);
  // job, state, placement, pattern, nodes, leaf groups, NVLink domains, cross-spine
  EXPECT_EQ(row_of(page, "61"), (std::vector<std::string>{"61", "RUNNING", "fabricfit", "ring",
                                                          "gpu[006-007]", "1", "nvl2", "0%"}));
  // Slurm placed it (no domains recorded): the domains of its hosts.
  EXPECT_EQ(row_of(page, "62")[6], "nvl0, nvl1");
  EXPECT_EQ(row_of(page, "63")[6], "nvl0, nvl1");
  EXPECT_EQ(row_of(page, "64")[6], "(none)");
}

TEST(HtmlReport, AFabricWithoutDomainsShowsNone) {
  const Fabric f = fabric();
  const LocalityIndex index(f);
  const std::string page = html_report(f, index, GpuState::uniform(index.host_count(), 8),
                                       {recorded(71, "gpu[001-002]", "fabricfit placement=fabricfit")}, "c");
  const std::string body = page.substr(page.find("<body>"));
  for (const char* mark : {"nvlink-domains", "data-domain", "domain-mark", "dom-0", "NVLink"})
    EXPECT_EQ(body.find(mark), std::string::npos) << mark;
  EXPECT_EQ(row_of(page, "71").size(), 7u);
}
