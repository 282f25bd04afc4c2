// SPDX-License-Identifier: GPL-2.0-or-later
// The controller's book of locality waits: which pending jobs wait for one leaf group (the
// fewest groups, for a job wider than any), until when, and the node slots reserved for each; and the rules
// that act on them at every evaluation (docs/placement.md, "Adaptive locality wait in Slurm"):
// - a wait ends when its job left the queue, started, reached its time, or the node table
//   it was reserved in changed;
// - a job the scheduler considers after a waiting job (lower priority, or a later id at
//   equal priority) loses the waiting job's nodes, unless it ends before the wait may
//   (backfill), or Slurm only tests it at submission;
// - a job held to wait is decided afresh by each evaluation, and backfill's trials of it
//   keep to the decision while it spans more groups than it waits for;
// - a job that lands in as few leaf groups as it waits for (one, for most), or that
//   fabricfit does not place, waits no more;
// - a job held for another reason (a placement off failing links, a domain with room) is
//   only noted: its reason is shown like a wait's until it is placed or leaves the queue.
// Whether a split job should wait at all is wait_decision.hpp's; this book only keeps the
// answer. Nodes are slots of the controller's node table, so the book outlives snapshots.
// Not locked: the controller uses it under its job write lock; next_end() alone may be
// read from another thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fabricfit {

// What the controller knows of a job the book asks about.
struct QueuedJob {
  bool pending = false;
  std::uint32_t priority = 0;
};

// The job an evaluation is for.
struct EvaluatedJob {
  std::uint32_t job_id = 0;
  std::uint32_t priority = 0;
  double time_limit_s = 0;        // 0: none (it never ends before a wait)
  bool test_only = false;         // a submission test or one of backfill's trials
  bool backfill_test = false;     // one of backfill's trials
  bool switches = false;          // --switches: topology/tree's hold, not the wait's
  std::span<const int> required;  // -w nodes, as table slots (any order)
};

struct LocalityWait {
  std::uint32_t job_id = 0;
  std::int64_t until = 0;     // the wait ends at the latest (whole seconds)
  std::int64_t ready_at = 0;  // when its hosts are expected
  std::vector<int> nodes;     // the node slots reserved for it, sorted
  int table_size = 0;         // the node table's size when reserved
  unsigned leaf_groups = 1;   // how many groups it waits for: 1, or the fewest (a wide job)
  std::string reason;         // what the job shows while it waits
};

// A job held pending for another reason than locality (only placements across failing
// links fit, no NVLink domain has room): what it shows, nothing reserved.
struct WaitNote {
  std::uint32_t job_id = 0;
  std::string reason;
};

class WaitBook {
 public:
  using Lookup = std::function<std::optional<QueuedJob>(std::uint32_t job_id)>;

  // Before an evaluation: what it must take into account.
  struct Begin {
    bool decide_afresh = false;                 // the job waits: this evaluation may start it
    bool may_run = true;                        // false: it requires (-w) a node reserved for a wait ahead
    bool schedule = false;                      // a wait reached its time with its job pending
    std::vector<int> taken;                     // slots to take from the job's candidates
    std::vector<const LocalityWait*> remind;    // waits whose job should show its reason
    std::vector<const WaitNote*> remind_notes;  // noted jobs that should show theirs
  };
  // `table_size` is the node table's size now, `offered_size` the candidates' map size.
  [[nodiscard]] Begin begin(const EvaluatedJob& job, std::int64_t now, int table_size, int offered_size,
                            const Lookup& lookup);

  // After Slurm's evaluator accepted a placement on `hosts` fabric hosts (`placed`:
  // fabricfit chose it): what to do with the job's wait. Forget and OneGroup have dropped it.
  enum class Step {
    None,      // nothing to do
    Forget,    // it waited and waits no more (silently: not fabricfit's decision)
    OneGroup,  // it waited and has as few leaf groups as it waited for now
    Hold,      // a backfill trial of a waiting job on more groups than that: keep it pending
    Ask,       // a split allocation: ask wait_decision whether it should wait
  };
  // `leaf_groups` is asked only when the rule needs it (it walks the hosts).
  [[nodiscard]] Step after(const EvaluatedJob& job, bool placed, unsigned hosts,
                           const std::function<unsigned()>& leaf_groups);

  // The job waits (again): until/ready_at rounded up to whole seconds, `nodes` the slots
  // reserved for it. True when it is new or its times changed (worth a log line).
  // `leaf_groups`: how many groups it waits for (0 reads as 1).
  bool keep(std::uint32_t job_id, double until, double ready_at, std::vector<int> nodes, int table_size,
            std::string reason, unsigned leaf_groups = 1);
  // The job waits no more; false when it did not wait.
  bool forget(std::uint32_t job_id);
  // The job is held pending for `reason` (WaitNote), shown as the waits' reasons are until
  // it is placed (after(), not in a trial) or leaves the queue.
  void note(std::uint32_t job_id, std::string reason);
  // Its note goes: an evaluation decides afresh whether it is still held (and notes it again).
  void unnote(std::uint32_t job_id);
  [[nodiscard]] std::size_t notes() const { return notes_.size(); }
  // Waits that ended: their job left the queue, started, reached the wait's time, or the
  // node table changed. True when one of them reached its time with its job pending (the
  // controller should schedule now: nothing else would before its next periodic pass).
  bool prune(std::int64_t now, int table_size, const Lookup& lookup);

  [[nodiscard]] const LocalityWait* find(std::uint32_t job_id) const;
  [[nodiscard]] std::size_t size() const { return waits_.size(); }
  // The earliest `until` of the waits (0: none); safe from any thread.
  [[nodiscard]] std::int64_t next_end() const { return next_end_.load(std::memory_order_relaxed); }
  void clear();

  // The scheduler considers `job` after a job of `priority` and id `waiting_id`.
  [[nodiscard]] static bool ranks_after(std::uint32_t priority, std::uint32_t job_id,
                                        const QueuedJob& waiting, std::uint32_t waiting_id);

 private:
  void note_next_end();
  std::vector<LocalityWait> waits_;
  std::vector<WaitNote> notes_;
  std::atomic<std::int64_t> next_end_{0};
};

}  // namespace fabricfit
