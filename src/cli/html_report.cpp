// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli/html_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <map>
#include <set>

#include "cli/frag_history.hpp"
#include "cli/health_report.hpp"
#include "cli/report_jobs.hpp"
#include "common/hostlist.hpp"
#include "common/xml_escape.hpp"
#include "placement/domain_fragmentation.hpp"
#include "placement/fragmentation.hpp"
#include "placement/selection/health_view.hpp"

namespace fabricfit::cli {
namespace {

// Domains take one of kDomainColours colours in turn (the CSS's .dom-N): a mark to see a
// domain's hosts together at a glance, its name always beside it as text.
constexpr int kDomainColours = 8;

// A domain's mark: its name on its colour. In a host's box, and in the domains table as its key.
std::string domain_mark(const LocalityIndex& index, int d) {
  return fmt::format("<span class=\"domain-mark dom-{}\">{}</span>", d % kDomainColours,
                     xml_escape(index.domain_name(d)));
}

const char* host_class(const GpuState& g, int h) {
  if (g.total[h] <= 0) return "absent";
  if (g.free[h] == g.total[h]) return "free";
  if (g.free[h] == 0) return "busy";
  return "stranded";
}

// The fabric as HTML boxes, not a fixed-size drawing: leaf groups wrap to the page's width
// like words, and every host shows its name and free GPUs as text (a name only in a
// tooltip cannot be read off a screenshot or searched for).
// Hosts whose NVLink is not healthy (the health file's NVLink section), by name.
using NvlinkByHost = std::map<std::string, const NvlinkHostStatus*, std::less<>>;

std::string fabric_html(const Fabric& fabric, const LocalityIndex& index, const GpuState& gpus,
                        const HealthMarks& health, const NvlinkByHost& nvlink) {
  std::set<std::string> degraded_ends;
  for (const auto& d : fabric.degraded_links) {
    degraded_ends.insert(d.a);
    degraded_ends.insert(d.b);
  }
  std::string out = fmt::format(
      "<div id=\"fabric\">\n<div class=\"spines\">spines ({})</div>\n<div class=\"leaf-groups\">\n",
      fabric.switch_count(SwitchTier::Spine));
  for (int g = 0; g < index.leaf_group_count(); ++g) {
    const auto& lg = fabric.leaf_groups[static_cast<std::size_t>(g)];
    bool degraded = false;
    for (const Vertex v : lg.leaves) {
      if (v != FabricGraph::null_vertex() && degraded_ends.contains(fabric.graph[v].name)) degraded = true;
    }
    const auto* uplinks = static_cast<std::size_t>(g) < health.uplinks.size() &&
                                  !health.uplinks[static_cast<std::size_t>(g)].empty()
                              ? &health.uplinks[static_cast<std::size_t>(g)]
                              : nullptr;
    const std::string uplink_mark =
        uplinks == nullptr ? ""
                           : fmt::format(" <span class=\"health-mark\">\u26a0 {} uplink(s) {}</span>",
                                         uplinks->size(), state_name(worst_state(*uplinks)));
    out += fmt::format(
        "<div class=\"leaf-group{}{}\" data-name=\"{}\"{}><div class=\"uplink\"></div><div class=\"leaf\">"
        "<div class=\"leaf-name\">{}{}{}</div><div class=\"hosts\">\n",
        degraded ? " degraded" : "", uplinks ? " unhealthy" : "", xml_escape(lg.name),
        uplinks ? fmt::format(" title=\"{}\"", xml_escape(main_evidence(uplinks->front()))) : "",
        xml_escape(lg.name), degraded ? " \u26a0 degraded link" : "", uplink_mark);
    for (const int h : index.hosts_of(g)) {
      const std::string name = xml_escape(index.host_name(h));
      const auto fh = fabric.host_index(index.host_name(h));
      const auto* hca = fh && static_cast<std::size_t>(*fh) < health.hosts.size() &&
                                !health.hosts[static_cast<std::size_t>(*fh)].empty()
                            ? &health.hosts[static_cast<std::size_t>(*fh)]
                            : nullptr;
      const auto nv_it = nvlink.find(index.host_name(h));
      const NvlinkHostStatus* nv = nv_it == nvlink.end() ? nullptr : nv_it->second;
      std::string why, mark;
      if (hca) {
        why += "; HCA link " + xml_escape(main_evidence(hca->front()));
        mark += fmt::format("<span class=\"health-mark\">{}</span>", state_name(worst_state(*hca)));
      }
      if (nv) {
        why += fmt::format("; NVLink {}: {}", nvlink_state_name(nv->state), xml_escape(nv->reason));
        mark += fmt::format("<span class=\"health-mark nvlink-mark\">NVLink {}</span>",
                            nvlink_state_name(nv->state));
      }
      // A domain may span leaf groups (a tray per rail leaf): each host says its own.
      const auto d = index.domain_of(h);
      out += fmt::format(
          "<div class=\"host {0}{4}{7}\" data-host=\"{1}\"{8} title=\"{1}: {2} of {3} GPUs free{5}\"><span "
          "class=\"host-name\">{1}</span><span class=\"host-gpus\">{2}/{3}</span>{9}{6}</div>\n",
          host_class(gpus, h), name, gpus.free[h], gpus.total[h], hca || nv ? " unhealthy" : "", why, mark,
          d ? fmt::format(" dom-{}", *d % kDomainColours) : "",
          d ? fmt::format(" data-domain=\"{}\"", xml_escape(index.domain_name(*d))) : "",
          d ? domain_mark(index, *d) : "");
    }
    out += "</div></div></div>\n";
  }
  return out + "</div>\n</div>\n";
}

// The NVLink domains (none: ""): how many domain- and half-domain-sized jobs of whole hosts
// still fit, and per domain its hosts, the leaf groups they hang off, its free GPUs and its
// wholly free hosts, each domain's name on its colour as the key to the hosts' marks.
// `nvlink_read`: the health file holds the nodes' NVLink reports (else no NVLink column: no
// news is not health).
std::string domains_html(const LocalityIndex& index, const GpuState& gpus, const NvlinkByHost& nvlink,
                         bool nvlink_read) {
  if (index.domain_count() == 0) return "";
  const DomainFragmentation m = measure_domain_fragmentation(index, gpus);
  std::string rows;
  int in_domains = 0;
  for (int d = 0; d < index.domain_count(); ++d) {
    const auto hosts = index.hosts_of_domain(d);
    const DomainFreeCapacity& c = m.domains[static_cast<std::size_t>(d)];
    std::vector<std::string> names;
    int failing = 0, degraded = 0;
    for (const int h : hosts) {
      names.push_back(index.host_name(h));
      if (const auto it = nvlink.find(index.host_name(h)); it != nvlink.end()) {
        const bool fails = part_health(it->second->state) == PartHealth::Failing;
        failing += fails ? 1 : 0;
        degraded += fails ? 0 : 1;
      }
    }
    in_domains += static_cast<int>(hosts.size());
    rows += fmt::format(
        "<tr class=\"domain{}\" data-domain=\"{}\"><td>{}</td><td class=\"domain-hosts\">{}</td>"
        "<td class=\"domain-groups\">{}</td><td class=\"domain-free\">{}/{}</td><td "
        "class=\"domain-whole\">{}/{}</td>{}"
        "</tr>\n",
        c.whole_free_hosts == c.hosts ? " wholly-free" : "", xml_escape(index.domain_name(d)),
        domain_mark(index, d), xml_escape(compress_hostlist(names)),
        xml_escape(fmt::format("{}", fmt::join(leaf_group_names_of(index, hosts), ", "))), c.free_gpus,
        c.total_gpus, c.whole_free_hosts, c.hosts,
        !nvlink_read ? std::string()
                     : fmt::format("<td class=\"domain-nvlink\">{}</td>",
                                   fmt::format("{} failing, {} degraded", failing, degraded)));
  }
  const int outside = index.host_count() - in_domains;
  return fmt::format(
      "<section id=\"nvlink-domains\"><h3>NVLink domains</h3>\n<p id=\"domain-frag\">{} of {} domains "
      "wholly free; {} half-domain jobs still fit (of whole hosts, each inside one domain)</p>\n"
      "<table id=\"domains\"><tr><th>domain</th><th>hosts</th><th>leaf groups</th><th>free GPUs</th>"
      "<th>wholly free hosts</th>{}</tr>\n{}</table>\n{}</section>\n",
      m.whole_free_domains, index.domain_count(), m.half_domain_jobs, nvlink_read ? "<th>NVLink</th>" : "",
      rows,
      outside > 0 ? fmt::format("<p id=\"no-domain\">{} host(s) in no NVLink domain</p>\n", outside) : "");
}

// Two columns where the window is wide enough (the fabric beside the fragmentation, the
// jobs across both), one where it is not: a fixed narrow column left half a wide page blank.
constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:1.5em} h1{margin:0 0 .3em} h2{margin:.2em 0 .4em} "
    "h3{margin:.8em 0 .3em;font-size:1em}\n"
    "main{display:grid;grid-template-columns:repeat(auto-fit,minmax(480px,1fr));gap:1em 2.5em;"
    "align-items:start}\n"
    ".wide{grid-column:1/-1}\n"
    ".spines{background:#dde;text-align:center;padding:3px;border-radius:4px}\n"
    ".leaf-groups{display:flex;flex-wrap:wrap;gap:0 12px}\n"
    ".uplink{width:0;height:18px;margin:0 auto;border-left:2px solid #888}\n"
    ".leaf{background:#f7f7f7;border:1px solid #888;border-radius:6px;padding:4px 8px 8px}\n"
    ".degraded .leaf{border:3px solid #d22} .degraded .uplink{border-left:2px dashed #d22}\n"
    ".leaf-name{font-size:13px;margin-bottom:4px}\n"
    ".hosts{display:grid;grid-template-columns:repeat(4,auto);gap:4px}\n"
    ".host{font:12px monospace;padding:2px 6px;border-radius:3px;color:#fff;text-align:center}\n"
    ".host-gpus{display:block;font-size:10px;opacity:.85}\n"
    ".host.unhealthy,.key .unhealthy{outline:3px solid #c0c;outline-offset:1px} "
    ".unhealthy .leaf{border:3px dotted #c0c} .unhealthy .uplink{border-left:2px dotted #c0c}\n"
    ".health-mark{display:block;font:bold 10px sans-serif;color:#c0c} .host .health-mark{color:#fff;"
    "background:#c0c;border-radius:2px}\n"
    ".host.free,.key .free{background:#3a3} .host.busy,.key .busy{background:#777} "
    ".host.stranded,.key .stranded{background:#e90;color:#000} "
    ".host.absent,.key .absent{background:#fff;color:#666;border:1px solid #bbb}\n"
    ".key span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}\n"
    "table{border-collapse:collapse;width:100%} td,th{border:1px solid #ccc;padding:2px "
    "8px;text-align:left}\n"
    "caption{text-align:left;padding:4px 0}\n"
    "svg text{font-size:12px} #frag-history{width:100%;height:auto;max-width:960px}\n"
    ".axis{stroke:#888} .tick{stroke:#888} .frag-line{fill:none;stroke:#36c;stroke-width:2} "
    ".frag-point{fill:#36c}\n"
    ".dom-0{--dom:#1f5fbf} .dom-1{--dom:#7b3fa0} .dom-2{--dom:#00828a} .dom-3{--dom:#9a5a1e} "
    ".dom-4{--dom:#b5285a} .dom-5{--dom:#2f2f2f} .dom-6{--dom:#6b7a00} .dom-7{--dom:#c2410c}\n"
    ".host[data-domain]{border-bottom:4px solid var(--dom)}\n"
    ".domain-mark{display:inline-block;font:10px monospace;color:#fff;background:var(--dom);"
    "border-radius:2px;padding:0 3px;overflow-wrap:anywhere} .host .domain-mark{display:block;"
    "margin-top:2px}\n"
    "#domains .domain-mark{font-size:12px} #domains .domain-hosts{white-space:nowrap}\n";

}  // namespace

