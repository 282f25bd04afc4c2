// SPDX-License-Identifier: GPL-2.0-or-later
// A job's run time predicted from its time limit and how its user's last jobs used
// theirs. Time limits are poor predictions (users round them up and pad them), and the
// locality wait prices both what a job gains (its own run time) and how long it would
// wait (when running jobs end) on them. Following Tsafrir, Etsion and Feitelson
// ("Backfilling using system-generated predictions rather than user runtime
// estimates", IEEE TPDS 18(6), 2007), a job's run time is predicted from the user's last
// two finished jobs, here as their run times' share of their limits, so that one
// user's short and long jobs inform each other; a job that runs past its prediction is
// expected to run to its limit, as their correction does. docs/placement.md.
#pragma once

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

namespace fabricfit {

// A saved history that does not read: "SOURCE:LINE: reason".
class HistoryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RunTimePredictor {
 public:
  // A finished job: `run_s` of its `limit_s`, ended at `end_s`. Only the user's two
  // latest jobs by end time (then job id) are kept; a job seen again (the same id) is ignored, so the
  // controller can feed every finished job it still holds at each look. Whether it
  // changed what is kept.
  bool observe(std::uint32_t user, std::uint64_t job, double limit_s, double run_s, double end_s);

  // The predicted run time of a job with this limit: the limit x the mean share of their
  // limits the user's last two jobs ran (one when only one is known), never above the
  // limit and never under a second; the limit itself for a user with no finished job, or
  // no limit.
  [[nodiscard]] double predict_run(std::uint32_t user, double limit_s) const;

  // When a job that started at `start_s` is expected to end: start + its predicted run,
  // or, once it has run past that by `now_s`, start + its limit.
  [[nodiscard]] double predict_end(std::uint32_t user, double limit_s, double start_s, double now_s) const;

  [[nodiscard]] std::size_t users() const { return history_.size(); }

  // What it has learnt, as text a restarted controller reads back (StateSaveLocation):
  // a header line, then one line per finished job kept, "USER JOB END SHARE", by user.
  [[nodiscard]] std::string to_text() const;

  // Adds the jobs of a saved history (to_text) to what it has learnt, as observe would:
  // the latest two per user are kept, a job already known is ignored. All or nothing:
  // text that does not read throws HistoryError naming `source`, the line and the
  // reason, and leaves the predictor as it was. How many finished jobs it read.
  std::size_t merge_text(std::string_view text, std::string_view source);

  static constexpr std::string_view kTextHeader = "# fabricfit run-time history 1: user job end share";

  static constexpr double kMinRunS = 1;

 private:
  struct Finished {
    std::uint64_t job = 0;
    double end_s = 0;
    double share = 0;  // run / limit, in [0, 1]
  };
  struct History {
    std::array<Finished, 2> last{};  // [0] the latest
    int count = 0;
  };
  bool remember(std::uint32_t user, const Finished& f);
  std::unordered_map<std::uint32_t, History> history_;
};

}  // namespace fabricfit
