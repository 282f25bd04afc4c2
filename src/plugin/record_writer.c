/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The placement records written, by the housekeeper, for the notes whose decision became
 * the job's allocation (placement_record.h): the record in the job's AdminComment and the
 * controller's one info line per job.
 */

#include "config.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/interfaces/accounting_storage.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "fabricfit_api.h"
#include "record_notes.h"

/*
 * scontrol loads this plugin too (scontrol show topology), and a client has no slurmctld
 * data symbols: a strong reference would make its dlopen fail. Functions bind lazily.
 */
#pragma weak last_job_update
#pragma weak acct_db_conn
#pragma weak slurmctld_config

/*
 * The note's placement record, made once (engine_lock held, for reading at least). The
 * engine is the one the decision was made with: one that replaces it settles the notes
 * first (ffg_record_settle).
 */
static void _settle(ffg_ctx_t *ctx, note_t *n)
{
	char record[4096] = "", err[512] = "";
	const char *reason = n->reason;

	if (n->record)
		return;
	if (!reason) {
		/* Not expected: a new engine settles the notes made with the old one first. */
		if (!ctx->engine || ctx->engine_generation != n->generation)
			reason = "the fabric snapshot changed before the record was made";
		else if (ff_engine_job_record(ctx->engine, &n->request, n->hosts, n->nhosts,
					      n->free_gpus, n->total_gpus_of, record,
					      sizeof(record), err, sizeof(err)) == FF_OK) {
			n->record = xstrdup(record);
			return;
		} else
			reason = err[0] ? err : "no record";
		/*
		 * Not fabricfit's placement after all: the writer does not count it (an
		 * evaluation may have, from the note, as the scan of the job list would).
		 */
		n->unplaced = true;
	}
	if (ff_engine_record(NULL, NULL, NULL, 0, NULL, NULL,
			     n->pattern_known ? &n->request.pattern : NULL, reason, record,
			     sizeof(record), err, sizeof(err)) == FF_OK)
		n->record = xstrdup(record);
	else
		error("fabricfit: no placement record for JobId=%u: %s", n->job_id, err);
}

extern void ffg_record_settle(ffg_ctx_t *ctx)
{
	ffg_records_t *r = ctx->records;

	if (!r)
		return;
	slurm_mutex_lock(&r->lock);
	for (int i = 0; i < r->note_count; i++)
		_settle(ctx, &r->notes[i]);
	slurm_mutex_unlock(&r->lock);
}

/* The writer's: unless an evaluation of the same pass counted it already. */
static void _add_running(ffg_ctx_t *ctx, note_t *n, job_record_t *job_ptr)
{
	if (n->nhosts < 2 || n->unplaced || n->counted || !IS_JOB_RUNNING(job_ptr))
		return;
	pthread_rwlock_rdlock(&ctx->engine_lock);
	ffg_note_count_locked(ctx, n, job_ptr);
	pthread_rwlock_unlock(&ctx->engine_lock);
}

/* The names of a node bitmap of this node table ("(node table changed)" otherwise). */
static char *_names(bitstr_t *nodes)
{
	if (!nodes || bit_size(nodes) != node_record_count)
		return xstrdup("(node table changed)");
	return bitmap2node_name(nodes);
}

