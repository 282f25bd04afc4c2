// SPDX-License-Identifier: GPL-2.0-or-later
// The run-time predictor (placement/runtime/runtime_predictor.hpp) by hand: the last two jobs'
// shares of their limits, per user, the correction past a prediction, and the replay's
// typed time limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "message_of.hpp"
#include "placement/runtime/runtime_predictor.hpp"
#include "placement/waiting/locality_wait.hpp"

using namespace fabricfit;

namespace {

TEST(RunTimePredictor, NoHistoryIsTheLimit) {
  const RunTimePredictor p;
  EXPECT_DOUBLE_EQ(p.predict_run(7, 3600), 3600);
  EXPECT_DOUBLE_EQ(p.predict_end(7, 3600, 100, 200), 3700);
}

TEST(RunTimePredictor, MeanShareOfTheLastTwoJobs) {
  RunTimePredictor p;
  p.observe(7, 1, 3600, 900, 1000);  // a quarter of its limit
  EXPECT_DOUBLE_EQ(p.predict_run(7, 7200), 1800);
  p.observe(7, 2, 1000, 750, 2000);  // three quarters: mean one half
  EXPECT_DOUBLE_EQ(p.predict_run(7, 7200), 3600);
  p.observe(7, 3, 100, 100, 3000);  // the first leaves: (0.75 + 1) / 2
  EXPECT_DOUBLE_EQ(p.predict_run(7, 7200), 6300);
  EXPECT_DOUBLE_EQ(p.predict_run(8, 7200), 7200) << "another user's jobs say nothing of user 8's";
}

TEST(RunTimePredictor, AJobSeenAgainOrOlderThanBothKeptIsIgnored) {
  RunTimePredictor p;
  p.observe(1, 10, 1000, 200, 500);
  p.observe(1, 11, 1000, 600, 900);
  p.observe(1, 11, 1000, 600, 900);  // the controller feeds what it still holds, again
  EXPECT_DOUBLE_EQ(p.predict_run(1, 1000), 400);
  p.observe(1, 9, 1000, 1000, 100);  // ended before both kept
  EXPECT_DOUBLE_EQ(p.predict_run(1, 1000), 400);
  p.observe(1, 12, 1000, 1000, 700);  // between the two: the older (job 10) goes
  EXPECT_DOUBLE_EQ(p.predict_run(1, 1000), 800);
}

TEST(RunTimePredictor, TiesInEndTimeAreOrderedByJobId) {
  // Three jobs ending in the same second (an array): jobs 21 and 22 are kept, and job 20,
  // left out, stays out when the controller feeds it again.
  RunTimePredictor p;
  p.observe(1, 21, 1000, 100, 500);
  p.observe(1, 20, 1000, 900, 500);
  p.observe(1, 22, 1000, 300, 500);
  EXPECT_DOUBLE_EQ(p.predict_run(1, 1000), 200);
  p.observe(1, 20, 1000, 900, 500);
  EXPECT_DOUBLE_EQ(p.predict_run(1, 1000), 200);
}

TEST(RunTimePredictor, NeverUnderASecondNorOverTheLimit) {
  RunTimePredictor p;
  p.observe(1, 1, 3600, 0, 10);  // exited at once
  p.observe(1, 2, 3600, 0, 11);
  EXPECT_DOUBLE_EQ(p.predict_run(1, 7200), 1);
  EXPECT_DOUBLE_EQ(p.predict_run(1, 0.5), 0.5);
}

TEST(RunTimePredictor, ARunPastItsLimitCountsAsTheWholeLimit) {
  RunTimePredictor p;
  p.observe(1, 1, 600, 900, 1000);  // OverTimeLimit let it run on
  EXPECT_DOUBLE_EQ(p.predict_run(1, 600), 600);
  p.observe(2, 2, 0, 100, 1000);  // no limit: nothing learnt
  EXPECT_DOUBLE_EQ(p.predict_run(2, 600), 600);
  EXPECT_EQ(p.users(), 1u);
}

TEST(RunTimePredictor, PastItsPredictionAJobIsExpectedAtItsLimit) {
  RunTimePredictor p;
  p.observe(1, 1, 1000, 250, 50);
  p.observe(1, 2, 1000, 250, 60);
  EXPECT_DOUBLE_EQ(p.predict_end(1, 4000, 100, 500), 1100);   // 100 + 4000 x 0.25
  EXPECT_DOUBLE_EQ(p.predict_end(1, 4000, 100, 1100), 4100);  // at the prediction: the limit
}

// What a restarted controller reads back predicts as what was learnt.
TEST(RunTimePredictor, ItsTextReadsBackToTheSamePredictions) {
  RunTimePredictor p;
  p.observe(7, 1, 3600, 900, 1000);
  p.observe(7, 2, 1000, 750, 2000.5);
  p.observe(7, 3, 300, 100, 500);                                    // older than both kept: not saved
  p.observe(4000000000U, 18446744073709551615ULL, 3000, 1000, 1e9);  // largest uid and id
  const std::string text = p.to_text();
  EXPECT_EQ(text.substr(0, text.find('\n')), RunTimePredictor::kTextHeader);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4) << text;

