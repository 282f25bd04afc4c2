// SPDX-License-Identifier: GPL-2.0-or-later
#include "replay/replay_report.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <filesystem>
#include <functional>

namespace fabricfit {
namespace {

struct Metric {
  const char* key;
  const char* title;
  const char* unit;
  std::function<double(const ReplayResult&)> value;
};

const std::vector<Metric>& metrics() {
  static const std::vector<Metric> m = {
      {"cross_spine_bytes", "Cross-spine traffic", "TB",
       [](const ReplayResult& r) { return r.cross_spine_gb / 1000; }},
      {"split_share", "Jobs split over leaf groups", "%",
       [](const ReplayResult& r) { return r.split_share * 100; }},
      {"frag_mean", "Fragmentation (mean)", "%", [](const ReplayResult& r) { return r.frag_mean * 100; }},
      {"wait_mean_s", "Queue wait (mean)", "h", [](const ReplayResult& r) { return r.wait_mean_s / 3600; }},
      {"makespan_s", "Makespan", "days", [](const ReplayResult& r) { return r.makespan_s / 86400; }},
  };
  return m;
}

const ReplayResult* find(const ReplayReport& r, const std::string& policy) {
  for (const auto& x : r.results) {
    if (x.policy == policy) return &x;
  }
  return nullptr;
}

std::string ratio(double a, double b) {
  if (b == 0) return a == 0 ? "1.00x" : "n/a";
  return fmt::format("{:.2f}x", a / b);
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string fmt_value(double v) {
  if (v == 0) return "0";
  if (v >= 100) return fmt::format("{:.0f}", v);
  if (v >= 10) return fmt::format("{:.1f}", v);
  return fmt::format("{:.2f}", v);
}

}  // namespace

std::string report_text(const ReplayReport& r) {
  std::string out;
  out += fmt::format("trace:    {} ({}, {} jobs; {})\n", r.trace, r.format, r.trace_jobs, r.mapping);
  out += fmt::format("fabric:   {}\n", r.fabric);
  out += fmt::format("load:     offered {:.2f} of {} GPUs{}\n", r.offered_load, r.cluster_gpus,
                     r.compression != 1 ? fmt::format(" (arrivals compressed x{:.3g})", r.compression)
                                        : std::string(" (arrivals as recorded)"));
  out += fmt::format("patterns: {}\n", r.rule);
  out += fmt::format("rule:     --pattern-rule {}\n", r.rule_spec);
  out += fmt::format("mix:      {} (fragmentation is measured against it)\n", r.mix);
  out += fmt::format(
      "wait:     {}\n\n",
      r.locality_wait_s > 0
          ? fmt::format("fabricfit and tree-switches hold a multi-host job that one leaf group could "
                        "hold for up to {:g} s before splitting it",
                        r.locality_wait_s)
          : std::string("no locality wait: every policy starts a job as soon as it fits"));
  out += fmt::format("{:<14} {:>6} {:>19} {:>12} {:>10} {:>12} {:>11} {:>11} {:>11} {:>6}\n", "policy",
                     "jobs", "cross_spine_bytes", "split_share", "frag_mean", "wait_mean_s", "wait_p95_s",
                     "wait_multi", "makespan_s", "util");
  for (const auto& x : r.results) {
    out += fmt::format(
        "{:<14} {:>6} {:>16.4g} GB {:>12.3f} {:>10.3f} {:>12.0f} {:>11.0f} {:>11.0f} {:>11.0f} {:>6.3f}\n",
        x.policy, x.jobs, x.cross_spine_gb, x.split_share, x.frag_mean, x.wait_mean_s, x.wait_p95_s,
        x.wait_mean_multi_s, x.makespan_s, x.gpu_utilisation);
  }
  out += fmt::format("\n(split_share: of {} multi-host jobs that fit one leaf group; decisions: ",
                     r.results.empty() ? 0 : r.results.front().one_group_jobs);
  for (std::size_t i = 0; i < r.results.size(); ++i) {
    out += fmt::format("{}{} {:.1f} us", i ? ", " : "", r.results[i].policy, r.results[i].decision_us_mean);
  }
  out += " mean)\n";
  if (const ReplayResult* tree = find(r, "tree")) {
    out += "\nrelative to tree      cross_spine  split_share  frag_mean  wait_mean  wait_multi  makespan\n";
    for (const auto& x : r.results) {
      if (x.policy == "tree") continue;
      out += fmt::format(
          "{:<20} {:>12} {:>12} {:>10} {:>10} {:>11} {:>9}\n", x.policy,
          ratio(x.cross_spine_gb, tree->cross_spine_gb), ratio(x.split_share, tree->split_share),
          ratio(x.frag_mean, tree->frag_mean), ratio(x.wait_mean_s, tree->wait_mean_s),
          ratio(x.wait_mean_multi_s, tree->wait_mean_multi_s), ratio(x.makespan_s, tree->makespan_s));
    }
    out += fmt::format("{:<20} {:>12} {:>12} {:>10} {:>10}\n", "target (fabricfit)", "<= 0.60x", "<= 0.50x",
                       "<= 0.60x", "<= 1.02x");
  }
  return out;
}

nlohmann::json report_json(const ReplayReport& r) {
  nlohmann::json j;
  j["trace"] = r.trace;
  j["format"] = r.format;
  j["mapping"] = r.mapping;
  j["trace_jobs"] = r.trace_jobs;
  j["fabric"] = r.fabric;
  j["cluster_gpus"] = r.cluster_gpus;
  j["offered_load"] = r.offered_load;
  j["arrival_compression"] = r.compression;
  j["pattern_rule"] = r.rule_spec;
  j["pattern_rule_text"] = r.rule;
  j["workload_mix"] = r.mix;
  j["locality_wait_s"] = r.locality_wait_s;
  j["weights"] = r.weights;
  j["results"] = nlohmann::json::array();
  for (const auto& x : r.results) {
    j["results"].push_back({{"policy", x.policy},
                            {"jobs", x.jobs},
                            {"unplaceable", x.unplaceable},
                            {"cross_spine_bytes", x.cross_spine_gb * 1e9},
                            {"cross_core_bytes", x.cross_core_gb * 1e9},
                            {"split_share", x.split_share},
                            {"split_jobs", x.split_jobs},
                            {"one_group_jobs", x.one_group_jobs},
                            {"frag_mean", x.frag_mean},
                            {"wait_mean_s", x.wait_mean_s},
                            {"wait_p95_s", x.wait_p95_s},
                            {"wait_mean_multi_s", x.wait_mean_multi_s},
                            {"makespan_s", x.makespan_s},
                            {"gpu_utilisation", x.gpu_utilisation},
                            {"decisions", x.decisions},
                            {"decision_us_mean", x.decision_us_mean}});
  }
  return j;
}

std::string report_svg(const ReplayReport& r) {
  static const char* kColours[] = {"#1b7837", "#2166ac", "#b2182b", "#762a83", "#e08214", "#4d4d4d"};
  const auto& ms = metrics();
  const int panel_w = 210, panel_h = 260, top = 92, left = 20, bar_area = 170;
  const int width = left * 2 + panel_w * static_cast<int>(ms.size());
  const int height = top + panel_h + 70;
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"Helvetica, Arial, sans-serif\">\n<rect width=\"100%\" height=\"100%\" "
      "fill=\"white\"/>\n",
      width, height);
  s += fmt::format(
      "<text x=\"{}\" y=\"30\" font-size=\"20\" font-weight=\"bold\">Job placement on {}: {}</text>\n", left,
      xml_escape(r.fabric), xml_escape(r.format));
  s += fmt::format(
      "<text x=\"{}\" y=\"52\" font-size=\"12\" fill=\"#444\">{} jobs from {}, offered load {:.2f}{}. "
      "Lower is better everywhere.</text>\n",
      left, r.trace_jobs, xml_escape(std::filesystem::path(r.trace).filename().string()), r.offered_load,
      r.compression != 1 ? fmt::format(" (arrivals x{:.3g})", r.compression) : std::string());
  s += fmt::format("<text x=\"{}\" y=\"70\" font-size=\"12\" fill=\"#444\">Patterns: {}{}</text>\n", left,
                   xml_escape(r.rule),
                   r.locality_wait_s > 0 ? fmt::format(". Locality wait {:g} h", r.locality_wait_s / 3600)
                                         : std::string());
  const int n = static_cast<int>(r.results.size());
  for (std::size_t m = 0; m < ms.size(); ++m) {
    const int x0 = left + static_cast<int>(m) * panel_w;
    double top_value = 0;
    for (const auto& x : r.results) top_value = std::max(top_value, ms[m].value(x));
    if (top_value <= 0) top_value = 1;
    s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"14\" font-weight=\"bold\">{}</text>\n", x0 + 10,
                     top + 4, ms[m].title);
    s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#666\">{} ({})</text>\n", x0 + 10,
                     top + 20, ms[m].key, ms[m].unit);
    const int base = top + 40 + bar_area;
    s += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#999\"/>\n", x0 + 10, base,
                     x0 + panel_w - 20, base);
    const int slot = (panel_w - 40) / std::max(1, n);
    for (int i = 0; i < n; ++i) {
      const double v = ms[m].value(r.results[i]);
      const int h = static_cast<int>(bar_area * v / top_value);
      const int bx = x0 + 15 + i * slot;
      s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n", bx, base - h,
                       slot - 10, h, kColours[i % 6]);
      s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n",
                       bx + (slot - 10) / 2, base - h - 4, fmt_value(v));
    }
  }
  // Legend.
  const int ly = top + panel_h + 30;
  for (int i = 0; i < n; ++i) {
    const int lx = left + 10 + i * 150;
    s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" fill=\"{}\"/>\n", lx, ly - 12,
                     kColours[i % 6]);
    s += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"13\">{}</text>\n", lx + 20, ly,
                     xml_escape(r.results[i].policy));
  }
  s += "</svg>\n";
  return s;
}

}  // namespace fabricfit