/* Writes a decision if its job runs on the nodes it chose (job write lock held). */
static void _commit(ffg_ctx_t *ctx, note_t *n)
{
	job_record_t *job_ptr = ffg_note_allocated_job(n);
	size_t len;
	char *merged, *candidates;
	const char *body = n->record;

	if (!job_ptr) {
		if (get_log_level() >= LOG_LEVEL_DEBUG) {
			char *chosen = _names(n->chosen);
			debug("fabricfit: Placement: JobId=%u: the decision for %s was not the "
			      "allocation",
			      n->job_id, chosen);
			xfree(chosen);
		}
		return;
	}
	if (!body)
		return; /* no record could be made (logged) */
	if (!strncmp(body, "fabricfit ", 10))
		body += 10;
	_add_running(ctx, n, job_ptr);
	candidates = _names(n->candidates);
	info("fabricfit: eval_nodes %pJ candidates=%s chosen=%s rc=0 %s%s", job_ptr, candidates,
	     job_ptr->nodes, body, n->extra);
	xfree(candidates);
	len = strlen(n->record) + (job_ptr->admin_comment ? strlen(job_ptr->admin_comment) : 0) + 3;
	merged = xmalloc(len);
	if (ff_admin_comment_merge(job_ptr->admin_comment, n->record, merged, len) == FF_OK) {
		xfree(job_ptr->admin_comment);
		job_ptr->admin_comment = merged;
		/* Saved with the job state; accounting gets it with the job's end record. */
		if (&last_job_update)
			last_job_update = time(NULL);
		/*
		 * A job shorter than this thread's round has ended, and its end record gone
		 * to accounting, before its record was written: send the end record again (an
		 * update of the same row in slurmdbd) so that sacct shows the record too.
		 */
		if (IS_JOB_FINISHED(job_ptr) && &acct_db_conn)
			jobacct_storage_g_job_complete(acct_db_conn, job_ptr);
	} else {
		xfree(merged);
	}
}

/* slurmctld is shutting down: its job list may be freed without locks (MEMORY_LEAK_DEBUG). */
extern bool ffg_shutting_down(void)
{
	return &slurmctld_config && slurmctld_config.shutdown_time;
}

/* The records a shutdown or reconfigure leaves unwritten, named in one line. */
static void _drop(const note_t *batch, int count)
{
	char *ids = NULL, *pos = NULL;

	for (int i = 0; i < count && i < 20; i++)
		xstrfmtcatat(ids, &pos, "%s%u", i ? "," : "", batch[i].job_id);
	info("fabricfit: slurmctld is shutting down or reconfiguring: %d placement records are "
	     "not written (JobId=%s%s)",
	     count, ids, count > 20 ? ",..." : "");
	xfree(ids);
}

/*
 * One round of the housekeeper's (slurmctld's locks not held): the notes made since the
 * last round are settled with the engine they were made with, then, under the locks
 * eval_nodes runs under (its allocation is settled once we hold them), written for the
 * decisions that became allocations.
 */
extern void ffg_records_round(ffg_ctx_t *ctx)
{
	slurmctld_lock_t job_write = {.job = WRITE_LOCK, .node = READ_LOCK};
	ffg_records_t *r = ctx->records;
	note_t *batch;
	int count;

	slurm_mutex_lock(&r->lock);
	count = r->note_count;
	slurm_mutex_unlock(&r->lock);
	if (!count)
		return;
	/*
	 * The engine before the notes: one that replaces it settles the notes still waiting
	 * first, so those taken here were made with this one.
	 */
	pthread_rwlock_rdlock(&ctx->engine_lock);
	slurm_mutex_lock(&r->lock);
	batch = r->taken = r->notes;
	count = r->taken_count = r->note_count;
	r->notes = NULL;
	r->note_count = r->note_slots = 0;
	slurm_mutex_unlock(&r->lock);
	for (int i = 0; i < count; i++)
		_settle(ctx, &batch[i]);
	pthread_rwlock_unlock(&ctx->engine_lock);

	lock_slurmctld(job_write);
	/*
	 * Once a shutdown or reconfigure has begun, slurmctld unloads the accounting plugin (a
	 * late end record would call into it) and may free the job list without locks: the
	 * records still waiting are dropped, and said so.
	 */
	if (ffg_shutting_down())
		_drop(batch, count);
	else
		for (int i = 0; i < count; i++)
			_commit(ctx, &batch[i]);
	/* Before the job lock goes: no evaluation counts them again. */
	slurm_mutex_lock(&r->lock);
	r->taken = NULL;
	r->taken_count = 0;
	slurm_mutex_unlock(&r->lock);
	unlock_slurmctld(job_write);
	for (int i = 0; i < count; i++)
		ffg_note_free(&batch[i]);
	xfree(batch);
}