std::string html_report(const Fabric& fabric, const LocalityIndex& index, const GpuState& gpus,
                        const std::vector<SlurmJob>& jobs, const std::string& cluster,
                        const HealthFile* health) {
  const HealthMarks marks = health ? health_marks(fabric, *health) : HealthMarks{};
  const FragModel model(WorkloadMix::standard(std::max(1, gpus.max_gpus_per_host())),
                        std::max(1, gpus.max_gpus_per_host()), index.largest_leaf_group());
  const FragmentationReport r = measure_fragmentation(index, gpus, model);
  std::string degraded;
  for (const auto& d : fabric.degraded_links) {
    degraded += fmt::format("<li class=\"degraded-link\">{}[{}] &ndash; {}[{}]: {} (peers {})</li>\n",
                            xml_escape(d.a), d.port_a, xml_escape(d.b), d.port_b, d.rate.to_string(),
                            d.expected_rate.to_string());
  }
  std::string unhealthy, health_key, health_summary;
  NvlinkByHost nvlink;
  if (health) {
    for (const auto& l : health->links) {
      unhealthy +=
          fmt::format("<li class=\"unhealthy-link\">{}: {} since {} ({})</li>\n", xml_escape(link_name(l)),
                      state_name(l.state), l.since_unix, xml_escape(main_evidence(l)));
    }
    for (const auto& n : health->nvlink) {
      nvlink[n.host] = &n;
      unhealthy += fmt::format("<li class=\"unhealthy-nvlink\">{} NVLink: {} since {} ({}, {})</li>\n",
                               xml_escape(n.host), nvlink_state_name(n.state), n.since_unix,
                               xml_escape(n.reason), xml_escape(n.at));
    }
    health_key =
        health->nvlink_report.empty()
            ? "<span class=\"unhealthy\"></span>HCA link or uplinks not healthy (state shown: "
              "sub-healthy, congested, flapping, down)"
            : "<span class=\"unhealthy\"></span>HCA link, NVLink or uplinks not healthy (state shown: "
              "sub-healthy, congested, flapping, down; NVLink failing, degraded)";
    health_summary =
        fmt::format(" {} link(s) not healthy at health sweep {}.", health->links.size(), health->sweeps);
    if (!health->nvlink.empty())
      health_summary += fmt::format(" {} host(s) with NVLink not healthy.", health->nvlink.size());
  }
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{0}: fabric and "
      "GPUs, by fabricfit</title>\n<style>\n{15}</style></head><body>\n"
      "<header><h1>{0}</h1>\n<p id=\"summary\">{1} hosts, {2} leaf groups, {3}, {4} tiers{19}; {5} "
      "degraded link(s).{16} Fabric: {14}</p>\n<p class=\"key\">hosts (name, free/total GPUs{21}):<span "
      "class=\"free\"></span>free<span class=\"busy\"></span>busy<span class=\"stranded\"></span>stranded "
      "(partly busy)<span class=\"absent\"></span>not a GPU node{17}</p></header>\n<main>\n"
      "<section id=\"fabric-section\"><h2>Fabric</h2>\n{6}"
      "<h3>Degraded links</h3>\n<ul id=\"degraded\">{11}</ul>\n{18}</section>\n"
      "<section id=\"frag-section\"><h2>Fragmentation</h2>\n<p id=\"frag\">{7} of {8} GPUs free; "
      "{9:.1f} of them unusable by the workload mix: fragmentation {10:.3f}</p>\n{20}"
      "<h3>Fragmentation over time (from the job records)</h3>\n{13}</section>\n"
      "<section id=\"jobs-section\" class=\"wide\"><h2>Jobs</h2>\n{12}</section>\n</main></body></html>\n",
      xml_escape(cluster.empty() ? std::string("Cluster (unnamed: fabricfit report --cluster NAME)")
                                 : "Cluster " + cluster),
      fabric.hosts.size(), fabric.leaf_groups.size(),
      fabric.rails == 1 ? std::string("1 rail") : fmt::format("{} rails", fabric.rails), fabric.tiers,
      fabric.degraded_links.size(), fabric_html(fabric, index, gpus, marks, nvlink), r.free_gpus,
      r.total_gpus, r.unusable, r.frag, degraded.empty() ? "<li>none</li>\n" : degraded,
      jobs_table(index, jobs), frag_history_svg(frag_history(index, gpus.total, jobs)),
      xml_escape(fabric.origin.empty() ? std::string("origin unknown") : fabric.origin), kStyle,
      health_summary, health_key,
      health ? fmt::format("<h3>Links not healthy</h3>\n<ul id=\"unhealthy\">{}</ul>\n",
                           unhealthy.empty() ? "<li>none</li>\n" : unhealthy)
             : "",
      index.domain_count() > 0 ? fmt::format(", {} NVLink domains", index.domain_count()) : "",
      domains_html(index, gpus, nvlink, health != nullptr && !health->nvlink_report.empty()),
      index.domain_count() > 0 ? ", NVLink domain on its colour" : "");
}

}  // namespace fabricfit::cli
