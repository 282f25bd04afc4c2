// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli/html_report.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <set>

#include "cli/frag_history.hpp"
#include "common/hostlist_expand.hpp"
#include "common/xml_escape.hpp"
#include "placement/fragmentation.hpp"
#include "placement/placement_score.hpp"

namespace fabricfit::cli {
namespace {

const char* host_class(const GpuState& g, int h) {
  if (g.total[h] <= 0) return "absent";
  if (g.free[h] == g.total[h]) return "free";
  if (g.free[h] == 0) return "busy";
  return "stranded";
}

constexpr int kCols = 8, kCell = 22, kPad = 12, kGroupGap = 16, kTop = 70;

// Leaf groups side by side under one spine bar; hosts as squares in rows of kCols.
std::string fabric_svg(const Fabric& fabric, const LocalityIndex& index, const GpuState& gpus) {
  std::set<std::string> degraded_ends;
  for (const auto& d : fabric.degraded_links) {
    degraded_ends.insert(d.a);
    degraded_ends.insert(d.b);
  }
  const int groups = index.leaf_group_count();
  const int group_w = kCols * kCell + 2 * kPad;
  int rows = 1;
  for (int g = 0; g < groups; ++g) rows = std::max(rows, (index.leaf_group_size(g) + kCols - 1) / kCols);
  const int group_h = rows * kCell + 2 * kPad + 18;
  const int width = std::max(1, groups) * (group_w + kGroupGap) + kGroupGap;
  const int height = kTop + group_h + 20;
  std::string svg = fmt::format(
      "<svg id=\"fabric\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\">\n<rect class=\"spines\" x=\"{2}\" y=\"8\" width=\"{3}\" height=\"22\"/>"
      "<text x=\"{4}\" y=\"24\" text-anchor=\"middle\">spines ({5})</text>\n",
      width, height, kGroupGap, width - 2 * kGroupGap, width / 2, fabric.switch_count(SwitchTier::Spine));
  for (int g = 0; g < groups; ++g) {
    const auto& lg = fabric.leaf_groups[static_cast<std::size_t>(g)];
    bool degraded = false;
    for (const Vertex v : lg.leaves) {
      if (v != FabricGraph::null_vertex() && degraded_ends.contains(fabric.graph[v].name)) degraded = true;
    }
    const int x = kGroupGap + g * (group_w + kGroupGap);
    svg += fmt::format("<g class=\"leaf-group{}\" data-name=\"{}\">\n", degraded ? " degraded" : "",
                       xml_escape(lg.name));
    svg += fmt::format("<line class=\"uplink{}\" x1=\"{}\" y1=\"30\" x2=\"{}\" y2=\"{}\"/>",
                       degraded ? " degraded" : "", x + group_w / 2, x + group_w / 2, kTop);
    svg += fmt::format("<rect class=\"leaf\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"6\"/>", x,
                       kTop, group_w, group_h);
    svg += fmt::format("<text x=\"{}\" y=\"{}\">{}{}</text>\n", x + kPad, kTop + 14, xml_escape(lg.name),
                       degraded ? " \u26a0 degraded link" : "");
    int i = 0;
    for (const int h : index.hosts_of(g)) {
      const int cx = x + kPad + (i % kCols) * kCell, cy = kTop + 20 + kPad / 2 + (i / kCols) * kCell;
      svg += fmt::format(
          "<rect class=\"host {}\" data-host=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}: "
          "{} of {} "
          "GPUs free</title></rect>\n",
          host_class(gpus, h), xml_escape(index.host_name(h)), cx, cy, kCell - 4, kCell - 4,
          xml_escape(index.host_name(h)), gpus.free[h], gpus.total[h]);
      ++i;
    }
    svg += "</g>\n";
  }
  return svg + "</svg>\n";
}

std::string jobs_table(const LocalityIndex& index, const std::vector<SlurmJob>& jobs) {
  std::string rows;
  int shown = 0;
  for (auto it = jobs.rbegin(); it != jobs.rend() && shown < 20; ++it) {
    const SlurmJob& j = *it;
    if (j.nodes.empty() || j.state == "PENDING") continue;
    std::vector<int> hosts, gpus;
    for (const auto& n : expand_hostlist(j.nodes)) {
      if (const auto h = index.find_host(n); h && index.leaf_group_of(*h) >= 0) {
        hosts.push_back(*h);
        gpus.push_back(j.gpus_per_node > 0 ? j.gpus_per_node : 1);
      }
    }
    const PlacementScore s = score_hosts(index, hosts, gpus, CommPattern{PatternKind::Ring});
    rows += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.0f}%</td></tr>\n", j.id,
                        xml_escape(j.state), xml_escape(j.nodes), s.leaf_groups,
                        s.inter_node_bytes > 0 ? 100 * s.spine_bytes / s.inter_node_bytes : 0.0);
    ++shown;
  }
  return fmt::format(
      "<table id=\"jobs\"><caption>Last jobs' placements (cross-spine share for a ring)</caption>\n"
      "<tr><th>job</th><th>state</th><th>nodes</th><th>leaf "
      "groups</th><th>cross-spine</th></tr>\n{}</table>\n",
      rows.empty() ? "<tr><td colspan=\"5\">no jobs</td></tr>\n" : rows);
}

}  // namespace

