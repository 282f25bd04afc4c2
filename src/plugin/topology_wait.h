/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The adaptive locality wait in slurmctld (topology_wait.c): Slurm's facts passed to the
 * core (ff_engine_wait_advice), and its answer applied: the job kept pending through
 * best_switch, the reason shown in its state_desc, and the hosts it expects kept from the
 * jobs after it that would not end in time. docs/placement.md, "Adaptive locality wait
 * in Slurm".
 */
#ifndef FABRICFIT_TOPOLOGY_WAIT_H
#define FABRICFIT_TOPOLOGY_WAIT_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "src/interfaces/topology.h"

#include "fabricfit_api.h"

/*
 * Before an evaluation: undoes this plugin's hold on the job (best_switch) so that the
 * evaluation decides afresh, shows the waiting jobs' reasons, and takes from node_map
 * the hosts reserved for waiting jobs ahead of this one that it would not leave in time.
 * `test_only`: Slurm tests the job (submission, backfill's trials), not starts it.
 * False when the job may not run on the nodes offered (it requires a reserved host).
 */
extern bool ffg_wait_begin(topology_eval_t *topo_eval, bool test_only);

/*
 * After Slurm's evaluator accepted node_map: whether the job waits for one leaf group.
 * `request` is what fabricfit placed (NULL when it left the job to Slurm). On a wait,
 * best_switch is cleared (cons_tres does not start the job) and `note` gets the why.
 */
extern void ffg_wait_end(topology_eval_t *topo_eval, const ff_request_t *request, bool test_only,
			 char *note, size_t note_len);

/* slurmctld starts the plugin: the run-time predictor (LocalityWaitEstimate=history),
 * with the history a previous slurmctld saved. */
extern void ffg_wait_init(void);

/*
 * A job of Slurm's job list, at each scan of it (job read lock held): a finished job that
 * completed or reached its time limit teaches the predictor how much of its limit its
 * user's jobs run; any other is left alone. A job seen again is ignored.
 */
extern void ffg_wait_learn(job_record_t *job);

/*
 * The earliest time a wait ends (0: none): once past, slurmctld should schedule so that
 * its job is decided again at once. Safe without slurmctld's locks.
 */
extern time_t ffg_wait_next_end(void);

/*
 * Writes what the run-time predictor learnt since the last save to StateSaveLocation
 * (fabricfit.runtime-history), which ffg_wait_init reads back. Without slurmctld's locks:
 * file I/O; the predictor locks itself.
 */
extern void ffg_wait_save(void);

/* The plugin ends: the waits, their scratch and the predictor are freed. */
extern void ffg_wait_forget(void);

#endif