  RunTimePredictor back;
  EXPECT_EQ(back.merge_text(text, "saved"), 3U);
  EXPECT_EQ(back.to_text(), text);
  EXPECT_DOUBLE_EQ(back.predict_run(7, 7200), 3600);
  EXPECT_DOUBLE_EQ(back.predict_run(4000000000U, 3000), 1000);
  EXPECT_DOUBLE_EQ(back.predict_run(8, 7200), 7200);
  // Read beside what was learnt since: the latest two per user, a known job once.
  RunTimePredictor since;
  since.observe(7, 4, 1000, 1000, 3000);
  since.merge_text(text, "saved");
  since.merge_text(text, "saved");
  EXPECT_DOUBLE_EQ(since.predict_run(7, 1000), 875);  // (1 + 0.75) / 2: job 4 and job 2
}

// A saved history that does not read names the file, the line and why, and changes
// nothing (all or nothing).
TEST(RunTimePredictor, ATextThatDoesNotReadChangesNothing) {
  RunTimePredictor p;
  p.observe(7, 1, 1000, 250, 1000);
  const std::string header(RunTimePredictor::kTextHeader);
  const auto error_of = [&](const std::string& text) {
    return fabricfit::testing::message_of<HistoryError>(
        [&] { p.merge_text(text, "/state/fabricfit.runtime-history"); }, "no error");
  };
  EXPECT_EQ(error_of(""), "/state/fabricfit.runtime-history: empty, not a run-time history");
  EXPECT_EQ(error_of("7 1 1000 0.5\n"),
            "/state/fabricfit.runtime-history:1: not a run-time history (expected \"" + header + "\")");
  EXPECT_EQ(error_of(header + "\n7 2 2000 0.5\n\n# a note\n7 3 3000 1.5\n"),
            "/state/fabricfit.runtime-history:5: share '1.5' is not a number from 0 to 1");
  EXPECT_EQ(error_of(header + "\n7 2 2000\n"),
            "/state/fabricfit.runtime-history:2: 3 words, not 4 (user job end share)");
  EXPECT_EQ(error_of(header + "\n7 2 2000 0.5 x\n"),
            "/state/fabricfit.runtime-history:2: more than 4 words (user job end share)");
  EXPECT_EQ(error_of(header + "\n-7 2 2000 0.5\n"),
            "/state/fabricfit.runtime-history:2: user '-7' is not a uid");
  EXPECT_EQ(error_of(header + "\n7 2x 2000 0.5\n"),
            "/state/fabricfit.runtime-history:2: job '2x' is not a job id");
  EXPECT_EQ(error_of(header + "\n7 2 2000 0.5\n7 3 30"),
            "/state/fabricfit.runtime-history:3: the last line is cut short (no newline at its end)");
  EXPECT_EQ(error_of(header + "\n7 2 inf 0.5\n"),
            "/state/fabricfit.runtime-history:2: end 'inf' is not a time in seconds");
  // The good line before the bad one was not taken either.
  EXPECT_DOUBLE_EQ(p.predict_run(7, 1000), 250);
  EXPECT_EQ(p.users(), 1U);
}

TEST(ReplayTimeLimit, ExactOrTypedValues) {
  LocalityWaitSettings s{.overestimate = 1.5};
  EXPECT_DOUBLE_EQ(replay_time_limit(1000, s), 1500);
  s.round_limits = true;
  EXPECT_DOUBLE_EQ(replay_time_limit(100, s), 900);               // 150 s: 15 min
  EXPECT_DOUBLE_EQ(replay_time_limit(2000, s), 3600);             // 50 min: 1 h
  EXPECT_DOUBLE_EQ(replay_time_limit(3 * 3600, s), 6 * 3600);     // 4.5 h: 6 h
  EXPECT_DOUBLE_EQ(replay_time_limit(8 * 86400, s), 14 * 86400);  // 12 days: two weeks
}

}  // namespace
