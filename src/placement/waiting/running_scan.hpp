// SPDX-License-Identifier: GPL-2.0-or-later
// Which of the controller's running multi-host jobs the run-time model has yet to count.
// An engine counts the split jobs fabricfit placed as their allocations are made; after a
// restart, a reconfigure or a new snapshot the engine is new and counts nothing, and jobs
// Slurm placed itself never had a placement of fabricfit's. So the controller scans its
// job list: at once for a new engine, then every kIntervalS seconds. A job the engine does
// not hold after a scan (its traffic stays in one leaf group, or it could not be priced)
// is not tried again while it runs from the same start (a requeued job may come back on
// other nodes); one the engine forgot (it ended, or was suspended) is counted again if it
// runs. Not locked: the controller's record thread alone uses it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace fabricfit {

class RunningScan {
 public:
  static constexpr std::int64_t kIntervalS = 10;

  // A scan is due for engine `generation` (0: none): a new engine, kIntervalS seconds
  // since the last scan, or the clock went back.
  [[nodiscard]] bool due(unsigned generation, std::int64_t now) const;
  // The node table is being remapped: no scan until the next interval.
  void postpone(std::int64_t now) { last_ = now; }

  // A scan of the job list for engine `generation`, whose registered jobs are `held`.
  void start(unsigned generation, std::int64_t now, std::span<const std::uint32_t> held);
  // A running job on several nodes, from `start_time`: true when it should be counted now
  // (the engine does not hold it and the last scan did not try it).
  [[nodiscard]] bool should_count(std::uint32_t job_id, std::int64_t start_time);
  struct Summary {
    bool fresh = false;  // the first scan for this engine
    int running = 0;     // running multi-host jobs seen
  };
  // Ends the scan: of the jobs seen and not held, those the engine still does not hold
  // (`held` now) are kept as tried.
  Summary finish(std::span<const std::uint32_t> held);
  void reset();

 private:
  struct Seen {
    std::uint32_t job_id;
    std::int64_t start;
    friend auto operator<=>(const Seen&, const Seen&) = default;
  };
  std::vector<Seen> tried_;          // sorted
  std::vector<Seen> seen_;           // this scan's
  std::vector<std::uint32_t> held_;  // sorted, this scan's
  unsigned generation_ = 0;
  std::int64_t last_ = 0;
  bool fresh_ = false;
  int running_ = 0;
};

}  // namespace fabricfit
