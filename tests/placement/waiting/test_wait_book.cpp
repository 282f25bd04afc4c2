// SPDX-License-Identifier: GPL-2.0-or-later
// The controller's book of locality waits (placement/waiting/wait_book.hpp): each rule the
// topology plugin applies at an evaluation, without slurmctld.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "placement/waiting/wait_book.hpp"

using namespace fabricfit;

namespace {

constexpr int kTable = 32;  // node slots

// Slurm's job list as the book sees it: id -> pending and priority.
struct Queue {
  std::map<std::uint32_t, QueuedJob> jobs;
  [[nodiscard]] WaitBook::Lookup lookup() const {
    return [this](std::uint32_t id) -> std::optional<QueuedJob> {
      const auto it = jobs.find(id);
      if (it == jobs.end()) return std::nullopt;
      return it->second;
    };
  }
};

// Job 10 (priority 100) waits until 2000 for slots 4..7; now is 1000.
struct Booked {
  WaitBook book;
  Queue queue;
  Booked() {
    queue.jobs[10] = {.pending = true, .priority = 100};
    book.keep(10, 2000, 1500, {7, 5, 4, 6}, kTable, "Waiting for one leaf group (gpu[005-008])");
  }
};

EvaluatedJob job(std::uint32_t id, std::uint32_t priority, double limit_s = 0) {
  EvaluatedJob e;
  e.job_id = id;
  e.priority = priority;
  e.time_limit_s = limit_s;
  return e;
}

}  // namespace

