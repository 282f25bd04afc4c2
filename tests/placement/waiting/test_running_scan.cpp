// SPDX-License-Identifier: GPL-2.0-or-later
// The controller's scans for running multi-host jobs an engine has not counted
// (placement/waiting/running_scan.hpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "placement/waiting/running_scan.hpp"

using fabricfit::RunningScan;

TEST(RunningScan, DueForANewEngineEveryIntervalAndWhenTheClockGoesBack) {
  RunningScan scan;
  EXPECT_FALSE(scan.due(0, 0)) << "no engine, nothing scanned: not due";
  EXPECT_TRUE(scan.due(1, 0)) << "a new engine";
  scan.start(1, 1000, {});
  (void)scan.finish({});
  EXPECT_FALSE(scan.due(1, 1000 + RunningScan::kIntervalS - 1));
  EXPECT_TRUE(scan.due(1, 1000 + RunningScan::kIntervalS));
  EXPECT_TRUE(scan.due(1, 999)) << "the clock went back";
  EXPECT_TRUE(scan.due(2, 1001)) << "a new snapshot, restart or reconfigure";
  scan.postpone(1005);
  EXPECT_FALSE(scan.due(1, 1010)) << "postponed: the interval counts from then";
}

TEST(RunningScan, HeldJobsAreNotCountedAgainAndTriedJobsNotRetried) {
  RunningScan scan;
  const std::vector<std::uint32_t> held{7};
  scan.start(1, 1000, held);
  EXPECT_FALSE(scan.should_count(7, 900)) << "the engine holds it (fabricfit placed it)";
  EXPECT_TRUE(scan.should_count(8, 950));
  EXPECT_TRUE(scan.should_count(9, 960));
  // Job 9 was counted (the engine holds it now), job 8 was not (one leaf group).
  const std::vector<std::uint32_t> after{7, 9};
  auto s = scan.finish(after);
  EXPECT_TRUE(s.fresh);
  EXPECT_EQ(s.running, 3);

  scan.start(1, 1010, after);
  EXPECT_FALSE(scan.should_count(8, 950)) << "tried by the last scan, same start";
  s = scan.finish(after);
  EXPECT_FALSE(s.fresh);
  EXPECT_EQ(s.running, 1);
  scan.start(1, 1020, after);
  EXPECT_TRUE(scan.should_count(8, 1015)) << "requeued: it started again";
  (void)scan.finish(after);

  // A job the engine forgot (suspended, then resumed) is counted again.
  scan.start(1, 1030, {});
  EXPECT_TRUE(scan.should_count(9, 960));
  (void)scan.finish({});
}

TEST(RunningScan, ANewEngineTriesEveryJobAgain) {
  RunningScan scan;
  scan.start(1, 1000, {});
  EXPECT_TRUE(scan.should_count(8, 950));
  (void)scan.finish({});
  scan.start(1, 1010, {});
  EXPECT_FALSE(scan.should_count(8, 950));
  (void)scan.finish({});
  scan.start(2, 1011, {});
  EXPECT_TRUE(scan.should_count(8, 950)) << "a new engine counts nothing yet";
  EXPECT_TRUE(scan.finish({}).fresh);
}
