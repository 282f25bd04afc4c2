// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/readers/nvlink_report_domains.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "common/iequals.hpp"

namespace fabricfit {
namespace {

using Key = std::pair<std::string, std::uint32_t>;  // cluster UUID, clique id

std::string key_text(const NvlinkGpuFabric& g) {
  return fmt::format("{}/{}", g.cluster_uuid, *g.clique_id);
}

bool all_zeros(const std::string& uuid) {
  return std::ranges::all_of(uuid, [](char c) { return c == '0' || c == '-'; });
}

// A host's domain, or why it has none and the line that shows it.
struct Verdict {
  std::optional<Key> key;
  std::string why;
  int line = 0;
};

Verdict judge(const NvlinkHostReport& h) {
  if (h.gpus.empty()) {
    return {{},
            h.first_text.empty() ? "its report lists no GPU"
                                 : fmt::format("its report lists no GPU (it begins '{}')", h.first_text),
            h.line};
  }
  const NvlinkGpuFabric* first = nullptr;
  for (const NvlinkGpuFabric& g : h.gpus) {
    const auto no = [&](const std::string& why) { return Verdict{{}, why, g.fabric_line}; };
    if (g.fabric_line == 0) {
      return {
          {},
          fmt::format("GPU {} prints no Fabric section (a driver too old to report one, or no NVLink fabric)",
                      g.gpu),
          g.line};
    }
    if (!reports_fabric(g)) {
      return no(fmt::format("GPU {} has no NVLink fabric (Fabric State {})", g.gpu,
                            g.state.empty() ? "N/A" : g.state));
    }
    // Status means something only once registration is over.
    if (!iequals(g.state, "Completed")) {
      return no(
          fmt::format("GPU {} has not registered with the NVLink fabric (Fabric State {})", g.gpu, g.state));
    }
    if (!iequals(g.status, "Success")) {
      return no(fmt::format("GPU {} failed to register with the NVLink fabric (Fabric Status {})", g.gpu,
                            g.status.empty() ? "N/A" : g.status));
    }
    if (!g.clique_id || g.cluster_uuid.empty()) {
      return no(fmt::format("GPU {} reports no {}", g.gpu, g.clique_id ? "ClusterUUID" : "CliqueId"));
    }
    if (all_zeros(g.cluster_uuid)) {
      return no(fmt::format("GPU {} reports an all-zero ClusterUUID (no NVLink domain)", g.gpu));
    }
    if (first == nullptr) {
      first = &g;
    } else if (g.cluster_uuid != first->cluster_uuid || g.clique_id != first->clique_id) {
      return no(fmt::format("its GPUs are in different NVLink domains: GPU {} in {}, GPU {} in {}",
                            first->gpu, key_text(*first), g.gpu, key_text(g)));
    }
  }
  return {Key{first->cluster_uuid, *first->clique_id}, "", first->fabric_line};
}

std::string hex_of(const std::string& uuid) {
  std::string hex = uuid;
  std::erase(hex, '-');
  return hex;
}

}  // namespace

NvlinkReportDomains group_nvlink_report(const NvlinkReport& report) {
  NvlinkReportDomains out;
  std::map<Key, std::vector<std::size_t>> hosts_of;  // ordered: the domains' order
  for (std::size_t i = 0; i < report.hosts.size(); ++i) {
    const NvlinkHostReport& h = report.hosts[i];
    const Verdict v = judge(h);
    if (v.key) {
      hosts_of[*v.key].push_back(i);
    } else {
      out.warnings.push_back(
          fmt::format("{}:{}: host {}: {}; in no NVLink domain", h.file, v.line, h.host, v.why));
    }
  }
  // Named like NVIDIA's GPU feature discovery label nvidia.com/gpu.clique=<uuid>.<clique>,
  // shortened to stay readable in Slurm's BlockName= and `show`; all 32 digits where the
  // short names of two fabrics would meet.
  std::map<std::string, int> short_names;
  for (const auto& [key, hosts] : hosts_of)
    ++short_names[fmt::format("{}-{}", key.first.substr(0, 8), key.second)];
  for (auto& [key, hosts] : hosts_of) {
    std::string name = fmt::format("{}-{}", key.first.substr(0, 8), key.second);
    if (short_names[name] > 1) name = fmt::format("{}-{}", hex_of(key.first), key.second);
    out.domains.push_back({.name = "nvl-" + name,
                           .cluster_uuid = key.first,
                           .clique_id = key.second,
                           .hosts = std::move(hosts)});
  }
  return out;
}

std::vector<NvlinkDomain> domains_of_nvlink_report(const NvlinkReport& report,
                                                   const NvlinkReportDomains& domains, const Fabric& fabric,
                                                   std::vector<std::string>& warnings) {
  std::vector<std::optional<int>> host_of(report.hosts.size());
  std::vector<std::string> left_out;
  for (std::size_t i = 0; i < report.hosts.size(); ++i) {
    const NvlinkHostReport& h = report.hosts[i];
    host_of[i] = fabric.host_index(h.host);
    if (!host_of[i]) {
      left_out.push_back(fmt::format(
          "{}:{}: node {} is not a host of the fabric (a retired node's or a login node's report?); left out",
          h.file, h.line, h.host));
    }
  }
  // Not one name matches: the report names nodes otherwise than the fabric does (fully
  // qualified against short, say), not a stray file among good ones.
  if (!report.hosts.empty() && left_out.size() == report.hosts.size()) {
    const NvlinkHostReport& h = report.hosts.front();
    throw NvlinkReportError(fmt::format(
        "{}:{}: node {} is not a host of the fabric, nor is any of the report's {} node(s) (the fabric's "
        "hosts are named like {})",
        h.file, h.line, h.host, report.hosts.size(),
        fabric.hosts.empty() ? std::string("nothing") : fabric.hosts.front().name));
  }
  warnings.insert(warnings.end(), left_out.begin(), left_out.end());
  std::vector<NvlinkDomain> out;
  out.reserve(domains.domains.size());
  for (const NvlinkReportDomain& d : domains.domains) {
    NvlinkDomain domain{.name = d.name, .hosts = {}};
    for (std::size_t i : d.hosts) {
      if (host_of.at(i)) domain.hosts.push_back(*host_of[i]);
    }
    if (domain.hosts.empty()) continue;
    std::ranges::sort(domain.hosts);  // the Fabric's order, whatever order the report had
    out.push_back(std::move(domain));
  }
  return out;
}

}  // namespace fabricfit