TEST(WaitBook, AJobAfterTheWaitingOneLosesItsNodes) {
  Booked b;
  b.queue.jobs[11] = {.pending = true, .priority = 50};
  const auto begin = b.book.begin(job(11, 50), 1000, kTable, kTable, b.queue.lookup());
  EXPECT_EQ(begin.taken, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_TRUE(begin.may_run);
  EXPECT_FALSE(begin.decide_afresh);
  ASSERT_EQ(begin.remind.size(), 1u);
  EXPECT_EQ(begin.remind[0]->job_id, 10u);
  EXPECT_EQ(begin.remind[0]->reason, "Waiting for one leaf group (gpu[005-008])");
}

TEST(WaitBook, RankingIsPriorityThenJobId) {
  const QueuedJob waiting{.pending = true, .priority = 100};
  EXPECT_TRUE(WaitBook::ranks_after(99, 1, waiting, 10));
  EXPECT_FALSE(WaitBook::ranks_after(101, 99, waiting, 10));
  EXPECT_TRUE(WaitBook::ranks_after(100, 11, waiting, 10)) << "equal priority: the later id goes after";
  EXPECT_FALSE(WaitBook::ranks_after(100, 9, waiting, 10));

  Booked b;
  const auto ahead = b.book.begin(job(12, 200), 1000, kTable, kTable, b.queue.lookup());
  EXPECT_TRUE(ahead.taken.empty()) << "a job of higher priority keeps every node";
  const auto earlier = b.book.begin(job(9, 100), 1000, kTable, kTable, b.queue.lookup());
  EXPECT_TRUE(earlier.taken.empty()) << "an earlier job of equal priority goes first";
}

TEST(WaitBook, AJobThatEndsBeforeTheWaitMayBackfill) {
  Booked b;
  // 1000 + 1000 s = 2000: it is done when the wait ends at the latest.
  EXPECT_TRUE(b.book.begin(job(11, 50, 1000), 1000, kTable, kTable, b.queue.lookup()).taken.empty());
  EXPECT_EQ(b.book.begin(job(11, 50, 1001), 1000, kTable, kTable, b.queue.lookup()).taken.size(), 4u);
  EXPECT_EQ(b.book.begin(job(11, 50, 0), 1000, kTable, kTable, b.queue.lookup()).taken.size(), 4u)
      << "a job without a time limit never ends before the wait";
}

TEST(WaitBook, ASubmissionTestIsNotRefusedForAWaitThatWillEnd) {
  Booked b;
  auto test = job(11, 50);
  test.test_only = true;
  auto begin = b.book.begin(test, 1000, kTable, kTable, b.queue.lookup());
  EXPECT_TRUE(begin.taken.empty());
  EXPECT_EQ(begin.remind.size(), 1u) << "the waiting job's reason is still shown";
  test.backfill_test = true;
  begin = b.book.begin(test, 1000, kTable, kTable, b.queue.lookup());
  EXPECT_EQ(begin.taken.size(), 4u) << "backfill's trials plan around the reservation";
}

TEST(WaitBook, ARequiredReservedNodeRefusesTheJob) {
  Booked b;
  const std::vector<int> required{1, 6};
  auto asks = job(11, 50);
  asks.required = required;
  EXPECT_FALSE(b.book.begin(asks, 1000, kTable, kTable, b.queue.lookup()).may_run);
  const std::vector<int> elsewhere{1, 8};
  asks.required = elsewhere;
  EXPECT_TRUE(b.book.begin(asks, 1000, kTable, kTable, b.queue.lookup()).may_run);
}

TEST(WaitBook, TheWaitingJobIsDecidedAfreshUnlessItAskedForSwitches) {
  Booked b;
  auto self = job(10, 100);
  const auto begin = b.book.begin(self, 1000, kTable, kTable, b.queue.lookup());
  EXPECT_TRUE(begin.decide_afresh);
  EXPECT_TRUE(begin.taken.empty()) << "its own reservation is its own";
  EXPECT_TRUE(begin.remind.empty());
  self.switches = true;
  EXPECT_FALSE(b.book.begin(self, 1000, kTable, kTable, b.queue.lookup()).decide_afresh);
}

TEST(WaitBook, WaitsEndWhenTheirJobLeavesStartsOrTimesOut) {
  {
    Booked b;
    b.queue.jobs.erase(10);
    EXPECT_FALSE(b.book.prune(1000, kTable, b.queue.lookup()));
    EXPECT_EQ(b.book.size(), 0u) << "its job left the queue";
  }
  {
    Booked b;
    b.queue.jobs[10].pending = false;
    EXPECT_FALSE(b.book.prune(1000, kTable, b.queue.lookup())) << "a started job needs no pass";
    EXPECT_EQ(b.book.size(), 0u);
  }
  {
    Booked b;
    EXPECT_TRUE(b.book.prune(2000, kTable, b.queue.lookup())) << "time is up: schedule it now";
    EXPECT_EQ(b.book.size(), 0u);
    EXPECT_EQ(b.book.next_end(), 0);
  }
  {
    Booked b;
    EXPECT_FALSE(b.book.prune(1999, kTable, b.queue.lookup()));
    EXPECT_EQ(b.book.size(), 1u);
    EXPECT_FALSE(b.book.prune(1999, kTable + 1, b.queue.lookup()));
    EXPECT_EQ(b.book.size(), 0u) << "a node table that changed size voids its slots";
  }
}

TEST(WaitBook, TheOffersOfAnotherTableTakeNothing) {
  Booked b;
  EXPECT_TRUE(b.book.begin(job(11, 50), 1000, kTable, kTable - 1, b.queue.lookup()).taken.empty());
}

TEST(WaitBook, KeepRoundsUpAndSaysWhenTheTimesMoved) {
  WaitBook book;
  EXPECT_TRUE(book.keep(7, 1999.2, 1500.5, {3, 1, 3}, kTable, "r")) << "a new wait";
  const auto* w = book.find(7);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->until, 2000);
  EXPECT_EQ(w->ready_at, 1501);
  EXPECT_EQ(w->nodes, (std::vector<int>{1, 3}));
  EXPECT_EQ(book.next_end(), 2000);
  EXPECT_FALSE(book.keep(7, 1999.9, 1500.1, {1, 3}, kTable, "r")) << "the same whole seconds";
  EXPECT_TRUE(book.keep(7, 2100, 1500, {1, 3}, kTable, "r"));
  book.keep(8, 1800, 1700, {9}, kTable, "s");
  EXPECT_EQ(book.next_end(), 1800) << "the earliest end";
  EXPECT_TRUE(book.forget(8));
  EXPECT_FALSE(book.forget(8));
  EXPECT_EQ(book.next_end(), 2100);
}

