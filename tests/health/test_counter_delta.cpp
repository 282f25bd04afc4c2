// SPDX-License-Identifier: GPL-2.0-or-later
// Counter deltas, each case worked by hand from the counter's width.
#include <gtest/gtest.h>

#include <cstdint>

#include "health/counter_delta.hpp"

using fabricfit::counter_delta;
using fabricfit::CounterDelta;
using fabricfit::DeltaKind;

TEST(CounterDelta, CountsWhatChanged) {
  EXPECT_EQ(counter_delta(5, 12, 16, false), (CounterDelta{DeltaKind::Counted, 7}));
  EXPECT_EQ(counter_delta(7, 7, 16, false), (CounterDelta{DeltaKind::Counted, 0}));
}

TEST(CounterDelta, ADecreaseIsAResetAndCountsNothing) {
  // perfquery -R between two sweeps: 1000 -> 3 is a new baseline, not 65,000 errors.
  EXPECT_EQ(counter_delta(1000, 3, 16, false), (CounterDelta{DeltaKind::Reset, 0}));
  // A 64-bit counter that went down within its lower half was reset, not wrapped.
  EXPECT_EQ(counter_delta(100, 50, 64, true), (CounterDelta{DeltaKind::Reset, 0}));
}

TEST(CounterDelta, ASaturatingCounterAtItsCeilingIsALowerBound) {
  // 16-bit SymbolErrorCounter: 65530 -> 65535 counted 5 at least.
  EXPECT_EQ(counter_delta(65530, 65535, 16, false), (CounterDelta{DeltaKind::Saturated, 5}));
  // Sitting at the ceiling: nothing more can be learnt.
  EXPECT_EQ(counter_delta(65535, 65535, 16, false), (CounterDelta{DeltaKind::Saturated, 0}));
  // 4-bit LocalLinkIntegrityErrors: 14 -> 15.
  EXPECT_EQ(counter_delta(14, 15, 4, false), (CounterDelta{DeltaKind::Saturated, 1}));
}

TEST(CounterDelta, AWrappingCounterPassesItsCeilingOnce) {
  // 64-bit: 2^64 - 10 -> 5 is 9 to the ceiling, 1 to zero, 5 more: 15.
  EXPECT_EQ(counter_delta(UINT64_MAX - 9, 5, 64, true), (CounterDelta{DeltaKind::Wrapped, 15}));
  // 8 bits wrapping: 250 -> 4 is 5 + 1 + 4 = 10.
  EXPECT_EQ(counter_delta(250, 4, 8, true), (CounterDelta{DeltaKind::Wrapped, 10}));
  // The same values of a saturating counter: a reset.
  EXPECT_EQ(counter_delta(250, 4, 8, false), (CounterDelta{DeltaKind::Reset, 0}));
}
