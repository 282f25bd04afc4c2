// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/waiting/wait_book.hpp"

#include <algorithm>
#include <cmath>

namespace fabricfit {

bool WaitBook::ranks_after(std::uint32_t priority, std::uint32_t job_id, const QueuedJob& waiting,
                           std::uint32_t waiting_id) {
  return priority < waiting.priority || (priority == waiting.priority && job_id > waiting_id);
}

const LocalityWait* WaitBook::find(std::uint32_t job_id) const {
  const auto it =
      std::find_if(waits_.begin(), waits_.end(), [&](const auto& w) { return w.job_id == job_id; });
  return it == waits_.end() ? nullptr : &*it;
}

void WaitBook::note_next_end() {
  std::int64_t t = 0;
  for (const auto& w : waits_) {
    if (t == 0 || w.until < t) t = w.until;
  }
  next_end_.store(t, std::memory_order_relaxed);
}

bool WaitBook::forget(std::uint32_t job_id) {
  const auto it =
      std::find_if(waits_.begin(), waits_.end(), [&](const auto& w) { return w.job_id == job_id; });
  if (it == waits_.end()) return false;
  waits_.erase(it);
  note_next_end();
  return true;
}

void WaitBook::note(std::uint32_t job_id, std::string reason) {
  const auto it = std::ranges::find(notes_, job_id, &WaitNote::job_id);
  if (it != notes_.end()) {
    it->reason = std::move(reason);
  } else {
    notes_.push_back({job_id, std::move(reason)});
  }
}

void WaitBook::unnote(std::uint32_t job_id) {
  std::erase_if(notes_, [&](const WaitNote& n) { return n.job_id == job_id; });
}

void WaitBook::clear() {
  notes_.clear();
  waits_.clear();
  note_next_end();
}

bool WaitBook::prune(std::int64_t now, int table_size, const Lookup& lookup) {
  bool schedule = false;
  std::erase_if(waits_, [&](const LocalityWait& w) {
    const auto job = lookup(w.job_id);
    const bool pending = job && job->pending;
    if (pending && w.until > now && w.table_size == table_size) return false;
    // Its job is decided again at once: this pass may be past it.
    if (pending && w.until <= now) schedule = true;
    return true;
  });
  note_next_end();
  return schedule;
}

WaitBook::Begin WaitBook::begin(const EvaluatedJob& job, std::int64_t now, int table_size, int offered_size,
                                const Lookup& lookup) {
  Begin out;
  std::erase_if(notes_, [&](const WaitNote& n) {
    const auto waiting = lookup(n.job_id);
    return !waiting || !waiting->pending;
  });
  for (const auto& n : notes_)
    if (n.job_id != job.job_id) out.remind_notes.push_back(&n);
  if (waits_.empty()) return out;
  out.schedule = prune(now, table_size, lookup);
  const LocalityWait* self = find(job.job_id);
  // topology/tree's --switches hold is Slurm's to lift, not ours.
  out.decide_afresh = self != nullptr && !job.switches;
  for (const auto& w : waits_) {
    if (&w == self) continue;
    const auto waiting = lookup(w.job_id);
    if (!waiting) continue;
    out.remind.push_back(&w);
    // A submission test must not reject a job for a wait that will end.
    if (job.test_only && !job.backfill_test) continue;
    if (!ranks_after(job.priority, job.job_id, *waiting, w.job_id) || offered_size != table_size) continue;
    // It ends before the waiting job may start: backfill.
    if (job.time_limit_s > 0 && static_cast<double>(now) + job.time_limit_s <= static_cast<double>(w.until))
      continue;
    out.taken.insert(out.taken.end(), w.nodes.begin(), w.nodes.end());
    // Slurm's evaluator walks -w nodes by themselves: the job is refused here instead.
    if (w.table_size == table_size && std::any_of(job.required.begin(), job.required.end(), [&](int node) {
          return std::binary_search(w.nodes.begin(), w.nodes.end(), node);
        }))
      out.may_run = false;
  }
  return out;
}

WaitBook::Step WaitBook::after(const EvaluatedJob& job, bool placed, unsigned hosts,
                               const std::function<unsigned()>& leaf_groups) {
  // A noted job Slurm's evaluator accepted now starts: it shows its note no more.
  if (!job.test_only) unnote(job.job_id);
  const LocalityWait* wait = find(job.job_id);
  const bool waits = wait != nullptr;
  // A wide job waits for the fewest groups, the others for one: at most that many is where
  // the wait is going, and no longer split.
  const unsigned wanted = waits ? std::max(1U, wait->leaf_groups) : 1U;
  if (!placed || hosts < 2) {
    if (waits && !job.test_only) {
      forget(job.job_id);
      return Step::Forget;
    }
    return Step::None;
  }
  if (job.test_only) {
    // Backfill's trials (now and at the times jobs end) keep to the decision.
    return waits && job.backfill_test && leaf_groups() > wanted ? Step::Hold : Step::None;
  }
  // Most multi-host jobs land in one group: no wait to weigh; a waiting one in as few groups
  // as it waited for waits no more.
  const unsigned groups = leaf_groups();
  if (groups <= 1 || (waits && groups <= wanted)) {
    if (!waits) return Step::None;
    forget(job.job_id);
    return Step::OneGroup;
  }
  return Step::Ask;
}

bool WaitBook::keep(std::uint32_t job_id, double until, double ready_at, std::vector<int> nodes,
                    int table_size, std::string reason, unsigned leaf_groups) {
  // Up to whole seconds: the wait lasts until the expected moment.
  const auto until_s = static_cast<std::int64_t>(std::ceil(until));
  const auto ready_s = static_cast<std::int64_t>(std::ceil(ready_at));
  auto it = std::find_if(waits_.begin(), waits_.end(), [&](const auto& w) { return w.job_id == job_id; });
  const bool fresh = it == waits_.end();
  if (fresh) {
    it = waits_.emplace(waits_.end());
    it->job_id = job_id;
  }
  const bool changed = fresh || it->until != until_s || it->ready_at != ready_s;
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  it->until = until_s;
  it->ready_at = ready_s;
  it->nodes = std::move(nodes);
  it->table_size = table_size;
  it->reason = std::move(reason);
  it->leaf_groups = std::max(1U, leaf_groups);
  note_next_end();
  return changed;
}

}  // namespace fabricfit