TEST(WaitBook, AfterAnEvaluation) {
  using Step = WaitBook::Step;
  unsigned asked = 0;
  const auto groups = [&asked](unsigned g) {
    return [&asked, g] {
      ++asked;
      return g;
    };
  };
  {
    Booked b;
    EXPECT_EQ(b.book.after(job(11, 50), true, 4, groups(2)), Step::Ask)
        << "a split job that does not wait yet";
    EXPECT_EQ(b.book.after(job(11, 50), true, 4, groups(1)), Step::None);
    EXPECT_EQ(b.book.after(job(11, 50), true, 1, groups(1)), Step::None);
  }
  {
    Booked b;
    EXPECT_EQ(b.book.after(job(10, 100), true, 4, groups(1)), Step::OneGroup);
    EXPECT_EQ(b.book.find(10), nullptr);
  }
  {
    Booked b;
    EXPECT_EQ(b.book.after(job(10, 100), false, 0, groups(2)), Step::Forget) << "left to Slurm now";
    EXPECT_EQ(b.book.find(10), nullptr);
  }
  {
    Booked b;
    auto trial = job(10, 100);
    trial.test_only = true;
    asked = 0;
    EXPECT_EQ(b.book.after(trial, false, 0, groups(2)), Step::None) << "a test never drops a wait";
    EXPECT_EQ(b.book.after(trial, true, 4, groups(2)), Step::None) << "only backfill's trials hold";
    EXPECT_EQ(asked, 0u) << "the leaf groups are not walked when no rule needs them";
    trial.backfill_test = true;
    EXPECT_EQ(b.book.after(trial, true, 4, groups(2)), Step::Hold);
    EXPECT_EQ(b.book.after(trial, true, 4, groups(1)), Step::None);
    EXPECT_NE(b.book.find(10), nullptr);
  }
  {
    // A job wider than every group waits for the fewest (2 here): backfill may start it on
    // 2 groups, and holds it on 3; placed on 2 it waits no more.
    Booked b;
    b.book.keep(10, 2000, 1500, {4, 5, 6, 7}, kTable, "Waiting for 2 leaf groups (gpu[005-008])", 2);
    auto trial = job(10, 100);
    trial.test_only = trial.backfill_test = true;
    EXPECT_EQ(b.book.after(trial, true, 4, groups(2)), Step::None);
    EXPECT_EQ(b.book.after(trial, true, 4, groups(3)), Step::Hold);
    EXPECT_EQ(b.book.after(job(10, 100), true, 4, groups(3)), Step::Ask) << "decided afresh";
    EXPECT_EQ(b.book.after(job(10, 100), true, 4, groups(2)), Step::OneGroup);
    EXPECT_EQ(b.book.find(10), nullptr);
  }
}

TEST(WaitBook, ANotedJobShowsItsReasonUntilPlacedOrGoneAndReservesNothing) {
  WaitBook book;
  Queue queue;
  queue.jobs[20] = {.pending = true, .priority = 100};
  queue.jobs[21] = {.pending = true, .priority = 50};
  book.note(20, "Waiting for hosts off failing links or NVLink (fabricfit health=waits)");
  EXPECT_EQ(book.size(), 0u) << "a note is no locality wait";
  EXPECT_EQ(book.notes(), 1u);
  // Another job's evaluation shows it; it takes nothing from that job.
  auto begin = book.begin(job(21, 50), 1000, kTable, kTable, queue.lookup());
  ASSERT_EQ(begin.remind_notes.size(), 1u);
  EXPECT_EQ(begin.remind_notes[0]->job_id, 20u);
  EXPECT_EQ(begin.remind_notes[0]->reason,
            "Waiting for hosts off failing links or NVLink (fabricfit health=waits)");
  EXPECT_TRUE(begin.taken.empty());
  EXPECT_TRUE(begin.may_run);
  // Its own evaluation does not remind it of itself, and noting again replaces the reason.
  EXPECT_TRUE(book.begin(job(20, 100), 1000, kTable, kTable, queue.lookup()).remind_notes.empty());
  book.note(20, "Waiting for an NVLink domain with room (fabricfit domain=waits)");
  EXPECT_EQ(book.notes(), 1u);
  EXPECT_EQ(book.begin(job(21, 50), 1000, kTable, kTable, queue.lookup()).remind_notes[0]->reason,
            "Waiting for an NVLink domain with room (fabricfit domain=waits)");
  // A backfill trial that places it keeps the note; a placement outside a trial ends it.
  EvaluatedJob trial = job(20, 100);
  trial.test_only = trial.backfill_test = true;
  (void)book.after(trial, true, 2, [] { return 1U; });
  EXPECT_EQ(book.notes(), 1u);
  (void)book.after(job(20, 100), true, 2, [] { return 1U; });
  EXPECT_EQ(book.notes(), 0u);
  // A real evaluation unnotes it first (it notes it again if it is still held).
  book.note(20, "Waiting for an NVLink domain with room (fabricfit domain=waits)");
  book.unnote(20);
  EXPECT_EQ(book.notes(), 0u);
  EXPECT_TRUE(book.begin(job(21, 50), 1000, kTable, kTable, queue.lookup()).remind_notes.empty());
  // A noted job that leaves the queue (cancelled, or no longer pending) is dropped.
  book.note(21, "Waiting for hosts off failing links or NVLink (fabricfit health=waits)");
  queue.jobs[21].pending = false;
  EXPECT_TRUE(book.begin(job(22, 10), 1000, kTable, kTable, queue.lookup()).remind_notes.empty());
  EXPECT_EQ(book.notes(), 0u);
}
