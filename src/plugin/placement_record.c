/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Placement records written for the evaluation that allocated a job (placement_record.h). */

#include "config.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/interfaces/accounting_storage.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "fabricfit_api.h"
#include "placement_record.h"
#include "topology_glue_internal.h"

/*
 * scontrol loads this plugin too (scontrol show topology), and a client has no slurmctld
 * data symbols: a strong reference would make its dlopen fail. Functions bind lazily.
 */
#pragma weak last_job_update
#pragma weak acct_db_conn

/* Decisions waiting to be matched with an allocation; at most this many. */
#define MAX_NOTES 4096

typedef struct {
	uint32_t job_id, array_job_id, array_task_id;
	char *nodes, *candidates, *record, *extra;
	/* fabricfit's placement, in hosts of `engine_at` (NULL: none) */
	const ff_engine_t *engine_at;
	int *hosts;
	unsigned nhosts, gpus_per_node, total_gpus;
	char *pattern;
} note_t;

static pthread_mutex_t note_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t note_cond = PTHREAD_COND_INITIALIZER; /* a note came, or stop */
static pthread_cond_t stop_cond = PTHREAD_COND_INITIALIZER; /* stop only */
static pthread_t writer;
static bool running = false, stopping = false;
/* Under note_lock: */
static note_t *notes = NULL;
static int note_count = 0;

static void _free_note(note_t *n)
{
	xfree(n->nodes);
	xfree(n->candidates);
	xfree(n->record);
	xfree(n->extra);
	xfree(n->hosts);
	xfree(n->pattern);
	n->engine_at = NULL;
	n->nhosts = 0;
}

static bool _same_job(const note_t *n, job_record_t *job_ptr)
{
	if (job_ptr->array_task_id != NO_VAL)
		return n->array_job_id == job_ptr->array_job_id &&
		       n->array_task_id == job_ptr->array_task_id;
	return n->array_task_id == NO_VAL && n->job_id == job_ptr->job_id;
}

extern void ffg_record_note(job_record_t *job_ptr, const char *nodes, const char *candidates,
			    const char *record, const char *extra, const int *hosts,
			    unsigned nhosts, const ff_request_t *request)
{
	note_t *n = NULL;

	slurm_mutex_lock(&note_lock);
	if (!running) {
		slurm_mutex_unlock(&note_lock);
		return;
	}
	for (int i = 0; i < note_count && !n; i++)
		if (_same_job(&notes[i], job_ptr))
			n = &notes[i];
	if (!n && note_count >= MAX_NOTES) {
		slurm_mutex_unlock(&note_lock);
		error("fabricfit: %d placement records wait to be written; %pJ gets none",
		      MAX_NOTES, job_ptr);
		return;
	}
	if (!n) {
		if (!notes)
			notes = xcalloc(MAX_NOTES, sizeof(*notes));
		n = &notes[note_count++];
	} else {
		_free_note(n);
	}
	n->job_id = job_ptr->job_id;
	n->array_job_id = job_ptr->array_job_id;
	n->array_task_id = job_ptr->array_task_id;
	n->nodes = xstrdup(nodes);
	n->candidates = xstrdup(candidates);
	n->record = xstrdup(record);
	n->extra = xstrdup(extra);
	if (hosts && nhosts && request) {
		n->engine_at = engine;
		n->hosts = xcalloc(nhosts, sizeof(int));
		memcpy(n->hosts, hosts, nhosts * sizeof(int));
		n->nhosts = nhosts;
		n->gpus_per_node = request->gpus_per_node;
		n->total_gpus = request->total_gpus;
		n->pattern = xstrdup(request->pattern);
	}
	pthread_cond_signal(&note_cond);
	slurm_mutex_unlock(&note_lock);
}

/* A split allocation joins the running jobs the locality wait prices beside. */
static void _add_running(note_t *n, job_record_t *job_ptr)
{
	ff_request_t req = {0};
	char err[256] = "";

	if (n->nhosts < 2 || !IS_JOB_RUNNING(job_ptr))
		return;
	req.gpus_per_node = n->gpus_per_node;
	req.total_gpus = n->total_gpus;
	req.pattern = n->pattern;
	pthread_rwlock_rdlock(&engine_lock);
	if (engine && engine == n->engine_at &&
	    ff_engine_running_add(engine, job_ptr->job_id, &req, n->hosts, n->nhosts, err,
				  sizeof(err)) != FF_OK)
		debug("fabricfit: Placement: %pJ is not counted among the running jobs: %s",
		      job_ptr, err);
	pthread_rwlock_unlock(&engine_lock);
}

