// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/runtime_predictor.hpp"

#include <algorithm>
#include <cmath>

namespace fabricfit {

void RunTimePredictor::observe(std::uint32_t user, std::uint64_t job, double limit_s, double run_s,
                               double end_s) {
  if (!(limit_s > 0) || !std::isfinite(limit_s) || !(run_s >= 0) || !std::isfinite(end_s)) return;
  History& h = history_[user];
  for (int k = 0; k < h.count; ++k) {
    if (h.last[k].job == job) return;
  }
  const Finished f{.job = job, .end_s = end_s, .share = std::min(run_s / limit_s, 1.0)};
  // Newest first by end time, then job id: a strict order, so that a job left out once
  // (Slurm's end times tie at its 1 s resolution) is left out at every look.
  const auto newer = [](const Finished& a, const Finished& b) {
    return a.end_s != b.end_s ? a.end_s > b.end_s : a.job > b.job;
  };
  if (h.count == 0 || newer(f, h.last[0])) {
    h.last[1] = h.last[0];
    h.last[0] = f;
  } else if (h.count == 1 || newer(f, h.last[1])) {
    h.last[1] = f;  // between the two kept: the older one goes
  } else {
    return;  // older than both kept
  }
  h.count = std::min(h.count + 1, 2);
}

double RunTimePredictor::predict_run(std::uint32_t user, double limit_s) const {
  if (!(limit_s > 0) || !std::isfinite(limit_s)) return limit_s;
  const auto it = history_.find(user);
  if (it == history_.end() || it->second.count == 0) return limit_s;
  const History& h = it->second;
  double share = 0;
  for (int k = 0; k < h.count; ++k) share += h.last[k].share;
  // At least a second: a user whose last jobs exited at once still has a run time to weigh.
  return std::min(limit_s, std::max(limit_s * std::min(share / h.count, 1.0), kMinRunS));
}

double RunTimePredictor::predict_end(std::uint32_t user, double limit_s, double start_s, double now_s) const {
  const double end = start_s + predict_run(user, limit_s);
  return end > now_s ? end : start_s + limit_s;
}

}  // namespace fabricfit
