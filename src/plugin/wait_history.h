/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run-time history of the locality wait (LocalityWaitEstimate=history): the core's
 * predictor, taught by the housekeeper from the jobs that finished, saved in
 * StateSaveLocation (fabricfit.runtime-history) and read back when slurmctld starts, so
 * that a restart or reconfigure keeps what it learnt.
 */
#ifndef FABRICFIT_WAIT_HISTORY_H
#define FABRICFIT_WAIT_HISTORY_H

#include "src/slurmctld/slurmctld.h"

#include "plugin_ctx.h"

#pragma GCC visibility push(hidden)

/* slurmctld starts the plugin: the history a previous slurmctld saved is read. */
extern void ffg_history_init(ffg_history_t *history);
/*
 * A job of Slurm's job list, at each scan of it (job read lock held): a finished job that
 * completed or reached its time limit teaches the predictor how much of its limit its
 * user's jobs run; any other is left alone. A job seen again is ignored.
 */
extern void ffg_history_learn(ffg_history_t *history, job_record_t *job);
/* Writes what was learnt since the last save (without slurmctld's locks: file I/O). */
extern void ffg_history_save(ffg_history_t *history);
/* The plugin ends: saved once more, then freed. */
extern void ffg_history_free(ffg_history_t *history);

#pragma GCC visibility pop

#endif
