// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli/frag_history.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <ctime>
#include <iterator>
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

namespace {

// Tick steps for the time axis, seconds: the smallest that gives at most kMaxTicks ticks.
constexpr std::int64_t kSteps[] = {1,     2,     5,      10,     15,      30,      60,      120,
                                   300,   600,   900,    1800,   3600,    7200,    10800,   21600,
                                   43200, 86400, 172800, 604800, 1209600, 2592000, 7776000, 31536000};
constexpr int kMaxTicks = 6;

std::tm utc(std::int64_t t) {
  const auto secs = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return tm;
}

// A UTC time of day (with seconds only where there are some), and a UTC date.
std::string clock_of(std::int64_t t) {
  const std::tm tm = utc(t);
  return tm.tm_sec != 0 ? fmt::format("{:02}:{:02}:{:02}", tm.tm_hour, tm.tm_min, tm.tm_sec)
                        : fmt::format("{:02}:{:02}", tm.tm_hour, tm.tm_min);
}
std::string date_of(std::int64_t t) {
  const std::tm tm = utc(t);
  return fmt::format("{:04}-{:02}-{:02}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

}  // namespace

std::vector<std::int64_t> time_ticks(std::int64_t t0, std::int64_t t1) {
  const std::int64_t span = std::max<std::int64_t>(1, t1 - t0);
  std::int64_t step = kSteps[std::size(kSteps) - 1];
  for (const std::int64_t s : kSteps) {
    if (span / s < kMaxTicks) {
      step = s;
      break;
    }
  }
  std::vector<std::int64_t> ticks;
  // Whole steps of UTC time (a tick on the hour, at midnight, ...), within [t0, t1].
  for (std::int64_t t = (t0 + step - 1) / step * step; t <= t1; t += step) ticks.push_back(t);
  return ticks;
}

std::string frag_history_svg(const std::vector<FragPoint>& points) {
  if (points.empty())
    return "<p id=\"frag-history-none\">No job records with start times: no fragmentation history yet.</p>\n";
  // Plot area [kL, kW - kR] x [kT, kH - kB]: room on the left for the value ticks and the
  // rotated axis title, below for the clock ticks, their dates and the time axis title, on
  // the right for half the last tick's label (centred on the end of the axis).
  constexpr int kW = 720, kH = 320, kL = 64, kR = 40, kT = 12, kB = 66;
  const std::int64_t t0 = points.front().time, t1 = std::max(points.back().time, t0 + 1);
  const auto x = [&](std::int64_t t) {
    return kL + static_cast<double>(t - t0) * (kW - kL - kR) / static_cast<double>(t1 - t0);
  };
  const auto y = [&](double f) { return kT + (1 - f) * (kH - kB - kT); };
  std::string axes = fmt::format(
      "<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>"
      "<line class=\"axis\" x1=\"{0}\" y1=\"{2}\" x2=\"{3}\" y2=\"{2}\"/>\n",
      kL, kT, kH - kB, kW - kR);
  for (const double f : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    axes += fmt::format(
        "<line class=\"tick\" x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\"/>"
        "<text class=\"y-tick\" x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5:g}</text>\n",
        kL - 4, y(f), kL, kL - 6, y(f) + 4, f);
  }
  // Under each tick its time of day; under the first, and under every one once the span
  // reaches a day, its date too: the axis always says which day it is.
  const auto ticks = time_ticks(t0, t1);
  const bool long_span = t1 - t0 >= 86400;
  for (std::size_t i = 0; i < ticks.size(); ++i) {
    axes += fmt::format(
        "<line class=\"tick\" x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\"/>"
        "<text class=\"x-tick\" data-time=\"{3}\" x=\"{0:.1f}\" y=\"{4}\" "
        "text-anchor=\"middle\">{5}</text>\n",
        x(ticks[i]), kH - kB, kH - kB + 4, ticks[i], kH - kB + 16, clock_of(ticks[i]));
    if (long_span || i == 0)
      axes += fmt::format("<text class=\"x-date\" x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                          x(ticks[i]), kH - kB + 30, date_of(ticks[i]));
  }
  axes += fmt::format(
      "<text class=\"axis-title\" id=\"frag-x-title\" x=\"{0}\" y=\"{1}\" text-anchor=\"middle\">time (UTC; "
      "{2} job starts and ends)</text>\n"
      "<text class=\"axis-title\" id=\"frag-y-title\" x=\"{3}\" y=\"{4}\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 {3} {4})\">fragmentation (unusable / free GPUs)</text>\n",
      (kL + kW - kR) / 2, kH - 6, points.size(), 16, (kT + kH - kB) / 2);
  std::string line, dots;
  for (const auto& p : points) {
    line += fmt::format("{:.1f},{:.1f} ", x(p.time), y(p.frag));
    dots += fmt::format(
        "<circle class=\"frag-point\" data-time=\"{}\" data-free=\"{}\" data-unusable=\"{:.1f}\" "
        "cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\"><title>{}: {} GPUs free, {:.1f} unusable</title></circle>\n",
        p.time, p.free_gpus, p.unusable, x(p.time), y(p.frag), date_of(p.time) + " " + clock_of(p.time),
        p.free_gpus, p.unusable);
  }
  return fmt::format(
      "<svg id=\"frag-history\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\">\n{2}<polyline class=\"frag-line\" points=\"{3}\"/>\n{4}</svg>\n",
      kW, kH, axes, line, dots);
}

}  // namespace fabricfit::cli