std::string html_report(const Fabric& fabric, const LocalityIndex& index, const GpuState& gpus,
                        const std::vector<SlurmJob>& jobs, const std::string& cluster) {
  const FragModel model(WorkloadMix::standard(std::max(1, gpus.max_gpus_per_host())),
                        std::max(1, gpus.max_gpus_per_host()), index.largest_leaf_group());
  const FragmentationReport r = measure_fragmentation(index, gpus, model);
  std::string degraded;
  for (const auto& d : fabric.degraded_links) {
    degraded += fmt::format("<li class=\"degraded-link\">{}[{}] &ndash; {}[{}]: {} (peers {})</li>\n",
                            xml_escape(d.a), d.port_a, xml_escape(d.b), d.port_b, d.rate.to_string(),
                            d.expected_rate.to_string());
  }
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{0}: fabric and "
      "GPUs, by fabricfit</title>\n<style>\n"
      "body{{font-family:sans-serif;margin:1.5em}} svg text{{font-size:12px}}\n"
      ".spines{{fill:#dde}} .leaf{{fill:#f7f7f7;stroke:#888}} .degraded .leaf{{stroke:#d22;stroke-width:3}}\n"
      ".uplink{{stroke:#888;stroke-width:2}} .uplink.degraded{{stroke:#d22;stroke-dasharray:4 3}}\n"
      ".host.free{{fill:#3a3}} .host.busy{{fill:#777}} .host.stranded{{fill:#e90}} "
      ".host.absent{{fill:#fff;stroke:#bbb}}\n"
      "table{{border-collapse:collapse}} td,th{{border:1px solid #ccc;padding:2px 8px}}\n"
      ".key span{{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px}}\n"
      ".axis{{stroke:#888}} .tick{{stroke:#888}} .frag-line{{fill:none;stroke:#36c;stroke-width:2}} "
      ".frag-point{{fill:#36c}}\n</style></head><body>\n"
      "<h1>{0}</h1>\n<p id=\"summary\">{1} hosts, {2} leaf groups, {3} rails, {4} tiers; {5} "
      "degraded "
      "link(s). Fabric: {14}</p>\n<p class=\"key\"><span style=\"background:#3a3\"></span>free<span "
      "style=\"background:#777\"></span>busy"
      "<span style=\"background:#e90\"></span>stranded (partly busy)<span style=\"border:1px solid "
      "#bbb\"></span>not a GPU node</p>\n"
      "{6}<p id=\"frag\">{7} of {8} GPUs free; {9:.1f} of them unusable by the workload mix: fragmentation "
      "{10:.3f}</p>\n"
      "<h2>Fragmentation over time (from the job records)</h2>\n{13}"
      "<h2>Degraded links</h2>\n<ul id=\"degraded\">{11}</ul>\n{12}</body></html>\n",
      xml_escape(cluster.empty() ? std::string("Cluster (unnamed: fabricfit report --cluster NAME)")
                                 : "Cluster " + cluster),
      fabric.hosts.size(), fabric.leaf_groups.size(), fabric.rails, fabric.tiers,
      fabric.degraded_links.size(), fabric_svg(fabric, index, gpus), r.free_gpus, r.total_gpus, r.unusable,
      r.frag, degraded.empty() ? "<li>none</li>\n" : degraded, jobs_table(index, jobs),
      frag_history_svg(frag_history(index, gpus.total, jobs)),
      xml_escape(fabric.origin.empty() ? std::string("origin unknown") : fabric.origin));
}

}  // namespace fabricfit::cli
