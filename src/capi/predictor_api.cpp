// SPDX-License-Identifier: GPL-2.0-or-later
// The run-time predictor at the C edge (ff_predictor_*): slurmctld's finished jobs in,
// the locality wait's run times out. Nothing here may throw into slurmctld: a job that
// cannot be learnt (no memory) is skipped, and a prediction falls back to the limit.
#include <mutex>
#include <new>

#include "capi/fabricfit_api.h"
#include "placement/runtime_predictor.hpp"

struct ff_predictor {
  std::mutex lock;  // the record thread learns while evaluations predict
  fabricfit::RunTimePredictor model;
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
    predictor->model.observe(user, job_id, limit_s, run_s, end);
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

}  // extern "C"
