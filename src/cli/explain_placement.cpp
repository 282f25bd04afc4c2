// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli/explain_placement.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <cstdlib>
#include <set>
#include <vector>

#include "cli/health_marks.hpp"
#include "cli/health_report.hpp"
#include "placement/selection/health_view.hpp"
#include "placement/slurm/admin_comment.hpp"

namespace fabricfit::cli {

using nlohmann::json;

json record_json(const std::string& record) {
  json j = json::object();
  for (const char* key :
       {"placement", "reason", "leaf_groups", "groups", "cross_spine_gb", "pods", "cross_core_gb",
        "nvlink_domains", "domains", "uplink_ms", "unusable_gpus", "pattern"}) {
    if (const auto v = record_value(record, key); !v.empty()) j[key] = v;
  }
  return j;
}

std::optional<double> record_number(const std::string& record, const char* key) {
  const std::string v = record_value(record, key);
  if (v.empty()) return std::nullopt;
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (end != v.c_str() + v.size()) return std::nullopt;
  return d;
}

bool accounting_lacks_gpus(const SlurmJob& job) {
  if (!job.from_accounting || job.nodes.empty()) return false;
  if (job.total_gpus > 0 || job.gpus_per_node > 0) return false;
  for (int g : job.gpus_on_node)
    if (g > 0) return false;
  return record_value(job.placement_record, "reason") != "no-gpus";
}

std::string accounting_gpus_note(const SlurmJob& job) {
  const bool figures = record_number(job.placement_record, "cross_spine_gb").has_value();
  return fmt::format(
      "accounting has no GPU counts: sacct lists no gres/gpu for the job (slurmdbd keeps a job's GPUs "
      "only with AccountingStorageTRES=gres/gpu in slurm.conf); {}",
      figures ? "its traffic figures below are its placement record's"
              : "its placement record has no traffic figures either, so its traffic is unknown");
}

json reconcile_own_placement(json p, const OwnPlacement& own) {
  if (!own.gpus_known) {
    p["gpus"] = nullptr;
    p["figures_from"] = "placement record";
    p["cross_spine_share"] = nullptr;
    p["busiest_uplinks"] = nullptr;
    p["uplink_oversubscription"] = nullptr;
    const auto number = [&](const char* key) {
      const auto v = record_number(own.record, key);
      return v ? json(*v) : json(nullptr);
    };
    p["cross_spine_gb_per_gb"] = number("cross_spine_gb");
    p["uplink_ms_per_gb"] = number("uplink_ms");
    // The record names pods and cross-core traffic only for a job over several pods.
    const bool spine = p["cross_spine_gb_per_gb"].is_number();
    const auto core = record_number(own.record, "cross_core_gb");
    p["cross_core_gb_per_gb"] = core ? json(*core) : spine ? json(0.0) : json(nullptr);
    const auto pods = record_number(own.record, "pods");
    p["pods"] = pods ? static_cast<int>(*pods) : 0;
    p.erase("uplink_share");  // of 0 GPUs
  }
  const auto at_placement = record_number(own.record, "unusable_gpus");
  if (own.ended) {
    p["gpus_made_unusable"] = at_placement ? json(*at_placement) : json(nullptr);
    p["unusable_when"] = "placement";
  } else {
    p["unusable_when"] = "now";
    if (at_placement) p["gpus_made_unusable_at_placement"] = *at_placement;
  }
  return p;
}

namespace {

bool is_number(const json& p, const char* key) {
  return p.contains(key) && p[key].is_number();
}

}  // namespace

std::string render_placement(const json& p) {
  const auto groups = p["leaf_groups"].get<std::vector<std::string>>();
  const bool recorded = p.value("figures_from", "") == "placement record";
  const std::string gpus = is_number(p, "gpus") ? fmt::format("{} GPUs", p["gpus"].get<int>())
                                                : "GPUs unknown: accounting has no GPU counts";
  std::string out = fmt::format("  nodes        {} ({})\n  leaf groups  {} ({})\n",
                                p["nodes"].get<std::string>(), gpus, groups.size(), fmt::join(groups, ", "));
  if (p.value("pods", 0) > 0) out += fmt::format("  pods         {}\n", p["pods"].get<int>());
  if (p.contains("nvlink_domains") && p["nvlink_domains"].is_array()) {
    const auto domains = p["nvlink_domains"].get<std::vector<std::string>>();
    out += fmt::format("  NVLink       {} domain(s) ({})\n", domains.size(), fmt::join(domains, ", "));
  }
  if (p.contains("segments") && p["segments"].is_object()) {
    const auto pieces = p["segments"].value("nodes", std::vector<std::string>{});
    const int size = p["segments"].value("size", 0);
    out += pieces.empty() ? fmt::format("  segments     not {}-node segments of one domain each\n", size)
                          : fmt::format("  segments     {} of {} node(s), one domain each ({})\n",
                                        pieces.size(), size, fmt::join(pieces, ", "));
  }
  if (!is_number(p, "cross_spine_gb_per_gb")) {
    out += "  traffic      unknown: no GPU counts, and no figures in its placement record\n";
  } else {
    const double spine = p["cross_spine_gb_per_gb"].get<double>();
    if (is_number(p, "cross_spine_share"))
      out += fmt::format("  cross-spine  {:.3g} GB per GB of message ({:.0f}% of its inter-node traffic)\n",
                         spine, 100 * p["cross_spine_share"].get<double>());
    else
      out += fmt::format("  cross-spine  {:.3g} GB per GB of message{}\n", spine,
                         recorded ? " (placement record)" : "");
    if (is_number(p, "cross_core_gb_per_gb") && p["cross_core_gb_per_gb"].get<double>() > 0)
      out += fmt::format("  cross-core   {:.3g} GB per GB of message\n",
                         p["cross_core_gb_per_gb"].get<double>());
    const double ms = is_number(p, "uplink_ms_per_gb") ? p["uplink_ms_per_gb"].get<double>() : 0.0;
    if (ms > 0 && p.contains("busiest_uplinks") && p["busiest_uplinks"].is_string()) {
      out += fmt::format(
          "  uplinks      {:.3g} ms per GB of message on the busiest ({}), oversubscribed {:.2g}:1\n", ms,
          p["busiest_uplinks"].get<std::string>(), p["uplink_oversubscription"].get<double>());
    } else if (ms > 0) {
      out += fmt::format("  uplinks      {:.3g} ms per GB of message on the busiest{}\n", ms,
                         recorded ? " (placement record)" : "");
    } else if (!is_number(p, "uplink_ms_per_gb")) {
      out += "  uplinks      unknown\n";
    } else if (groups.size() > 1 || spine > 0) {
      out += "  uplinks      none loaded: its pattern sends nothing between its leaf groups\n";
    } else {
      out += "  uplinks      none used: no traffic leaves a leaf group\n";
    }
  }
  if (p.contains("uplink_share"))
    out += fmt::format("  beside       the running split jobs it keeps {:.3g} of its uplink demand\n",
                       p["uplink_share"].get<double>());
  if (is_number(p, "gpus_made_unusable")) {
    const double u = p["gpus_made_unusable"].get<double>();
    const std::string when = p.value("unusable_when", "");
    if (when == "now") {
      out += fmt::format(
          "  unusable     {:+.1f} GPUs the workload mix can no longer use: now, on today's free GPUs "
          "(its own counted free)\n",
          u);
      if (is_number(p, "gpus_made_unusable_at_placement"))
        out += fmt::format("               {:+.1f} at placement (its placement record)\n",
                           p["gpus_made_unusable_at_placement"].get<double>());
    } else if (when == "placement") {
      out += fmt::format(
          "  unusable     {:+.1f} GPUs the workload mix can no longer use: at placement (its placement "
          "record)\n",
          u);
    } else {
      out += fmt::format("  unusable     {:+.1f} GPUs the workload mix can no longer use\n", u);
    }
  }
  return out;
}

namespace {

json health_link_json(const LinkStatus& l, const char* key, const std::string& where) {
  return {{"link", link_name(l)},
          {"a", l.a},
          {"a_port", l.a_port},
          {"b", l.b},
          {"b_port", l.b_port},
          {"state", state_name(l.state)},
          {"since", l.since_unix},
          {"evidence", main_evidence(l)},
          {key, where}};
}

json nvlink_json(const NvlinkHostStatus& n) {
  return {{"nvlink", n.host},
          {"state", nvlink_state_name(n.state)},
          {"since", n.since_unix},
          {"evidence", n.reason}};
}

}  // namespace

json placement_health(const Fabric& f, const HealthFile& health, const std::vector<std::string>& job_hosts,
                      const CrossedParts& crosses, const std::vector<std::string>& candidates) {
  const HealthMarks m = health_marks(f, health);
  std::vector<bool> used_host(f.hosts.size(), false), used_group(f.leaf_groups.size(), false),
      candidate_group(f.leaf_groups.size(), false);
  for (const auto& name : job_hosts) {
    if (const auto h = f.host_index(name)) {
      used_host[static_cast<std::size_t>(*h)] = true;
      if (const int g = f.hosts[static_cast<std::size_t>(*h)].leaf_group; g >= 0)
        used_group[static_cast<std::size_t>(g)] = true;
    }
  }
  json crossed = json::array(), avoided = json::array();
  // A one-host job crosses no HCA link or uplink, so it neither crossed nor avoided one.
  for (std::size_t h = 0; h < m.hosts.size() && crosses.host_links; ++h)
    if (used_host[h])
      for (const auto& l : m.hosts[h]) crossed.push_back(health_link_json(l, "host", f.hosts[h].name));
  for (const auto& name : candidates) {
    const auto h = f.host_index(name);
    if (!h || used_host[static_cast<std::size_t>(*h)] || !crosses.host_links) continue;
    for (const auto& l : m.hosts[static_cast<std::size_t>(*h)])
      avoided.push_back(health_link_json(l, "host", name));
    if (const int g = f.hosts[static_cast<std::size_t>(*h)].leaf_group; g >= 0)
      candidate_group[static_cast<std::size_t>(g)] = true;
  }
  for (std::size_t g = 0; g < m.uplinks.size(); ++g) {
    for (const auto& l : m.uplinks[g]) {
      if (used_group[g] && crosses.uplinks)
        crossed.push_back(health_link_json(l, "leaf_group", f.leaf_groups[g].name));
      else if (!used_group[g] && candidate_group[g])
        avoided.push_back(health_link_json(l, "leaf_group", f.leaf_groups[g].name));
    }
  }
  // A host's NVLink, when the job's traffic crosses NVLink: crossed on its own hosts,
  // avoided among the others.
  const std::set<std::string, std::less<>> candidate_names(candidates.begin(), candidates.end());
  const std::set<std::string, std::less<>> job_names(job_hosts.begin(), job_hosts.end());
  for (const NvlinkHostStatus& n : health.nvlink) {
    if (!crosses.nvlink) break;
    // A degraded NVLink only slows, and only the jobs it paces (crossed_parts).
    if (part_health(n.state) != PartHealth::Failing && !crosses.nvlink_paced) continue;
    if (job_names.contains(n.host)) {
      crossed.push_back(nvlink_json(n));
    } else if (candidate_names.contains(n.host)) {
      avoided.push_back(nvlink_json(n));
    }
  }
  return {
      {"sweep", health.sweep_unix}, {"sweeps", health.sweeps}, {"crossed", crossed}, {"avoided", avoided}};
}

std::string render_placement_health(const json& h) {
  const auto lines = [](const json& links) {
    std::string out;
    for (const auto& l : links) {
      if (l.contains("nvlink")) {
        out += fmt::format("               {} NVLink  {}: {}\n", l["nvlink"].get<std::string>(),
                           l["state"].get<std::string>(), l["evidence"].get<std::string>());
        continue;
      }
      out += fmt::format("               {} {}  {}: {}\n",
                         l.contains("host") ? l["host"].get<std::string>() + " HCA link"
                                            : l["leaf_group"].get<std::string>() + " uplink",
                         l["link"].get<std::string>(), l["state"].get<std::string>(),
                         l["evidence"].get<std::string>());
    }
    return out;
  };
  const auto& crossed = h["crossed"];
  const auto& avoided = h["avoided"];
  std::string out =
      crossed.empty() ? fmt::format("  health       crosses no link that is not healthy (health sweep {})\n",
                                    h["sweeps"].get<int>())
                      : fmt::format("  health       crosses {} link(s) not healthy (health sweep {}):\n{}",
                                    crossed.size(), h["sweeps"].get<int>(), lines(crossed));
  if (!avoided.empty())
    out += fmt::format("  avoided      {} link(s) not healthy among the free hosts it did not use:\n{}",
                       avoided.size(), lines(avoided));
  return out;
}

std::string snapshot_load_error(const std::string& conf, bool conf_given, bool conf_found,
                                const std::string& error) {
  if (conf_found) return fmt::format("{} (SnapshotFile of {}, or the default when it has none)", error, conf);
  return fmt::format(
      "no fabricfit.conf found (tried {}{}); using the default snapshot path: {}; give --snapshot FILE, or "
      "--conf FILE with SnapshotFile=",
      conf, conf_given ? ", named by --conf" : ", the default of --conf", error);
}

}  // namespace fabricfit::cli
