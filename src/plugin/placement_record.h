/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A placement record per job, in its AdminComment (kept by accounting, shown by scontrol,
 * squeue and sacct), and the controller's one info line per job, both for the evaluation
 * that really allocated the job. topology_p_eval_nodes cannot tell: Slurm tests, backfill
 * trials and will-run passes call it like the allocation does, and an allocation can still
 * fail after it (memory, limits). So each evaluation that may allocate notes its decision;
 * a thread then takes slurmctld's job write lock, which the evaluating thread held until
 * the allocation was settled, and writes only the decisions whose job now runs on exactly
 * the nodes that evaluation chose.
 */
#ifndef FABRICFIT_PLACEMENT_RECORD_H
#define FABRICFIT_PLACEMENT_RECORD_H

#include "src/slurmctld/slurmctld.h"

#include "fabricfit_api.h"
#include "plugin_ctx.h"

/*
 * What an evaluation that may allocate the job decided, for its note. The record itself
 * (fabricfit's score and fragmentation change: tens of microseconds) and the node names
 * are made by the writer thread, outside the scheduling cycle, from these facts.
 */
typedef struct {
	bitstr_t *chosen;     /* the job's nodes after this evaluation: taken over */
	bitstr_t *candidates; /* the nodes it was offered: taken over */
	const char *extra;    /* words for the log line ("" for none) */
	/* fabricfit placed the job: */
	const ff_request_t *request; /* NULL: Slurm placed it, for `reason` */
	const int *hosts;	     /* its fabric hosts in the current engine */
	unsigned nhosts;
	const int *free_gpus, *total_gpus; /* per fabric host, before the job */
	unsigned host_count;
	/* Slurm placed the job: */
	const ff_pattern_t *pattern; /* NULL: not known */
	const char *reason;
} ffg_decision_t;

#pragma GCC visibility push(hidden)
/*
 * Called by eval_nodes (job write lock held). Once the decision is the allocation, the
 * record goes into the job's AdminComment and fabricfit's placement joins the running
 * split jobs the locality wait prices beside (ff_engine_running_add) until it ends. A later
 * note for the same job replaces this one.
 */
extern void ffg_record_note(ffg_ctx_t *ctx, job_record_t *job_ptr, ffg_decision_t *decision);
/*
 * Called by eval_nodes first (job lock held): the split jobs the notes say were allocated
 * since the writer's last round (earlier in the same scheduling pass, mostly) join the
 * running jobs now, so that the job evaluated next is placed and its wait priced beside
 * them, not only once their records are written.
 */
extern void ffg_record_count_started(ffg_ctx_t *ctx);
/*
 * Makes the records of the notes still waiting with the engine in place now: called (with
 * engine_lock held for writing) before that engine is replaced or freed.
 */
extern void ffg_record_settle(ffg_ctx_t *ctx);
/* The housekeeper's round: writes the records of the notes made since the last. */
extern void ffg_records_round(ffg_ctx_t *ctx);
extern ffg_records_t *ffg_records_new(void);
/* Notes are taken from now on (slurmctld, once the housekeeper runs). */
extern void ffg_records_open(ffg_records_t *records);
extern void ffg_records_free(ffg_records_t *records);
/* slurmctld is shutting down or re-executing (its job list may go without locks). */
extern bool ffg_shutting_down(void);
#pragma GCC visibility pop

#endif
