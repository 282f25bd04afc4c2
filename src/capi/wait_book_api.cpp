// SPDX-License-Identifier: GPL-2.0-or-later
// The controller's book of locality waits at the C edge (ff_wait_book_*): the glue's
// callbacks read and change Slurm's records; the book (placement/waiting/wait_book.hpp) decides.
#include <new>
#include <span>
#include <vector>

#include "capi/c_edge.hpp"
#include "capi/engine_state.hpp"
#include "capi/fabricfit_api.h"
#include "placement/waiting/wait_book.hpp"

using fabricfit::capi::copy_out;
using fabricfit::capi::guarded;

struct ff_wait_book {
  fabricfit::WaitBook book;
};

namespace {

fabricfit::EvaluatedJob evaluated(const ff_evaluated_job_t& job) {
  return {.job_id = job.job_id,
          .priority = job.priority,
          .time_limit_s = job.time_limit_s,
          .test_only = job.test_only != 0,
          .backfill_test = job.backfill_test != 0,
          .switches = job.switches != 0,
          .required = job.required != nullptr ? std::span<const int>(job.required, job.nrequired)
                                              : std::span<const int>()};
}

fabricfit::WaitBook::Lookup lookup_of(ff_find_job_fn find, void* ctx) {
  return [find, ctx](std::uint32_t id) -> std::optional<fabricfit::QueuedJob> {
    ff_queued_job_t q{};
    if (find(ctx, id, &q) == 0) return std::nullopt;
    return fabricfit::QueuedJob{.pending = q.pending != 0, .priority = q.priority};
  };
}

}  // namespace

extern "C" {

ff_wait_book_t* ff_wait_book_new(void) {
  return new (std::nothrow) ff_wait_book;
}

void ff_wait_book_free(ff_wait_book_t* book) {
  delete book;
}

int ff_wait_book_begin(ff_wait_book_t* book, const ff_evaluated_job_t* job, double now, int table_size,
                       int offered_size, ff_find_job_fn find, ff_show_reason_fn show, ff_take_node_fn take,
                       void* ctx, ff_wait_begin_t* out, char* err, size_t err_len) {
  if (out != nullptr) *out = ff_wait_begin_t{.decide_afresh = 0, .may_run = 1, .schedule = 0};
  if (book == nullptr || job == nullptr || find == nullptr || show == nullptr || take == nullptr ||
      out == nullptr) {
    copy_out("internal error: missing argument", err, err_len);
    return FF_EINTERNAL;
  }
  return guarded(err, err_len, [&] {
    const auto b = book->book.begin(evaluated(*job), static_cast<std::int64_t>(now), table_size, offered_size,
                                    lookup_of(find, ctx));
    for (const auto* w : b.remind) show(ctx, w->job_id, w->reason.c_str());
    for (const auto* n : b.remind_notes) show(ctx, n->job_id, n->reason.c_str());
    for (const int node : b.taken) take(ctx, node);
    *out = ff_wait_begin_t{.decide_afresh = b.decide_afresh ? 1 : 0,
                           .may_run = b.may_run ? 1 : 0,
                           .schedule = b.schedule ? 1 : 0};
  });
}

int ff_wait_book_after(ff_wait_book_t* book, const ff_evaluated_job_t* job, int placed,
                       const ff_engine_t* engine, const int* hosts, unsigned nhosts) {
  if (book == nullptr || job == nullptr) return FF_WAIT_NONE;
  int step = FF_WAIT_NONE;
  const bool have = placed != 0 && engine != nullptr && hosts != nullptr;
  (void)guarded(nullptr, 0, [&] {
    using Step = fabricfit::WaitBook::Step;
    const auto s = book->book.after(evaluated(*job), have, have ? nhosts : 0,
                                    [&] { return ff_engine_leaf_groups_of(engine, hosts, nhosts); });
    step = s == Step::Forget     ? FF_WAIT_FORGOT
           : s == Step::OneGroup ? FF_WAIT_ONE_GROUP
           : s == Step::Hold     ? FF_WAIT_HOLD
           : s == Step::Ask      ? FF_WAIT_ASK
                                 : FF_WAIT_NONE;
  });
  return step;
}

int ff_wait_book_keep(ff_wait_book_t* book, uint32_t job_id, const ff_wait_advice_t* advice, const int* nodes,
                      unsigned nnodes, int table_size, const char* reason, int* changed, char* err,
                      size_t err_len) {
  if (book == nullptr || advice == nullptr || (nodes == nullptr && nnodes > 0)) {
    copy_out("internal error: missing argument", err, err_len);
    return FF_EINTERNAL;
  }
  return guarded(err, err_len, [&] {
    const bool moved =
        book->book.keep(job_id, advice->until, advice->ready_at, std::vector<int>(nodes, nodes + nnodes),
                        table_size, reason != nullptr ? reason : "", advice->leaf_groups);
    if (changed != nullptr) *changed = moved ? 1 : 0;
  });
}

int ff_wait_book_forget(ff_wait_book_t* book, uint32_t job_id) {
  return book != nullptr && book->book.forget(job_id) ? 1 : 0;
}

const char* ff_wait_book_reason(const ff_wait_book_t* book, uint32_t job_id) {
  const auto* w = book != nullptr ? book->book.find(job_id) : nullptr;
  return w != nullptr ? w->reason.c_str() : nullptr;
}

long ff_wait_book_next_end(const ff_wait_book_t* book) {
  return book != nullptr ? static_cast<long>(book->book.next_end()) : 0;
}

unsigned ff_wait_book_count(const ff_wait_book_t* book) {
  return book != nullptr ? static_cast<unsigned>(book->book.size()) : 0;
}

int ff_wait_book_note(ff_wait_book_t* book, uint32_t job_id, const char* reason) {
  if (book == nullptr || reason == nullptr) return FF_EINTERNAL;
  return guarded(nullptr, 0, [&] { book->book.note(job_id, reason); });
}

void ff_wait_book_unnote(ff_wait_book_t* book, uint32_t job_id) {
  if (book != nullptr) book->book.unnote(job_id);
}

unsigned ff_wait_book_notes(const ff_wait_book_t* book) {
  return book != nullptr ? static_cast<unsigned>(book->book.notes()) : 0;
}

}  // extern "C"
