// SPDX-License-Identifier: GPL-2.0-or-later
// The run-time predictor at the C edge (ff_predictor_*): slurmctld's finished jobs in,
// the locality wait's run times out. Nothing here may throw into slurmctld: a job that
// cannot be learnt (no memory) is skipped, and a prediction falls back to the limit.

#include <cerrno>
#include <chrono>
#include <mutex>
#include <new>
#include <string>
#include <system_error>

#include "capi/c_edge.hpp"
#include "capi/fabricfit_api.h"
#include "common/atomic_file.hpp"
#include "placement/runtime/runtime_predictor.hpp"

using fabricfit::capi::copy_out;
using fabricfit::capi::guarded;

struct ff_predictor {
  std::mutex lock;  // the record thread learns while evaluations predict
  fabricfit::RunTimePredictor model;
  unsigned long learnt = 0;  // jobs learnt since the last save or load
};

extern "C" {

ff_predictor_t* ff_predictor_new(void) {
  return new (std::nothrow) ff_predictor_t;
}

void ff_predictor_free(ff_predictor_t* predictor) {
  delete predictor;
}

void ff_predictor_observe(ff_predictor_t* predictor, uint32_t user, uint64_t job_id, double limit_s,
                          double run_s, double end) {
  if (predictor == nullptr) return;
  try {
    const std::lock_guard<std::mutex> guard(predictor->lock);
    if (predictor->model.observe(user, job_id, limit_s, run_s, end)) ++predictor->learnt;
  } catch (...) {  // NOLINT(bugprone-empty-catch): not learnt; predictions stay as they were
  }
}

double ff_predictor_run(ff_predictor_t* predictor, int history, uint32_t user, double limit_s) {
  if (predictor == nullptr || history == 0) return limit_s;
  try {
    const std::lock_guard<std::mutex> guard(predictor->lock);
    return predictor->model.predict_run(user, limit_s);
  } catch (...) {
    return limit_s;
  }
}

double ff_predictor_end(ff_predictor_t* predictor, int history, uint32_t user, double limit_s,
                        double limit_end, double now) {
  if (predictor == nullptr || history == 0 || !(limit_s > 0)) return limit_end;
  try {
    const std::lock_guard<std::mutex> guard(predictor->lock);
    return predictor->model.predict_end(user, limit_s, limit_end - limit_s, now);
  } catch (...) {
    return limit_end;
  }
}

int ff_predictor_save(ff_predictor_t* predictor, const char* path, int* written, char* err, size_t err_len) {
  if (written != nullptr) *written = 0;
  if (predictor == nullptr || path == nullptr) {
    copy_out("internal error: missing argument", err, err_len);
    return FF_EINTERNAL;
  }
  return guarded(err, err_len, [&] {
    std::string text;
    unsigned long learnt = 0;
    {
      const std::lock_guard<std::mutex> guard(predictor->lock);
      if (predictor->learnt == 0) return;
      text = predictor->model.to_text();
      learnt = predictor->learnt;
    }
    // The file is written without the lock: evaluations go on predicting meanwhile.
    // A slurmctld that exited mid-write (a re-exec's parent) left its temporary.
    fabricfit::remove_stale_temporaries(path, std::chrono::seconds(60));
    fabricfit::write_file_atomically(path, text);
    const std::lock_guard<std::mutex> guard(predictor->lock);
    predictor->learnt -= learnt;  // what was learnt while writing is saved next time
    if (written != nullptr) *written = 1;
  });
}

int ff_predictor_load(ff_predictor_t* predictor, const char* path, unsigned* jobs, char* err,
                      size_t err_len) {
  if (jobs != nullptr) *jobs = 0;
  if (predictor == nullptr || path == nullptr) {
    copy_out("internal error: missing argument", err, err_len);
    return FF_EINTERNAL;
  }
  return guarded(err, err_len, [&]() -> int {
    std::string content;
    if (!fabricfit::read_whole_file(path, content)) {
      copy_out(std::string(path) + ": cannot read it: " + std::generic_category().message(errno), err,
               err_len);
      return FF_EINTERNAL;
    }
    try {
      const std::lock_guard<std::mutex> guard(predictor->lock);
      const std::size_t n = predictor->model.merge_text(content, path);
      if (jobs != nullptr) *jobs = static_cast<unsigned>(n);
    } catch (const fabricfit::HistoryError& e) {
      copy_out(e.what(), err, err_len);
      return FF_EINVAL;
    }
    return FF_OK;
  });
}

}  // extern "C"
