// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli/frag_history.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <map>

#include "placement/fragmentation.hpp"

namespace fabricfit::cli {
namespace {

struct Event {
  std::int64_t time;
  int sign;  // +1 a job starts (takes its GPUs), -1 it ends
  std::size_t job;
};

}  // namespace

std::vector<FragPoint> frag_history(const LocalityIndex& index, const std::vector<int>& total,
                                    const std::vector<SlurmJob>& jobs, std::size_t max_points) {
  std::vector<Allocation> held(jobs.size());  // empty: a host outside the fabric
  std::vector<Event> events;
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const SlurmJob& j = jobs[k];
    if (j.nodes.empty() || j.start_time <= 0 || j.state == "PENDING") continue;
    held[k] = allocation_of(index, j).value_or(Allocation{});
    if (held[k].hosts.empty()) continue;
    events.push_back({j.start_time, +1, k});
    const bool running = j.state == "RUNNING" || j.state == "SUSPENDED" || j.state == "COMPLETING";
    if (!running && j.end_time >= j.start_time) events.push_back({j.end_time, -1, k});
  }
  // Ends before starts at the same second: a node freed and taken again is busy after.
  std::ranges::sort(events, [](const Event& a, const Event& b) {
    return a.time != b.time ? a.time < b.time : a.sign < b.sign;
  });
  int max_gpus = 1;
  for (int t : total) max_gpus = std::max(max_gpus, t);
  const FragModel model(WorkloadMix::standard(), max_gpus, std::max(1, index.largest_leaf_group()));
  GpuState state{total, total};
  std::vector<FragPoint> points;
  for (std::size_t e = 0; e < events.size(); ++e) {
    const Allocation& a = held[events[e].job];
    for (std::size_t i = 0; i < a.hosts.size(); ++i) state.free[a.hosts[i]] -= events[e].sign * a.gpus[i];
    if (e + 1 < events.size() && events[e + 1].time == events[e].time) continue;  // one point per moment
    GpuState clamped = state;
    for (std::size_t h = 0; h < clamped.free.size(); ++h)
      clamped.free[h] = std::clamp(clamped.free[h], 0, std::max(0, clamped.total[h]));
    const FragmentationReport r = measure_fragmentation(index, clamped, model);
    points.push_back({events[e].time, static_cast<int>(r.free_gpus), r.unusable, r.frag});
  }
  if (points.size() > max_points) points.erase(points.begin(), points.end() - static_cast<long>(max_points));
  return points;
}

std::string frag_history_svg(const std::vector<FragPoint>& points) {
  if (points.empty())
    return "<p id=\"frag-history-none\">No job records with start times: no fragmentation history yet.</p>\n";
  constexpr int kW = 640, kH = 160, kL = 40, kB = 20;
  const std::int64_t t0 = points.front().time, t1 = std::max(points.back().time, t0 + 1);
  const auto x = [&](std::int64_t t) {
    return kL + static_cast<double>(t - t0) * (kW - kL - 10) / (t1 - t0);
  };
  const auto y = [&](double f) { return 10 + (1 - f) * (kH - kB - 10); };
  std::string line, dots;
  for (const auto& p : points) {
    line += fmt::format("{:.1f},{:.1f} ", x(p.time), y(p.frag));
    dots += fmt::format(
        "<circle class=\"frag-point\" data-time=\"{}\" data-free=\"{}\" data-unusable=\"{:.1f}\" "
        "cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\"><title>{} GPUs free, {:.1f} unusable</title></circle>\n",
        p.time, p.free_gpus, p.unusable, x(p.time), y(p.frag), p.free_gpus, p.unusable);
  }
  return fmt::format(
      "<svg id=\"frag-history\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\">\n<line class=\"axis\" x1=\"{2}\" y1=\"10\" x2=\"{2}\" y2=\"{3}\"/>"
      "<line class=\"axis\" x1=\"{2}\" y1=\"{3}\" x2=\"{0}\" y2=\"{3}\"/>"
      "<text x=\"2\" y=\"14\">1.0</text><text x=\"2\" y=\"{3}\">0</text>"
      "<text x=\"{2}\" y=\"{1}\">{4} job starts and ends</text>\n"
      "<polyline class=\"frag-line\" points=\"{5}\"/>\n{6}</svg>\n",
      kW, kH, kL, kH - kB, points.size(), line, dots);
}

}  // namespace fabricfit::cli
