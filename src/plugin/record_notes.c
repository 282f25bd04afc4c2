/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The decisions of the evaluations that may allocate a job, noted for their placement
 * records (placement_record.h), and the split jobs among them that started in the same
 * scheduling pass counted at once.
 */

#include "config.h"

#include <pthread.h>
#include <string.h>

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "fabricfit_api.h"
#include "record_notes.h"

/* Decisions waiting to be matched with an allocation; at most this many. */
#define MAX_NOTES 4096

extern ffg_records_t *ffg_records_new(void)
{
	ffg_records_t *r = xmalloc(sizeof(*r));

	slurm_mutex_init(&r->lock);
	return r;
}

/* Notes are taken from now on (slurmctld, once the housekeeper runs). */
extern void ffg_records_open(ffg_records_t *r)
{
	slurm_mutex_lock(&r->lock);
	r->open = true;
	slurm_mutex_unlock(&r->lock);
}

/* Only at slurmctld's end (fini), once the housekeeper has stopped. */
extern void ffg_records_free(ffg_records_t *r)
{
	if (!r)
		return;
	slurm_mutex_lock(&r->lock);
	r->open = false;
	for (int i = 0; i < r->note_count; i++)
		ffg_note_free(&r->notes[i]);
	xfree(r->notes);
	r->note_count = r->note_slots = 0;
	slurm_mutex_unlock(&r->lock);
	slurm_mutex_destroy(&r->lock);
	xfree(r);
}
extern void ffg_note_free(note_t *n)
{
	FREE_NULL_BITMAP(n->chosen);
	FREE_NULL_BITMAP(n->candidates);
	xfree(n->record);
	xfree(n->free_gpus);
	xfree(n->total_gpus_of);
	xfree(n->reason);
	xfree(n->extra);
	xfree(n->hosts);
	n->nhosts = 0;
	n->request = (ff_request_t){0};
	n->counted = n->unplaced = n->pattern_known = false;
}

static bool _same_job(const note_t *n, job_record_t *job_ptr)
{
	if (job_ptr->array_task_id != NO_VAL)
		return n->array_job_id == job_ptr->array_job_id &&
		       n->array_task_id == job_ptr->array_task_id;
	return n->array_task_id == NO_VAL && n->job_id == job_ptr->job_id;
}

static int *_copy_ints(const int *from, unsigned count)
{
	int *to;

	if (!from || !count)
		return NULL;
	to = xcalloc(count, sizeof(int));
	memcpy(to, from, count * sizeof(int));
	return to;
}

extern void ffg_record_note(ffg_ctx_t *ctx, job_record_t *job_ptr, ffg_decision_t *d)
{
	ffg_records_t *r = ctx->records;
	note_t *n = NULL;

	slurm_mutex_lock(&r->lock);
	if (!r->open) {
		slurm_mutex_unlock(&r->lock);
		return;
	}
	for (int i = 0; i < r->note_count && !n; i++)
		if (_same_job(&r->notes[i], job_ptr))
			n = &r->notes[i];
	if (!n && r->note_count >= MAX_NOTES) {
		slurm_mutex_unlock(&r->lock);
		error("fabricfit: %d placement records wait to be written; %pJ gets none",
		      MAX_NOTES, job_ptr);
		return;
	}
	if (!n) {
		/*
		 * Grown as needed: eval_nodes runs under the scheduler's locks, and a batch is
		 * mostly a note or two; an array for MAX_NOTES at once would be an mmap of
		 * hundreds of KiB, and its munmap, per batch.
		 */
		if (r->note_count == r->note_slots) {
			r->note_slots = r->note_slots ? MIN(2 * r->note_slots, MAX_NOTES) : 16;
			xrecalloc(r->notes, r->note_slots, sizeof(*r->notes));
		}
		n = &r->notes[r->note_count++];
	} else {
		ffg_note_free(n);
	}
	n->job_id = job_ptr->job_id;
	n->array_job_id = job_ptr->array_job_id;
	n->array_task_id = job_ptr->array_task_id;
	n->chosen = d->chosen;
	n->candidates = d->candidates;
	d->chosen = d->candidates = NULL;
	n->extra = xstrdup(d->extra);
	if (d->request && d->hosts && d->nhosts) {
		n->generation = ctx->engine_generation;
		n->hosts = _copy_ints(d->hosts, d->nhosts);
		n->nhosts = d->nhosts;
		n->request = *d->request;
		n->pattern_known = true;
		n->free_gpus = _copy_ints(d->free_gpus, d->host_count);
		n->total_gpus_of = _copy_ints(d->total_gpus, d->host_count);
		n->host_count = d->host_count;
	} else {
		if ((n->pattern_known = d->pattern != NULL))
			n->request.pattern = *d->pattern;
		n->reason = xstrdup(d->reason && d->reason[0] ? d->reason
				    : d->request	      ? "a record needs hosts"
							      : "unknown");
	}
	/* No wake-up: the writer comes by itself (see _write_records). */
	slurm_mutex_unlock(&r->lock);
}

extern job_record_t *ffg_note_allocated_job(const note_t *n)
{
	job_record_t *job_ptr = (n->array_task_id != NO_VAL)
				    ? find_job_array_rec(n->array_job_id, n->array_task_id)
				    : find_job_record(n->job_id);

	if (!job_ptr || IS_JOB_PENDING(job_ptr) || !job_ptr->node_bitmap ||
	    !bit_equal(job_ptr->node_bitmap, n->chosen))
		return NULL;
	return job_ptr;
}

extern void ffg_note_count_locked(ffg_ctx_t *ctx, const note_t *n, job_record_t *job_ptr)
{
	char err[256] = "";

	if (ctx->engine && ctx->engine_generation == n->generation &&
	    ff_engine_running_add(ctx->engine, job_ptr->job_id, &n->request, n->hosts, n->nhosts,
				  err, sizeof(err)) != FF_OK)
		debug("fabricfit: Placement: %pJ is not counted among the running jobs: %s",
		      job_ptr, err);
}

/*
 * Counts the note's split job among the running ones if it was allocated (job lock,
 * engine_lock and note_lock held). Reads only what the note was made with: the writer
 * may be settling it at the same time (record, unplaced).
 */
static void _count_if_started(ffg_ctx_t *ctx, note_t *n)
{
	job_record_t *job_ptr;

	if (n->counted || n->nhosts < 2 || !(job_ptr = ffg_note_allocated_job(n)) ||
	    !IS_JOB_RUNNING(job_ptr))
		return;
	ffg_note_count_locked(ctx, n, job_ptr);
	n->counted = true;
}

extern void ffg_record_count_started(ffg_ctx_t *ctx)
{
	ffg_records_t *r = ctx->records;

	if (!r)
		return;
	pthread_rwlock_rdlock(&ctx->engine_lock); /* the writer's order: engine, then notes */
	slurm_mutex_lock(&r->lock);
	for (int i = 0; i < r->taken_count; i++)
		_count_if_started(ctx, &r->taken[i]);
	for (int i = 0; i < r->note_count; i++)
		_count_if_started(ctx, &r->notes[i]);
	slurm_mutex_unlock(&r->lock);
	pthread_rwlock_unlock(&ctx->engine_lock);
}