/* Writes a decision if its job runs on the nodes it chose (job write lock held). */
static void _commit(note_t *n)
{
	job_record_t *job_ptr = (n->array_task_id != NO_VAL)
				    ? find_job_array_rec(n->array_job_id, n->array_task_id)
				    : find_job_record(n->job_id);
	size_t len;
	char *merged;
	const char *body = n->record;

	if (!job_ptr || IS_JOB_PENDING(job_ptr) || xstrcmp(job_ptr->nodes, n->nodes)) {
		debug("fabricfit: Placement: JobId=%u: the decision for %s was not the allocation",
		      n->job_id, n->nodes);
		return;
	}
	if (!strncmp(body, "fabricfit ", 10))
		body += 10;
	_add_running(n, job_ptr);
	info("fabricfit: eval_nodes %pJ candidates=%s chosen=%s rc=0 %s%s", job_ptr, n->candidates,
	     n->nodes, body, n->extra);
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

/* Running jobs that ended leave the locality wait's count (job read lock held). */
static void _prune_running(void)
{
	uint32_t *ids;
	unsigned count, listed;

	pthread_rwlock_rdlock(&engine_lock);
	if (engine && (count = ff_engine_running_jobs(engine, NULL, 0))) {
		ids = xcalloc(count, sizeof(*ids));
		listed = MIN(count, ff_engine_running_jobs(engine, ids, count));
		for (unsigned i = 0; i < listed; i++) {
			job_record_t *job_ptr = find_job_record(ids[i]);
			if (!job_ptr || !IS_JOB_RUNNING(job_ptr))
				ff_engine_running_remove(engine, ids[i]);
		}
		xfree(ids);
	}
	pthread_rwlock_unlock(&engine_lock);
}

static bool _any_running(void)
{
	bool any;

	pthread_rwlock_rdlock(&engine_lock);
	any = engine && ff_engine_running_jobs(engine, NULL, 0) > 0;
	pthread_rwlock_unlock(&engine_lock);
	return any;
}

static void *_write_records(void *arg)
{
	/* The locks eval_nodes runs under: its allocation is settled once we hold them. */
	slurmctld_lock_t job_write = {.job = WRITE_LOCK, .node = READ_LOCK};
	slurmctld_lock_t job_read = {.job = READ_LOCK};

	(void)arg;
	slurm_mutex_lock(&note_lock);
	while (!stopping) {
		struct timespec until;
		note_t *batch;
		int count;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		if (!note_count)
			pthread_cond_timedwait(&note_cond, &note_lock, &until);
		if (stopping)
			continue;
		if (!note_count) {
			/* Once a second: forget the running jobs that ended. */
			slurm_mutex_unlock(&note_lock);
			if (_any_running()) {
				lock_slurmctld(job_read);
				_prune_running();
				unlock_slurmctld(job_read);
			}
			slurm_mutex_lock(&note_lock);
			continue;
		}
		batch = notes;
		count = note_count;
		notes = NULL;
		note_count = 0;
		slurm_mutex_unlock(&note_lock);

		lock_slurmctld(job_write);
		for (int i = 0; i < count; i++)
			_commit(&batch[i]);
		unlock_slurmctld(job_write);
		for (int i = 0; i < count; i++)
			_free_note(&batch[i]);
		xfree(batch);

		/* At most four rounds a second: the scheduler needs the locks more. */
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 250 * 1000 * 1000;
		if (until.tv_nsec >= 1000 * 1000 * 1000) {
			until.tv_sec++;
			until.tv_nsec -= 1000 * 1000 * 1000;
		}
		slurm_mutex_lock(&note_lock);
		if (!stopping)
			pthread_cond_timedwait(&stop_cond, &note_lock, &until);
	}
	slurm_mutex_unlock(&note_lock);
	return NULL;
}

extern void ffg_record_start(void)
{
	slurm_mutex_lock(&note_lock);
	if (!running) {
		stopping = false;
		if (pthread_create(&writer, NULL, _write_records, NULL) == 0)
			running = true;
		else
			error("fabricfit: cannot start the placement record writer: jobs get no "
			      "placement record");
	}
	slurm_mutex_unlock(&note_lock);
}

/* Only at slurmctld's end (fini), when no thread holds slurmctld's locks. */
extern void ffg_record_stop(void)
{
	bool join;

	slurm_mutex_lock(&note_lock);
	join = running;
	stopping = true;
	pthread_cond_broadcast(&note_cond);
	pthread_cond_broadcast(&stop_cond);
	slurm_mutex_unlock(&note_lock);
	if (join)
		pthread_join(writer, NULL);
	slurm_mutex_lock(&note_lock);
	running = false;
	for (int i = 0; i < note_count; i++)
		_free_note(&notes[i]);
	xfree(notes);
	note_count = 0;
	slurm_mutex_unlock(&note_lock);
}
