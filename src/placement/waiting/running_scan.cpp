// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/waiting/running_scan.hpp"

#include <algorithm>

namespace fabricfit {

bool RunningScan::due(unsigned generation, std::int64_t now) const {
  return generation != generation_ || now - last_ >= kIntervalS || now < last_;
}

void RunningScan::start(unsigned generation, std::int64_t now, std::span<const std::uint32_t> held) {
  fresh_ = generation != generation_;
  if (fresh_) tried_.clear();  // every job is new to this engine
  generation_ = generation;
  last_ = now;
  held_.assign(held.begin(), held.end());
  std::sort(held_.begin(), held_.end());
  seen_.clear();
  running_ = 0;
}

bool RunningScan::should_count(std::uint32_t job_id, std::int64_t start_time) {
  ++running_;
  // Those a placement registered are counted with what fabricfit placed.
  if (std::binary_search(held_.begin(), held_.end(), job_id)) return false;
  const Seen key{job_id, start_time};
  seen_.push_back(key);
  return !std::binary_search(tried_.begin(), tried_.end(), key);
}

RunningScan::Summary RunningScan::finish(std::span<const std::uint32_t> held) {
  held_.assign(held.begin(), held.end());
  std::sort(held_.begin(), held_.end());
  std::erase_if(seen_,
                [&](const Seen& s) { return std::binary_search(held_.begin(), held_.end(), s.job_id); });
  std::sort(seen_.begin(), seen_.end());
  tried_.swap(seen_);
  seen_.clear();
  held_.clear();
  return {.fresh = fresh_, .running = running_};
}

void RunningScan::reset() {
  tried_.clear();
  seen_.clear();
  held_.clear();
  generation_ = 0;
  last_ = 0;
}

}  // namespace fabricfit
