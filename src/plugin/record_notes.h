/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The decisions evaluations note for their placement records, shared by the two halves of
 * that work: record_notes.c takes them (eval_nodes, job write lock held), record_writer.c
 * settles and writes them (the housekeeper). Not seen by any other file.
 */
#ifndef FABRICFIT_RECORD_NOTES_H
#define FABRICFIT_RECORD_NOTES_H

#include <pthread.h>

#include "placement_record.h"

#pragma GCC visibility push(hidden)

typedef struct {
	uint32_t job_id, array_job_id, array_task_id;
	bitstr_t *chosen, *candidates;
	char *record; /* NULL until _settle made it */
	char *extra;
	/* fabricfit's placement, in hosts of the engine of generation `generation` */
	unsigned generation;
	int *hosts;
	unsigned nhosts;
	ff_request_t request; /* what it was placed for (GPUs, pattern) */
	bool pattern_known;   /* Slurm placed it: request.pattern is known */
	/* What the record is made from: the free and total GPUs per fabric host before the
	 * job (fabricfit placed it), or the reason Slurm placed it (reason set). */
	int *free_gpus, *total_gpus_of;
	unsigned host_count;
	char *reason;
	/* Among the running jobs already (ffg_record_count_started, under the job lock). */
	bool counted;
	/* _settle found no record to make: not fabricfit's placement after all. */
	bool unplaced;
} note_t;

struct ffg_records {
	pthread_mutex_t lock;
	/* Under lock: */
	bool open; /* notes are taken: the housekeeper writes them */
	note_t *notes;
	int note_count, note_slots;
	/* The notes the writer took and has not yet committed (their allocations may be
	 * this pass's). */
	note_t *taken;
	int taken_count;
};

extern void ffg_note_free(note_t *n);
/* The note's job if the decision became its allocation, else NULL (job lock held). */
extern job_record_t *ffg_note_allocated_job(const note_t *n);
/*
 * A split allocation joins the running jobs the locality wait and the steering price
 * beside (engine_lock held).
 */
extern void ffg_note_count_locked(ffg_ctx_t *ctx, const note_t *n, job_record_t *job_ptr);

#pragma GCC visibility pop

#endif
