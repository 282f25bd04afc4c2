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
#include "plugin_ctx.h"

#pragma GCC visibility push(hidden)

/*
 * Before an evaluation: undoes this plugin's hold on the job (best_switch) so that the
 * evaluation decides afresh, shows the waiting jobs' reasons, and takes from node_map
 * the hosts reserved for waiting jobs ahead of this one that it would not leave in time.
 * `test_only`: Slurm tests the job (submission, backfill's trials), not starts it.
 * False when the job may not run on the nodes offered (it requires a reserved host).
 */
extern bool ffg_wait_begin(ffg_ctx_t *ctx, topology_eval_t *topo_eval, bool test_only);

/*
 * After Slurm's evaluator accepted node_map: whether the job waits for one leaf group (the
 * fewest, for a job wider than any).
 * `request` is what fabricfit placed (NULL when it left the job to Slurm). On a wait,
 * best_switch is cleared (cons_tres does not start the job) and `note` gets the why.
 */
extern void ffg_wait_end(ffg_ctx_t *ctx, topology_eval_t *topo_eval, const ff_request_t *request,
			 bool test_only, char *note, size_t note_len);

/* slurmctld starts the plugin: the book of waits (the core's). */
extern void ffg_waits_init(ffg_waits_t *waits);
/* The plugin ends: the waits and their scratch are freed. */
extern void ffg_waits_free(ffg_waits_t *waits);

/*
 * The earliest time a wait ends (0: none): once past, slurmctld should schedule so that
 * its job is decided again at once. Safe without slurmctld's locks.
 */
extern time_t ffg_wait_next_end(const ffg_waits_t *waits);

#pragma GCC visibility pop

#endif
