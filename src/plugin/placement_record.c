/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Placement records written for the evaluation that allocated a job (placement_record.h). */

#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/interfaces/accounting_storage.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "fabricfit_api.h"
#include "placement_record.h"
#include "topology_wait.h"
#include "topology_glue_internal.h"

/*
 * scontrol loads this plugin too (scontrol show topology), and a client has no slurmctld
 * data symbols: a strong reference would make its dlopen fail. Functions bind lazily.
 */
#pragma weak last_job_update
#pragma weak acct_db_conn
#pragma weak job_list
#pragma weak slurmctld_config

/* Decisions waiting to be matched with an allocation; at most this many. */
#define MAX_NOTES 4096
/*
 * Seconds between saves of the run-time history, when something was learnt: the pace of
 * the scans of the job list (placement/running_scan.hpp). Slurm runs no plugin fini at a
 * reconfigure's re-exec nor at a shutdown, so what the new slurmctld reads is what was saved here,
 * and once more when the thread sees the shutdown (a re-exec sets shutdown_time too) and never
 * after it.
 */
#define HISTORY_SAVE_INTERVAL 10

typedef struct {
	uint32_t job_id, array_job_id, array_task_id;
	bitstr_t *chosen, *candidates;
	char *record; /* NULL until _settle made it */
	char *extra;
	/* fabricfit's placement, in hosts of the engine of generation `generation` */
	unsigned generation;
	int *hosts;
	unsigned nhosts, gpus_per_node, total_gpus;
	char *pattern;
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

static pthread_mutex_t note_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stop_cond = PTHREAD_COND_INITIALIZER;
static pthread_t writer;
static bool running = false, stopping = false;
/* Under note_lock: */
static note_t *notes = NULL;
static int note_count = 0, note_slots = 0;
/* The notes the writer took and has not yet committed (their allocations may be this pass's). */
static note_t *taken = NULL;
static int taken_count = 0;

static void _free_note(note_t *n)
{
	FREE_NULL_BITMAP(n->chosen);
	FREE_NULL_BITMAP(n->candidates);
	xfree(n->record);
	xfree(n->free_gpus);
	xfree(n->total_gpus_of);
	xfree(n->reason);
	xfree(n->extra);
	xfree(n->hosts);
	xfree(n->pattern);
	n->nhosts = 0;
	n->counted = n->unplaced = false;
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

extern void ffg_record_note(job_record_t *job_ptr, ffg_decision_t *d)
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
		/*
		 * Grown as needed: eval_nodes runs under the scheduler's locks, and a batch is
		 * mostly a note or two; an array for MAX_NOTES at once would be an mmap of
		 * hundreds of KiB, and its munmap, per batch.
		 */
		if (note_count == note_slots) {
			note_slots = note_slots ? MIN(2 * note_slots, MAX_NOTES) : 16;
			xrecalloc(notes, note_slots, sizeof(*notes));
		}
		n = &notes[note_count++];
	} else {
		_free_note(n);
	}
	n->job_id = job_ptr->job_id;
	n->array_job_id = job_ptr->array_job_id;
	n->array_task_id = job_ptr->array_task_id;
	n->chosen = d->chosen;
	n->candidates = d->candidates;
	d->chosen = d->candidates = NULL;
	n->extra = xstrdup(d->extra);
	if (d->request && d->hosts && d->nhosts) {
		n->generation = engine_generation;
		n->hosts = _copy_ints(d->hosts, d->nhosts);
		n->nhosts = d->nhosts;
		n->gpus_per_node = d->request->gpus_per_node;
		n->total_gpus = d->request->total_gpus;
		n->pattern = xstrdup(d->request->pattern);
		n->free_gpus = _copy_ints(d->free_gpus, d->host_count);
		n->total_gpus_of = _copy_ints(d->total_gpus, d->host_count);
		n->host_count = d->host_count;
	} else {
		n->pattern = xstrdup(d->pattern);
		n->reason = xstrdup(d->reason && d->reason[0] ? d->reason
				    : d->request	      ? "a record needs hosts"
							      : "unknown");
	}
	/* No wake-up: the writer comes by itself (see _write_records). */
	slurm_mutex_unlock(&note_lock);
}

