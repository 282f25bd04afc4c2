// SPDX-License-Identifier: GPL-2.0-or-later
// The nodes' own report of their NVLink fabric (issue 30 item 1a): `nvidia-smi -q` read as
// pdsh/clush output and as a directory of one file per node, every refusal with file, line
// and reason; which hosts make a domain (all GPUs Completed, Success, a non-zero cluster
// UUID, agreeing) and the warning for each host left out; stable names; the hosts resolved
// against a fabric. The fixtures are tests/fixtures/nvlink-report/ (its README.md).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "generated_fabric.hpp"
#include "message_of.hpp"
#include "topology/readers/nvlink_report_domains.hpp"

namespace fabricfit {
namespace {

const std::string kUuidA = "9c6f5af3-53bf-49b5-a436-b66766c413c3";
const std::string kUuidB = "5e0d2c41-7a9b-4c3e-8f12-0b6d9e4a7c25";
const std::string kZero = "00000000-0000-0000-0000-000000000000";
const std::string kFixtures = std::string(FF_SOURCE_DIR) + "/tests/fixtures/nvlink-report/";

struct Gpu {
  std::string state = "Completed", status = "Success", clique = "4026", uuid = kUuidA;
};

// A GPU section as nvidia-smi -q prints it, with the Fabric section as given.
std::string gpu_section(const std::string& bus, const Gpu& g) {
  return "GPU " + bus +
         "\n"
         "    Product Name                          : NVIDIA GB300\n"
         "    MIG Mode\n"
         "        Current                           : Disabled\n"
         "    Fabric\n"
         "        State                             : " +
         g.state +
         "\n"
         "        Status                            : " +
         g.status +
         "\n"
         "        CliqueId                          : " +
         g.clique +
         "\n"
         "        ClusterUUID                       : " +
         g.uuid +
         "\n"
         "        Health\n"
         "            Summary                       : Healthy\n"
         "    Processes                             : None\n"
         "\n";
}

// One node's `nvidia-smi -q`: 4 GPUs (or as many as given).
std::string smi(const std::vector<Gpu>& gpus) {
  static const char* const kBus[] = {"00000008:01:00.0", "00000009:01:00.0", "00000018:01:00.0",
                                     "00000019:01:00.0", "00000028:01:00.0"};
  std::string out =
      "\n==============NVSMI LOG==============\n\n"
      "Driver Version                            : 580.173.02\n\n"
      "Attached GPUs                             : " +
      std::to_string(gpus.size()) + "\n";
  for (std::size_t i = 0; i < gpus.size(); ++i) out += gpu_section(kBus[i], gpus[i]);
  return out;
}

std::string smi(const Gpu& g) {
  return smi(std::vector<Gpu>(4, g));
}

// `text` as pdsh prints one node's output.
std::string pdsh(const std::string& host, const std::string& text) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    out += host + ": " + text.substr(start, end - start) + "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

std::string report_error(std::string_view text) {
  return testing::message_of<NvlinkReportError>([&] { (void)parse_nvlink_report(text, "report.txt"); },
                                                "(accepted)");
}

std::string load_error(const std::filesystem::path& p) {
  return testing::message_of<NvlinkReportError>([&] { (void)load_nvlink_report(p); }, "(accepted)");
}

// 2 leaf groups of 4 hosts: gpu001..gpu008.
Fabric eight_hosts() {
  return testing::generated_fabric(testing::clos_spec({.leaves = 2, .hosts_per_leaf = 4, .spines = 2}));
}

// The report's domains on `f`, every node of it a host of the fabric (no warning).
std::vector<NvlinkDomain> resolved(const NvlinkReport& r, const NvlinkReportDomains& d, const Fabric& f) {
  std::vector<std::string> warnings;
  auto out = domains_of_nvlink_report(r, d, f, warnings);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  return out;
}

std::vector<std::string> host_names(const NvlinkReport& r, const NvlinkReportDomain& d) {
  std::vector<std::string> out;
  for (std::size_t i : d.hosts) out.push_back(r.hosts[i].host);
  return out;
}

TEST(NvlinkReport, ReadsEachGpusOwnFabricSection) {
  const NvlinkHostReport h = parse_nvlink_host_report(
      "\n==============NVSMI LOG==============\n"
      "Attached GPUs : 2\n"
      "GPU 00000009:01:00.0\n"  // line 4
      "    Platform Info\n"
      "        Fabric\n"  // not the GPU's own Fabric section
      "            State                 : Wrong\n"
      "    Fabric\n"  // line 8
      "        State                     : Completed\n"
      "        Status                    : Success\n"
      "        Clique ID                 : 4026\n"  // spellings of other drivers
      "        Cluster UUID              : 9C6F5AF3-53BF-49B5-A436-B66766C413C3\n"
      "        Health\n"
      "            State                 : Wrong\n"  // Health's, not Fabric's
      "    Conf Compute\n"
      "        State                     : Wrong\n"
      "GPU 00000019:01:00.0\n"  // line 17
      "    Fabric\n"
      "        state                     : In Progress\n"
      "        STATUS                    : N/A\n"
      "        cliqueid                  : N/A\n"
      "        ClusterUUID               : N/A\n",
      "gpu001", "gpu001.txt");
  EXPECT_EQ(h.host, "gpu001");
  EXPECT_EQ(h.file, "gpu001.txt");
  EXPECT_EQ(h.line, 1);
  EXPECT_EQ(h.first_text, "==============NVSMI LOG==============");
  ASSERT_EQ(h.gpus.size(), 2u);
  NvlinkGpuFabric first{"00000009:01:00.0", 4, 8, "Completed", "Success", 4026, kUuidA, {}};
  first.health.line = 13;  // a Health section with no row it knows
  EXPECT_EQ(h.gpus[0], first);
  EXPECT_EQ(h.gpus[1],
            (NvlinkGpuFabric{"00000019:01:00.0", 17, 18, "In Progress", "", std::nullopt, "", {}}));
}

TEST(NvlinkReport, ReadsTheFabricHealthRows) {
  const NvlinkHostReport h = parse_nvlink_host_report(
      "GPU 00000009:01:00.0\n"
      "    Fabric\n"
      "        State                             : Completed\n"
      "        Status                            : Success\n"
      "        Health\n"  // line 5
      "            Summary                       : Limited Capacity\n"
      "            Bandwidth                     : Degraded\n"
      "            Route Recovery in progress    : False\n"
      "            Route Unhealthy               : True\n"
      "            Access Timeout Recovery       : N/A\n"
      "            Incorrect Configuration       : Insufficient Nvlinks\n"
      "            A Row Of A Later Driver       : Whatever\n"
      "    Processes                             : None\n"
      "        Bandwidth                         : Wrong\n",  // not Fabric's Health
      "gpu001", "gpu001.txt");
  ASSERT_EQ(h.gpus.size(), 1u);
  const NvlinkGpuFabricHealth want{.line = 5,
                                   .summary = "Limited Capacity",
                                   .bandwidth = "Degraded",
                                   .route_recovery = "False",
                                   .route_unhealthy = "True",
                                   .access_timeout_recovery = "",
                                   .incorrect_configuration = "Insufficient Nvlinks"};
  EXPECT_EQ(h.gpus[0].health, want);
  EXPECT_EQ(
      testing::message_of<NvlinkReportError>(
          [] {
            (void)parse_nvlink_host_report(
                "GPU 00000009:01:00.0\n    Fabric\n        Health\n            Bandwidth : Full\n"
                "            Bandwidth : Degraded\n",
                "gpu001", "gpu001.txt");
          },
          "(accepted)"),
      "gpu001.txt:5: GPU 00000009:01:00.0: Bandwidth twice in its Fabric Health section (first on line 4)");
}

TEST(NvlinkReport, ReadsPdshOutputInterleavedByHost) {
  // pdsh prints each node's lines as they come: the hosts' lines are mixed.
  const std::string a = pdsh("gpu002", smi(Gpu{})), b = pdsh("gpu001", smi(Gpu{.clique = "7"}));
  std::vector<std::string> la, lb;
  for (std::size_t s = 0, e; s < a.size(); s = e + 1)
    la.push_back(a.substr(s, (e = a.find('\n', s)) - s + 1));
  for (std::size_t s = 0, e; s < b.size(); s = e + 1)
    lb.push_back(b.substr(s, (e = b.find('\n', s)) - s + 1));
  // Three lines of gpu002, one of gpu001, in turn: gpu001's line k is the file's line 4k.
  std::string mixed;
  for (std::size_t i = 0, j = 0; i < la.size() || j < lb.size();) {
    for (int k = 0; k < 3 && i < la.size(); ++k) mixed += la[i++];
    if (j < lb.size()) mixed += lb[j++];
  }
  mixed += "gpu003:\n";  // an empty line whose trailing blank was lost
  const NvlinkReport r = parse_nvlink_report(mixed, "report.txt");
  EXPECT_EQ(r.origin, "report.txt");
  ASSERT_EQ(r.hosts.size(), 3u);
  EXPECT_EQ(r.hosts[0].host, "gpu002");  // in order of first line
  EXPECT_EQ(r.hosts[0].line, 1);
  EXPECT_EQ(r.hosts[1].host, "gpu001");
  EXPECT_EQ(r.hosts[1].line, 4);
  EXPECT_EQ(r.hosts[2].host, "gpu003");
  EXPECT_TRUE(r.hosts[2].gpus.empty());
  ASSERT_EQ(r.hosts[0].gpus.size(), 4u);
  ASSERT_EQ(r.hosts[1].gpus.size(), 4u);
  EXPECT_EQ(r.hosts[1].gpus[3].clique_id, 7u);
  EXPECT_EQ(r.hosts[0].gpus[3].clique_id, 4026u);
  // Line numbers are the file's: gpu001's first GPU line is its 7th, the file's 28th.
  ASSERT_EQ(lb[6], "gpu001: GPU 00000008:01:00.0\n");
  EXPECT_EQ(r.hosts[1].gpus[0].line, 28);
}

TEST(NvlinkReport, EachFaultNamesFileLineAndReason) {
  const std::string unprefixed =
      "report.txt:2: not 'HOST: TEXT' as pdsh and clush print their nodes' output (one node's nvidia-smi -q "
      "goes in a directory, in a file named after the node)";
  EXPECT_EQ(report_error(smi(Gpu{})), unprefixed);
  EXPECT_EQ(report_error("gpu001: x\ngpu 002: y\n"),
            "report.txt:2: not 'HOST: TEXT' as pdsh and clush print their nodes' output (one node's "
            "nvidia-smi -q goes in a directory, in a file named after the node)");
  EXPECT_EQ(report_error("gpu001: x\ngpu002:y\n"),
            "report.txt:2: not 'HOST: TEXT' as pdsh and clush print their nodes' output (one node's "
            "nvidia-smi -q goes in a directory, in a file named after the node)");
  EXPECT_EQ(report_error("gpu001: x\npdsh@login01: gpu003: ssh exited with exit code 255\n"),
            "report.txt:2: pdsh's or clush's own message, not a node's output (send their standard error "
            "elsewhere)");
  EXPECT_EQ(report_error("clush: gpu003: exited with exit code 1\n"),
            "report.txt:1: pdsh's or clush's own message, not a node's output (send their standard error "
            "elsewhere)");
  EXPECT_EQ(report_error(pdsh("gpu001", smi(Gpu{.clique = "40x6"}))),
            "report.txt:14: GPU 00000008:01:00.0: CliqueId '40x6' is not a number");
  EXPECT_EQ(report_error(pdsh("gpu001", smi(Gpu{.clique = "-1"}))),
            "report.txt:14: GPU 00000008:01:00.0: CliqueId '-1' is not a number");
  EXPECT_EQ(report_error(pdsh("gpu001", smi(Gpu{.clique = "4294967296"}))),
            "report.txt:14: GPU 00000008:01:00.0: CliqueId '4294967296' is not a number");
  EXPECT_EQ(report_error(pdsh("gpu001", smi(Gpu{.uuid = "9c6f5af3-53bf-49b5-a436-"}))),
            "report.txt:15: GPU 00000008:01:00.0: ClusterUUID '9c6f5af3-53bf-49b5-a436-' is not a UUID");
  EXPECT_EQ(report_error(pdsh("gpu001", smi(Gpu{.uuid = "9c6f5af3x53bf-49b5-a436-b66766c413c3"}))),
            "report.txt:15: GPU 00000008:01:00.0: ClusterUUID '9c6f5af3x53bf-49b5-a436-b66766c413c3' is not "
            "a UUID");
  EXPECT_EQ(report_error(pdsh("gpu001", smi(Gpu{.status = "Success\n        Status : Success"}))),
            "report.txt:14: GPU 00000008:01:00.0: Status twice in its Fabric section (first on line 13)");
  EXPECT_EQ(report_error(pdsh("gpu001", smi(Gpu{.status = "Success\n        Clique ID : 1"}))),
            "report.txt:15: GPU 00000008:01:00.0: CliqueId twice in its Fabric section (first on line 14)");
  EXPECT_EQ(report_error(pdsh("gpu001", smi(Gpu{.uuid = kUuidA + "\n    Fabric"}))),
            "report.txt:16: GPU 00000008:01:00.0: a second Fabric section (first on line 11)");
  EXPECT_EQ(
      report_error(pdsh("gpu001", "GPU 00000008:01:00.0\nGPU 00000009:01:00.0\nGPU 00000008:01:00.0\n")),
      "report.txt:3: host gpu001: GPU 00000008:01:00.0 twice (first on line 1)");
  const auto lines = std::ranges::count(smi(Gpu{}), '\n');
  EXPECT_EQ(
      report_error(pdsh("gpu001", smi(Gpu{})) + pdsh("gpu002", smi(Gpu{})) + pdsh("gpu001", smi(Gpu{}))),
      "report.txt:" + std::to_string(2 * lines + 2) +
          ": host gpu001's report starts twice (first on line 2): two runs in one input?");
  EXPECT_EQ(report_error(""), "report.txt: no node's output in it");
  EXPECT_EQ(report_error("\n  \n"), "report.txt: no node's output in it");
}

TEST(NvlinkReport, AHostIsInTheDomainAllItsGpusRegisteredWith) {
  const std::string text = pdsh("gpu003", smi(Gpu{.clique = "10"})) + pdsh("gpu001", smi(Gpu{})) +
                           pdsh("gpu002", smi(Gpu{.uuid = kUuidB})) + pdsh("gpu004", smi(Gpu{})) +
                           pdsh("gpu005", smi(Gpu{.clique = "9"}));
  const NvlinkReport r = parse_nvlink_report(text, "report.txt");
  const NvlinkReportDomains d = group_nvlink_report(r);
  EXPECT_TRUE(d.warnings.empty());
  // By cluster UUID, then clique id as a number: never by the order the hosts were read.
  ASSERT_EQ(d.domains.size(), 4u);
  EXPECT_EQ(d.domains[0].name, "nvl-5e0d2c41-4026");
  EXPECT_EQ(d.domains[0].cluster_uuid, kUuidB);
  EXPECT_EQ(host_names(r, d.domains[0]), (std::vector<std::string>{"gpu002"}));
  EXPECT_EQ(d.domains[1].name, "nvl-9c6f5af3-9");
  EXPECT_EQ(d.domains[2].name, "nvl-9c6f5af3-10");
  EXPECT_EQ(d.domains[3].name, "nvl-9c6f5af3-4026");
  EXPECT_EQ(d.domains[3].clique_id, 4026u);
  EXPECT_EQ(host_names(r, d.domains[3]), (std::vector<std::string>{"gpu001", "gpu004"}));
  // The same reports in another order make the same domains.
  const NvlinkReport again =
      parse_nvlink_report(pdsh("gpu005", smi(Gpu{.clique = "9"})) + pdsh("gpu004", smi(Gpu{})) +
                              pdsh("gpu002", smi(Gpu{.uuid = kUuidB})) + pdsh("gpu001", smi(Gpu{})) +
                              pdsh("gpu003", smi(Gpu{.clique = "10"})),
                          "again.txt");
  const Fabric f = eight_hosts();
  EXPECT_EQ(resolved(r, d, f), resolved(again, group_nvlink_report(again), f));
}

TEST(NvlinkReport, NamesUseAll32DigitsWhereTheShortNamesOfTwoFabricsMeet) {
  const std::string twin = "9c6f5af3-0000-49b5-a436-b66766c413c3";
  const NvlinkReport r =
      parse_nvlink_report(pdsh("gpu001", smi(Gpu{})) + pdsh("gpu002", smi(Gpu{.uuid = twin})) +
                              pdsh("gpu003", smi(Gpu{.clique = "1"})),
                          "report.txt");
  const NvlinkReportDomains d = group_nvlink_report(r);
  ASSERT_EQ(d.domains.size(), 3u);
  EXPECT_EQ(d.domains[0].name, "nvl-9c6f5af3000049b5a436b66766c413c3-4026");
  EXPECT_EQ(d.domains[1].name, "nvl-9c6f5af3-1");  // no other fabric's clique 1 shares its name
  EXPECT_EQ(d.domains[2].name, "nvl-9c6f5af353bf49b5a436b66766c413c3-4026");
}

TEST(NvlinkReport, AHostWithAnyFaultIsLeftOutWithAWarningNamingTheLine) {
  Gpu failed{.status = "Insufficient Resources", .clique = "0", .uuid = kZero};
  std::vector<Gpu> one_failed(3, Gpu{});
  one_failed.push_back(failed);
  std::vector<Gpu> split(2, Gpu{});
  split.push_back(Gpu{.clique = "4027"});
  // smi() of 4 GPUs is 58 lines: 6 before the GPUs, 13 a GPU, GPU i's Fabric line its 11+13i-th.
  const std::string text =
      pdsh("gpu001", smi(Gpu{})) + pdsh("gpu002", smi(one_failed)) +
      pdsh("gpu003", smi(Gpu{.clique = "0", .uuid = kZero})) + pdsh("gpu004", smi(split)) +
      pdsh("gpu005", smi(Gpu{.state = "In Progress", .status = "N/A"})) +
      pdsh("gpu006", smi(Gpu{.state = "N/A", .status = "N/A", .clique = "N/A", .uuid = "N/A"})) +
      pdsh("gpu007", smi(Gpu{.state = "Not Supported"})) +
      pdsh("gpu008", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n") +
      pdsh("gpu009",
           "\n==============NVSMI LOG==============\nGPU 00000008:01:00.0\n    Processes : None\n") +
      pdsh("gpu010", smi(Gpu{.status = "N/A"})) + pdsh("gpu011", smi(Gpu{.clique = "N/A"})) +
      pdsh("gpu012", smi(Gpu{.uuid = "N/A"}));
  const NvlinkReport r = parse_nvlink_report(text, "report.txt");
  const NvlinkReportDomains d = group_nvlink_report(r);
  ASSERT_EQ(d.domains.size(), 1u);
  EXPECT_EQ(host_names(r, d.domains[0]), (std::vector<std::string>{"gpu001"}));
  const std::vector<std::string> expected = {
      "report.txt:108: host gpu002: GPU 00000019:01:00.0 failed to register with the NVLink fabric (Fabric "
      "Status Insufficient Resources); in no NVLink domain",
      "report.txt:127: host gpu003: GPU 00000008:01:00.0 reports an all-zero ClusterUUID (no NVLink domain); "
      "in "
      "no NVLink domain",
      "report.txt:211: host gpu004: its GPUs are in different NVLink domains: GPU 00000008:01:00.0 in " +
          kUuidA + "/4026, GPU 00000018:01:00.0 in " + kUuidA + "/4027; in no NVLink domain",
      // Status is not looked at before registration is over.
      "report.txt:230: host gpu005: GPU 00000008:01:00.0 has not registered with the NVLink fabric (Fabric "
      "State In Progress); in no NVLink domain",
      "report.txt:288: host gpu006: GPU 00000008:01:00.0 has no NVLink fabric (Fabric State N/A); in no "
      "NVLink "
      "domain",
      "report.txt:346: host gpu007: GPU 00000008:01:00.0 has no NVLink fabric (Fabric State Not Supported); "
      "in "
      "no NVLink domain",
      "report.txt:394: host gpu008: its report lists no GPU (it begins 'NVIDIA-SMI has failed because it "
      "couldn't communicate with the NVIDIA driver.'); in no NVLink domain",
      "report.txt:397: host gpu009: GPU 00000008:01:00.0 prints no Fabric section (a driver too old to "
      "report "
      "one, or no NVLink fabric); in no NVLink domain",
      "report.txt:409: host gpu010: GPU 00000008:01:00.0 failed to register with the NVLink fabric (Fabric "
      "Status N/A); in no NVLink domain",
      "report.txt:467: host gpu011: GPU 00000008:01:00.0 reports no CliqueId; in no NVLink domain",
      "report.txt:525: host gpu012: GPU 00000008:01:00.0 reports no ClusterUUID; in no NVLink domain",
  };
  EXPECT_EQ(d.warnings, expected);
}

TEST(NvlinkReport, HostsResolveToTheFabricsHostsByExactName) {
  const Fabric f = eight_hosts();
  const NvlinkReport r = parse_nvlink_report(
      pdsh("gpu006", smi(Gpu{})) + pdsh("gpu002", smi(Gpu{})) + pdsh("gpu003", smi(Gpu{.uuid = kUuidB})),
      "report.txt");
  EXPECT_EQ(resolved(r, group_nvlink_report(r), f),
            (std::vector<NvlinkDomain>{{"nvl-5e0d2c41-4026", {2}}, {"nvl-9c6f5af3-4026", {1, 5}}}));
  // A name the fabric does not have is left out with a warning, even for a host in no
  // domain; pdsh prints the name it was given, and a fully qualified one is another name.
  for (const std::string& name :
       {std::string("gpu009"), std::string("gpu001.cluster"), std::string("GPU001")}) {
    const NvlinkReport stray = parse_nvlink_report(
        pdsh("gpu001", smi(Gpu{})) + pdsh(name, smi(Gpu{})) + pdsh("gpu002", smi(Gpu{})), "r.txt");
    std::vector<std::string> warnings;
    EXPECT_EQ(domains_of_nvlink_report(stray, group_nvlink_report(stray), f, warnings),
              (std::vector<NvlinkDomain>{{"nvl-9c6f5af3-4026", {0, 1}}}));
    EXPECT_EQ(warnings,
              (std::vector<std::string>{
                  "r.txt:59: node " + name +
                  " is not a host of the fabric (a retired node's or a login node's report?); left out"}));
  }
  // A domain of strays only is dropped.
  const NvlinkReport strays =
      parse_nvlink_report(pdsh("gpu001", smi(Gpu{})) + pdsh("gpu101", smi(Gpu{.uuid = kUuidB})) +
                              pdsh("gpu102", smi(Gpu{.uuid = kUuidB})),
                          "s.txt");
  std::vector<std::string> warnings;
  EXPECT_EQ(domains_of_nvlink_report(strays, group_nvlink_report(strays), f, warnings),
            (std::vector<NvlinkDomain>{{"nvl-9c6f5af3-4026", {0}}}));
  EXPECT_EQ(warnings.size(), 2u);
  // No name matches at all: the names differ in kind (fully qualified), refused.
  const NvlinkReport qualified =
      parse_nvlink_report(pdsh("gpu001.cluster", smi(Gpu{})) + pdsh("gpu002.cluster", smi(Gpu{})), "q.txt");
  warnings.clear();
  EXPECT_EQ(
      testing::message_of<NvlinkReportError>(
          [&] { (void)domains_of_nvlink_report(qualified, group_nvlink_report(qualified), f, warnings); },
          "(accepted)"),
      "q.txt:1: node gpu001.cluster is not a host of the fabric, nor is any of the report's 2 node(s) "
      "(the fabric's hosts are named like gpu001)");
}

TEST(NvlinkReport, FixturePdshTwoRacks) {
  const NvlinkReport r = load_nvlink_report(kFixtures + "pdsh-two-racks.txt");
  ASSERT_EQ(r.hosts.size(), 8u);
  const NvlinkReportDomains d = group_nvlink_report(r);
  EXPECT_TRUE(d.warnings.empty());
  const Fabric f = eight_hosts();
  EXPECT_EQ(resolved(r, d, f), (std::vector<NvlinkDomain>{{"nvl-5e0d2c41-32766", {4, 5, 6, 7}},
                                                          {"nvl-9c6f5af3-4026", {0, 1, 2, 3}}}));
}

TEST(NvlinkReport, FixtureDirectoryOfOneFilePerHost) {
  const std::string dir = kFixtures + "by-host";
  const NvlinkReport r = load_nvlink_report(dir);
  EXPECT_EQ(r.origin, dir);
  // Every file but the collector's temporary one, by name; ".txt" is not part of the host.
  ASSERT_EQ(r.hosts.size(), 8u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(r.hosts[i].host, "gpu00" + std::to_string(i + 1));
  EXPECT_EQ(r.hosts[0].file, dir + "/gpu001.txt");
  const NvlinkReportDomains d = group_nvlink_report(r);
  EXPECT_EQ(resolved(r, d, eight_hosts()),
            (std::vector<NvlinkDomain>{{"nvl-5e0d2c41-32766", {4, 5}}, {"nvl-9c6f5af3-4026", {0, 1, 2, 3}}}));
  ASSERT_EQ(d.warnings.size(), 2u);
  EXPECT_EQ(d.warnings[0],
            dir +
                "/gpu007:30: host gpu007: GPU 00000008:01:00.0 has not registered with the NVLink "
                "fabric (Fabric State In Progress); in no NVLink domain");
  EXPECT_EQ(d.warnings[1],
            dir +
                "/gpu008.txt:30: host gpu008: GPU 00000008:01:00.0 failed to register with the "
                "NVLink fabric (Fabric Status Insufficient Resources); in no NVLink domain");
}

TEST(NvlinkReport, FixtureProblemsLeaveOnlyTheGoodHost) {
  const NvlinkReport r = load_nvlink_report(kFixtures + "problems.txt");
  const NvlinkReportDomains d = group_nvlink_report(r);
  ASSERT_EQ(d.domains.size(), 1u);
  EXPECT_EQ(host_names(r, d.domains[0]), (std::vector<std::string>{"gpu001"}));
  ASSERT_EQ(d.warnings.size(), 7u);
  const char* const reasons[] = {"failed to register", "all-zero ClusterUUID", "different NVLink domains",
                                 "has not registered", "no NVLink fabric",     "prints no Fabric section",
                                 "lists no GPU"};
  for (int i = 0; i < 7; ++i) {
    EXPECT_NE(d.warnings[i].find(": host gpu00" + std::to_string(i + 2) + ": "), std::string::npos)
        << d.warnings[i];
    EXPECT_NE(d.warnings[i].find(reasons[i]), std::string::npos) << d.warnings[i];
  }
}

TEST(NvlinkReport, FixtureRefusals) {
  EXPECT_EQ(load_error(kFixtures + "unprefixed.txt"),
            kFixtures +
                "unprefixed.txt:2: not 'HOST: TEXT' as pdsh and clush print their nodes' output (one node's "
                "nvidia-smi -q goes in a directory, in a file named after the node)");
  EXPECT_EQ(
      load_error(kFixtures + "pdsh-message.txt"),
      kFixtures +
          "pdsh-message.txt:41: pdsh's or clush's own message, not a node's output (send their standard "
          "error elsewhere)");
  EXPECT_EQ(load_error(kFixtures + "garbled-uuid.txt"),
            kFixtures +
                "garbled-uuid.txt:140: GPU 00000009:01:00.0: ClusterUUID '9c6f5af3-53bf-49b5-a436-' is not a "
                "UUID");
  const NvlinkReport r = load_nvlink_report(kFixtures + "unknown-host.txt");
  std::vector<std::string> warnings;
  EXPECT_EQ(domains_of_nvlink_report(r, group_nvlink_report(r), eight_hosts(), warnings).size(), 1u);
  EXPECT_EQ(warnings,
            (std::vector<std::string>{
                kFixtures + "unknown-host.txt:10: node gpu009 is not a host of the fabric (a retired "
                            "node's or a login node's report?); left out"}));
  EXPECT_EQ(load_error(kFixtures + "no-such-file"),
            kFixtures + "no-such-file: cannot read: No such file or directory");
}

TEST(NvlinkReport, DirectoryRefusals) {
  const auto dir = std::filesystem::temp_directory_path() / ("ff-nvreport-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "sub");
  EXPECT_EQ(load_error(dir), dir.string() + ": no report in it (one file per node, named after it)");
  std::ofstream(dir / ".gpu001.tmp") << smi(Gpu{});
  EXPECT_EQ(load_error(dir), dir.string() + ": no report in it (one file per node, named after it)");
  std::ofstream(dir / "gpu001") << smi(Gpu{});
  std::ofstream(dir / "gpu001.txt") << smi(Gpu{});
  EXPECT_EQ(load_error(dir), dir.string() + ": node gpu001 has two reports, gpu001 and gpu001.txt");
  std::filesystem::remove(dir / "gpu001.txt");
  std::ofstream(dir / "gpu002") << "gpu002:  x : y\n" << smi(Gpu{.clique = "x"});
  EXPECT_EQ(load_error(dir),
            (dir / "gpu002").string() + ":15: GPU 00000008:01:00.0: CliqueId 'x' is not a number");
  // pdsh's output put in a node's file reads as a report of no GPU: the warning says what it holds.
  std::ofstream(dir / "gpu002") << pdsh("gpu002", smi(Gpu{}));
  const NvlinkReport r = load_nvlink_report(dir);
  EXPECT_EQ(group_nvlink_report(r).warnings,
            (std::vector<std::string>{
                (dir / "gpu002").string() +
                ":1: host gpu002: its report lists no GPU (it begins 'gpu002:'); in no NVLink "
                "domain"}));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fabricfit
