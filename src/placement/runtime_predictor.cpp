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
  if (h.count == 0 || end_s >= h.last[0].end_s) {
    h.last[1] = h.last[0];
    h.last[0] = f;
  } else if (h.count == 1 || end_s >= h.last[1].end_s) {
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
  return limit_s * std::min(share / h.count, 1.0);
}

double RunTimePredictor::predict_end(std::uint32_t user, double limit_s, double start_s, double now_s) const {
  const double end = start_s + predict_run(user, limit_s);
  return end > now_s ? end : start_s + limit_s;
}

}  // namespace fabricfit