/*
 * The note's placement record, made once (engine_lock held, for reading at least). The
 * engine is the one the decision was made with: one that replaces it settles the notes
 * first (ffg_record_settle).
 */
static void _settle(note_t *n)
{
	char record[4096] = "", err[512] = "";
	const char *reason = n->reason;

	if (n->record)
		return;
	if (!reason) {
		ff_request_t req = {.gpus_per_node = n->gpus_per_node,
				    .total_gpus = n->total_gpus,
				    .pattern = n->pattern};
		/* Not expected: a new engine settles the notes made with the old one first. */
		if (!engine || engine_generation != n->generation)
			reason = "the fabric snapshot changed before the record was made";
		else if (ff_engine_job_record(engine, &req, n->hosts, n->nhosts, n->free_gpus,
					      n->total_gpus_of, record, sizeof(record), err,
					      sizeof(err)) == FF_OK) {
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
	if (ff_engine_record(NULL, NULL, NULL, 0, NULL, NULL, n->pattern, reason, record,
			     sizeof(record), err, sizeof(err)) == FF_OK)
		n->record = xstrdup(record);
	else
		error("fabricfit: no placement record for JobId=%u: %s", n->job_id, err);
}

extern void ffg_record_settle(void)
{
	slurm_mutex_lock(&note_lock);
	for (int i = 0; i < note_count; i++)
		_settle(&notes[i]);
	slurm_mutex_unlock(&note_lock);
}

/*
 * A split allocation joins the running jobs the locality wait and the steering price
 * beside (engine_lock held).
 */
static void _add_running_locked(const note_t *n, job_record_t *job_ptr)
{
	ff_request_t req = {
	    .gpus_per_node = n->gpus_per_node, .total_gpus = n->total_gpus, .pattern = n->pattern};
	char err[256] = "";

	if (engine && engine_generation == n->generation &&
	    ff_engine_running_add(engine, job_ptr->job_id, &req, n->hosts, n->nhosts, err,
				  sizeof(err)) != FF_OK)
		debug("fabricfit: Placement: %pJ is not counted among the running jobs: %s",
		      job_ptr, err);
}

/* The writer's: unless an evaluation of the same pass counted it already. */
static void _add_running(note_t *n, job_record_t *job_ptr)
{
	if (n->nhosts < 2 || n->unplaced || n->counted || !IS_JOB_RUNNING(job_ptr))
		return;
	pthread_rwlock_rdlock(&engine_lock);
	_add_running_locked(n, job_ptr);
	pthread_rwlock_unlock(&engine_lock);
}

/* The names of a node bitmap of this node table ("(node table changed)" otherwise). */
static char *_names(bitstr_t *nodes)
{
	if (!nodes || bit_size(nodes) != node_record_count)
		return xstrdup("(node table changed)");
	return bitmap2node_name(nodes);
}

/* The note's job if the decision became its allocation, else NULL (job lock held). */
static job_record_t *_allocated_job(const note_t *n)
{
	job_record_t *job_ptr = (n->array_task_id != NO_VAL)
				    ? find_job_array_rec(n->array_job_id, n->array_task_id)
				    : find_job_record(n->job_id);

	if (!job_ptr || IS_JOB_PENDING(job_ptr) || !job_ptr->node_bitmap ||
	    !bit_equal(job_ptr->node_bitmap, n->chosen))
		return NULL;
	return job_ptr;
}

/*
 * Counts the note's split job among the running ones if it was allocated (job lock,
 * engine_lock and note_lock held). Reads only what the note was made with: the writer
 * may be settling it at the same time (record, unplaced).
 */
static void _count_if_started(note_t *n)
{
	job_record_t *job_ptr;

	if (n->counted || n->nhosts < 2 || !(job_ptr = _allocated_job(n)) ||
	    !IS_JOB_RUNNING(job_ptr))
		return;
	_add_running_locked(n, job_ptr);
	n->counted = true;
}

extern void ffg_record_count_started(void)
{
	pthread_rwlock_rdlock(&engine_lock); /* the writer's order: engine, then notes */
	slurm_mutex_lock(&note_lock);
	for (int i = 0; i < taken_count; i++)
		_count_if_started(&taken[i]);
	for (int i = 0; i < note_count; i++)
		_count_if_started(&notes[i]);
	slurm_mutex_unlock(&note_lock);
	pthread_rwlock_unlock(&engine_lock);
}

/* Writes a decision if its job runs on the nodes it chose (job write lock held). */
static void _commit(note_t *n)
{
	job_record_t *job_ptr = _allocated_job(n);
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
	_add_running(n, job_ptr);
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

static int _job_runs(void *ctx, uint32_t job_id)
{
	job_record_t *job_ptr = find_job_record(job_id);

	(void)ctx;
	return job_ptr && IS_JOB_RUNNING(job_ptr);
}

/* Running jobs that ended leave the locality wait's count (job read lock held). */
static void _prune_running(void)
{
	char err[256] = "";

	pthread_rwlock_rdlock(&engine_lock);
	if (engine && ff_engine_running_prune(engine, _job_runs, NULL, err, sizeof(err)) != FF_OK)
		error("fabricfit: a job stays among the running jobs the locality wait counts: %s",
		      err);
	pthread_rwlock_unlock(&engine_lock);
}

/* The writer thread's scans of the job list (ff_running_scan_*); NULL without memory. */
static ff_running_scan_t *scan = NULL;

/* slurmctld is shutting down: its job list may be freed without locks (MEMORY_LEAK_DEBUG). */
static bool _shutting_down(void)
{
	return &slurmctld_config && slurmctld_config.shutdown_time;
}

/*
 * A running multi-host job joins the locality wait's count: its GPUs as it asked for them
 * on the nodes it got (AllocTRES has GPUs only where accounting tracks gres/gpu), and its
 * pattern (engine_lock read, job and node read locks held).
 */
static bool _count_running(job_record_t *job_ptr)
{
	ff_job_facts_t facts;
	ff_request_t req = {0};
	char pattern[FF_PATTERN_MAX] = "", err[256] = "";
	int *hosts = xcalloc(bit_set_count(job_ptr->node_bitmap), sizeof(int));
	unsigned n = 0;
	bool counted = false;

	for (int i = 0; (i = bit_ffs_from_bit(job_ptr->node_bitmap, i)) >= 0; i++) {
		int h = (i < mapped_node_count && ffg_slot_current(i)) ? host_of_node[i] : -1;
		if (h < 0) {
			/* a node outside the fabric: its traffic is not modelled */
			node_record_t *node_ptr = node_record_table_ptr[i];
			debug("fabricfit: Placement: %pJ is not counted among the running jobs: "
			      "%s is not in the fabric",
			      job_ptr, node_ptr && node_ptr->name ? node_ptr->name : "a node");
			goto done;
		}
		hosts[n++] = h;
	}
	ffg_job_facts(job_ptr, n, n, n, &facts);
	/* Shapes fabricfit leaves Slurm to place (-w, --contiguous, ...) still load the uplinks. */
	facts.required_nodes = facts.contiguous = facts.spread_job = facts.exclusive_topo = 0;
	if (ff_job_request(&facts, &req, err, sizeof(err)) != FF_OK) {
		/* not a GPU job, or GPUs per socket or task in a shape not priced */
		debug("fabricfit: Placement: %pJ is not counted among the running jobs: %s",
		      job_ptr, err);
		goto done;
	}
	ff_job_pattern(ffg_job_pattern(job_ptr), n, &settings, pattern, sizeof(pattern));
	req.pattern = pattern;
	if (!(counted = ff_engine_running_add(engine, job_ptr->job_id, &req, hosts, n, err,
					      sizeof(err)) == FF_OK))
		debug("fabricfit: Placement: %pJ is not counted among the running jobs: %s",
		      job_ptr, err);
done:
	xfree(hosts);
	return counted;
}

/*
 * Jobs the count has not seen (ff_running_scan_*: after a restart, a reconfigure or a new
 * snapshot, and jobs Slurm placed itself): job and node read locks held.
 */
static void _scan_running(void)
{
	time_t now = time(NULL);
	int count = 0, slots, counted = 0, fresh = 0, running = 0;
	char err[256] = "";
	list_itr_t *it;
	job_record_t *job;

	if (!&job_list || !job_list)
		return;
	pthread_rwlock_rdlock(&engine_lock);
	if (!engine || !ff_running_scan_due(scan, engine_generation, now)) {
		pthread_rwlock_unlock(&engine_lock);
		return;
	}
	if (!ffg_map_current()) {
		/* Until an evaluation maps Slurm's changed node table: try again later. */
		ff_running_scan_postpone(scan, now);
		pthread_rwlock_unlock(&engine_lock);
		return;
	}
	if (ff_running_scan_start(scan, engine, engine_generation, now, err, sizeof(err)) !=
	    FF_OK) {
		error("fabricfit: no scan of the running jobs: %s", err);
		pthread_rwlock_unlock(&engine_lock);
		return;
	}
	slots = list_count(job_list);
	it = list_iterator_create(job_list);
	while ((job = list_next(it)) && count < slots) {
		ffg_wait_learn(job);
		if (!IS_JOB_RUNNING(job) || !job->node_bitmap ||
		    bit_set_count(job->node_bitmap) < 2)
			continue;
		count++;
		if (ff_running_scan_should_count(scan, job->job_id, (long)job->start_time) &&
		    _count_running(job))
			counted++;
	}
	list_iterator_destroy(it);
	if (ff_running_scan_finish(scan, engine, &fresh, &running, err, sizeof(err)) != FF_OK)
		error("fabricfit: the scan of the running jobs did not finish: %s", err);
	if (fresh && running)
		info("fabricfit: locality wait: %d of the %d jobs running on several nodes counted "
		     "from Slurm's job list (a new snapshot, restart or reconfigure)",
		     counted, running);
	else if (counted)
		debug("fabricfit: Placement: %d more running multi-host jobs counted", counted);
	pthread_rwlock_unlock(&engine_lock);
}

/* A scan of the job list is due (ff_running_scan_due). */
static bool _scan_due(void)
{
	bool due;

	pthread_rwlock_rdlock(&engine_lock);
	due = engine && ff_running_scan_due(scan, engine_generation, time(NULL));
	pthread_rwlock_unlock(&engine_lock);
	return due;
}

static bool _any_running(void)
{
	bool any;

	pthread_rwlock_rdlock(&engine_lock);
	any = engine && ff_engine_running_jobs(engine, NULL, 0) > 0;
	pthread_rwlock_unlock(&engine_lock);
	return any;
}

/*
 * Forget the running jobs that ended, count the new ones (slurmctld's locks not held);
 * nothing once a shutdown or reconfigure has begun (checked under the lock).
 */
static void _recount(void)
{
	slurmctld_lock_t job_read = {.job = READ_LOCK, .node = READ_LOCK};

	lock_slurmctld(job_read);
	if (!_shutting_down()) {
		_prune_running();
		_scan_running();
	}
	unlock_slurmctld(job_read);
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

/* `ms` milliseconds after now, for pthread_cond_timedwait. */
static struct timespec _after_ms(long ms)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000 * 1000;
	if (t.tv_nsec >= 1000 * 1000 * 1000) {
		t.tv_sec++;
		t.tv_nsec -= 1000 * 1000 * 1000;
	}
	return t;
}

/*
 * Four rounds a second, woken by the clock and never by eval_nodes: a note is posted from
 * inside a scheduling cycle, and a writer woken then queues on the job write lock and is
 * handed it the instant the cycle unlocks, which can preempt the scheduler thread before it
 * stops sdiag's cycle timer. Polled, the writer meets a cycle only by chance. (The lab
 * window did not show sdiag's main cycle moving with this: docs/performance.md.)
 */
static void *_write_records(void *arg)
{
	/* The locks eval_nodes runs under: its allocation is settled once we hold them. */
	slurmctld_lock_t job_write = {.job = WRITE_LOCK, .node = READ_LOCK};
	time_t last_recount = 0, last_save = time(NULL), kicked = 0, wait_end;
	bool saved_at_shutdown = false;

	(void)arg;
	slurm_mutex_lock(&note_lock);
	while (!stopping) {
		struct timespec until = _after_ms(250);
		note_t *batch = NULL;
		int count = 0;
		time_t now;

		pthread_cond_timedwait(&stop_cond, &note_lock, &until);
		if (stopping)
			break;
		count = note_count;
		slurm_mutex_unlock(&note_lock);
		if (count) {
			/*
			 * The engine before the notes: one that replaces it settles the notes
			 * still waiting first, so those taken here were made with this one.
			 */
			pthread_rwlock_rdlock(&engine_lock);
			slurm_mutex_lock(&note_lock);
			batch = taken = notes;
			count = taken_count = note_count;
			notes = NULL;
			note_count = note_slots = 0;
			slurm_mutex_unlock(&note_lock);
			for (int i = 0; i < count; i++)
				_settle(&batch[i]);
			pthread_rwlock_unlock(&engine_lock);
		}

		if (count) {
			lock_slurmctld(job_write);
			/*
			 * Once a shutdown or reconfigure has begun, slurmctld unloads the
			 * accounting plugin (a late end record would call into it) and may
			 * free the job list without locks: the records still waiting are
			 * dropped, and said so.
			 */
			if (_shutting_down())
				_drop(batch, count);
			else
				for (int i = 0; i < count; i++)
					_commit(&batch[i]);
			/* Before the job lock goes: no evaluation counts them again. */
			slurm_mutex_lock(&note_lock);
			taken = NULL;
			taken_count = 0;
			slurm_mutex_unlock(&note_lock);
			unlock_slurmctld(job_write);
			for (int i = 0; i < count; i++)
				_free_note(&batch[i]);
			xfree(batch);
		}
		now = time(NULL);
		wait_end = ffg_wait_next_end();
		if (wait_end && now >= wait_end && wait_end != kicked) {
			/* Its job is decided again at once, not at the next periodic pass. */
			debug("fabricfit: a locality wait ended: scheduling");
			queue_job_scheduler();
			kicked = wait_end;
		}
		if (_shutting_down()) {
			/* Last save before a re-exec or exit; none after (the new slurmctld's). */
			if (!saved_at_shutdown)
				ffg_wait_save();
			saved_at_shutdown = true;
		} else if (now < last_save || now >= last_save + HISTORY_SAVE_INTERVAL) {
			last_save = now;
			saved_at_shutdown = false;
			ffg_wait_save();
		}
		/* Once a second: forget the running jobs that ended, count new ones. */
		if (now != last_recount && (_any_running() || _scan_due())) {
			last_recount = now;
			_recount();
		}
		slurm_mutex_lock(&note_lock);
	}
	slurm_mutex_unlock(&note_lock);
	return NULL;
}

extern void ffg_record_start(void)
{
	slurm_mutex_lock(&note_lock);
	if (!running) {
		stopping = false;
		if (!scan && !(scan = ff_running_scan_new()))
			error("fabricfit: no memory for the scans of the running jobs: jobs Slurm "
			      "placed are not counted by the locality wait");
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
	pthread_cond_broadcast(&stop_cond);
	slurm_mutex_unlock(&note_lock);
	if (join)
		pthread_join(writer, NULL);
	slurm_mutex_lock(&note_lock);
	running = false;
	for (int i = 0; i < note_count; i++)
		_free_note(&notes[i]);
	xfree(notes);
	note_count = note_slots = 0;
	slurm_mutex_unlock(&note_lock);
	ff_running_scan_free(scan);
	scan = NULL;
}
