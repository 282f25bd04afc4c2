// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target for the nodes' NVLink reports (`discover --nvlink-report`,
// parse_nvlink_report and group_nvlink_report). Any input is refused with
// NvlinkReportError naming the file, or reads as hosts of which each is in exactly one
// domain or has exactly one warning; domains are named once each, not empty, and none is
// the all-zero cluster UUID of a failed registration.
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "topology/readers/nvlink_report_domains.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  fabricfit::NvlinkReport report;
  try {
    report = fabricfit::parse_nvlink_report(in, "fuzz.txt");
  } catch (const fabricfit::NvlinkReportError& e) {
    if (!std::string_view(e.what()).starts_with("fuzz.txt:")) std::abort();
    return 0;
  }
  if (report.hosts.empty()) std::abort();
  std::set<std::string> hosts;
  for (const auto& h : report.hosts) {
    if (h.host.empty() || !hosts.insert(h.host).second || h.line <= 0) std::abort();
  }
  const fabricfit::NvlinkReportDomains found = fabricfit::group_nvlink_report(report);
  std::vector<int> seen(report.hosts.size());
  std::set<std::string> names;
  for (const auto& d : found.domains) {
    if (d.hosts.empty() || !names.insert(d.name).second || !d.name.starts_with("nvl-")) std::abort();
    if (d.cluster_uuid == "00000000-0000-0000-0000-000000000000") std::abort();
    for (std::size_t i : d.hosts) {
      if (i >= seen.size()) std::abort();
      ++seen[i];
    }
  }
  std::size_t out = 0;
  for (int n : seen) {
    if (n > 1) std::abort();
    out += n == 0;
  }
  if (out != found.warnings.size()) std::abort();  // each host left out is warned of, once
  for (const auto& w : found.warnings) {
    if (!w.starts_with("fuzz.txt:")) std::abort();
  }
  return 0;
}
