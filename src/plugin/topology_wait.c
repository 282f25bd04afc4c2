/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The adaptive locality wait in slurmctld (topology_wait.h). The decision is the core's
 * (ff_engine_wait_advice); this file gathers Slurm's facts for it (the job's time limit
 * and eligible time, the end times of the running jobs, the hosts the job may use) and
 * applies the answer the ways a topology plugin can:
 * - the job is kept pending as topology/tree keeps a --switches job: best_switch false
 *   after the evaluation, so cons_tres does not start it (main scheduler and backfill);
 * - its reason goes into state_desc. select_nodes() resets a job it could not start to
 *   WAIT_RESOURCES with no state_desc, so the text is written again by backfill's trial
 *   of the job and by every evaluation of another job (under the job write lock);
 * - the hosts it expects are taken from the candidates of the jobs ranked after it that
 *   would not end before the wait ends (backfill's own plan of the job reserves them too).
 * The waits live here in memory; what must survive a restart, when the wait began, is the
 * job's eligible time (details->begin_time) in its own record, so a restarted or
 * reconfigured slurmctld decides again from the same facts and never waits past the cap.
 */

#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/parse_time.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "topology_glue_internal.h"
#include "topology_wait.h"

/*
 * Data only slurmctld has: weak, so that clients (scontrol, srun), which load this plugin
 * too and never call these functions, resolve them to nothing instead of failing to load
 * it (functions bind lazily; data is resolved at load time).
 */
#pragma weak job_list
#pragma weak avail_node_bitmap
#pragma weak last_job_update

#define WAIT_DESC_PREFIX "Waiting for one leaf group"

typedef struct {
	uint32_t job_id;
	time_t until;	 /* the wait ends at the latest (expected time or cap) */
	time_t ready_at; /* when the hosts are expected */
	bitstr_t *nodes; /* the hosts it expects, as Slurm nodes: reserved */
	char *desc;	 /* its state_desc */
} wait_t;

static wait_t *waits = NULL;
static int nwaits = 0, wait_slots = 0;
static double *free_at = NULL; /* per fabric host: when its jobs reach their limits */
static int *placed = NULL, *expected = NULL;
static unsigned char *usable = NULL;
static int scratch_hosts = 0;
/* Lives as long as slurmctld, across engines; what it learnt is saved in
 * StateSaveLocation (HISTORY_FILE, by the record thread every 10 s when it learnt
 * something) and read back at a restart or reconfigure. */
static ff_predictor_t *predictor = NULL;
#define HISTORY_FILE "fabricfit.runtime-history"
static bool save_failed = false; /* the last save failed (logged once) */
/* Taken at init: the record thread saves without reading slurm_conf, which a reconfigure
 * replaces. NULL without a StateSaveLocation. */
static char *history_path = NULL;
/*
 * The earliest `until` of the waits (0: none). Nothing else asks slurmctld to schedule
 * when a wait ends, so the job would stay pending to the next periodic pass
 * (sched_interval, bf_interval: 60 s and 30 s by default). The record thread reads it
 * without slurmctld's locks (ffg_wait_ended); it is written under the job write lock.
 * A wait an evaluation drops at its end asks for the pass itself (_prune), since the
 * record thread may then never see its time.
 */
static time_t next_end = 0;

static void _note_next_end(void)
{
	time_t t = 0;

	for (int k = 0; k < nwaits; k++)
		if (!t || waits[k].until < t)
			t = waits[k].until;
	__atomic_store_n(&next_end, t, __ATOMIC_RELAXED);
}

static void _drop(int k)
{
	FREE_NULL_BITMAP(waits[k].nodes);
	xfree(waits[k].desc);
	waits[k] = waits[--nwaits];
	_note_next_end();
}

extern time_t ffg_wait_next_end(void)
{
	return __atomic_load_n(&next_end, __ATOMIC_RELAXED);
}

extern void ffg_wait_save(void)
{
	char err[512] = "";
	int written = 0;

	if (!predictor || !history_path)
		return;
	if (ff_predictor_save(predictor, history_path, &written, err, sizeof(err)) != FF_OK) {
		if (!save_failed)
			error(
			    "fabricfit: cannot save the run-time history: %s; a restart learns it "
			    "again from the jobs slurmctld holds",
			    err);
		save_failed = true;
	} else if (written) {
		if (save_failed)
			info("fabricfit: the run-time history is saved again in %s", history_path);
		save_failed = false;
	}
}

extern void ffg_wait_forget(void)
{
	ffg_wait_save();
	xfree(history_path);
	save_failed = false;
	while (nwaits)
		_drop(nwaits - 1);
	xfree(waits);
	wait_slots = 0;
	xfree(free_at);
	xfree(placed);
	xfree(expected);
	xfree(usable);
	scratch_hosts = 0;
	__atomic_store_n(&next_end, 0, __ATOMIC_RELAXED);
	ff_predictor_free(predictor);
	predictor = NULL;
}

extern void ffg_wait_init(void)
{
	char err[512] = "";
	unsigned jobs = 0;

	if (predictor)
		return;
	if (slurm_conf.state_save_location)
		xstrfmtcat(history_path, "%s/%s", slurm_conf.state_save_location, HISTORY_FILE);
	if (!(predictor = ff_predictor_new())) {
		error(
		    "fabricfit: no memory for the run-time predictor: LocalityWaitEstimate=history "
		    "takes time limits");
		return;
	}
	if (!history_path || (access(history_path, F_OK) && errno == ENOENT))
		return; /* nothing saved yet */
	if (ff_predictor_load(predictor, history_path, &jobs, err, sizeof(err)) == FF_OK)
		info("fabricfit: run-time history: %u finished jobs read from %s", jobs,
		     history_path);
	else
		error(
		    "fabricfit: the run-time history is not read: %s; it is learnt again from the "
		    "jobs slurmctld holds, and the file is replaced once a job is learnt",
		    err);
}

static int _find(uint32_t job_id)
{
	for (int k = 0; k < nwaits; k++)
		if (waits[k].job_id == job_id)
			return k;
	return -1;
}

/* Waits whose job left the queue, started, or whose time is up end here. */
static void _prune(time_t now)
{
	for (int k = 0; k < nwaits;) {
		job_record_t *job = find_job_record(waits[k].job_id);
		if (!job || !IS_JOB_PENDING(job) || waits[k].until <= now ||
		    bit_size(waits[k].nodes) != node_record_count) {
			/* Its job is decided again at once (this pass may be past it). */
			if (job && IS_JOB_PENDING(job) && waits[k].until <= now)
				queue_job_scheduler();
			_drop(k);
		} else
			k++;
	}
	_note_next_end();
}

/* select_nodes() left a job it could not start with WAIT_RESOURCES and no text. */
static void _show_reason(job_record_t *job, const wait_t *w)
{
	if (!IS_JOB_PENDING(job) || job->state_reason != WAIT_RESOURCES ||
	    !xstrcmp(job->state_desc, w->desc))
		return;
	xfree(job->state_desc);
	job->state_desc = xstrdup(w->desc);
	last_job_update = time(NULL);
}

/* A job the scheduler considers after `w`'s job (lower priority, or later at equal). */
static bool _ranks_after(const job_record_t *job, const job_record_t *w)
{
	return job->priority < w->priority ||
	       (job->priority == w->priority && job->job_id > w->job_id);
}

/* The job's time limit in seconds; 0 when it has none. */
static double _limit_s(const job_record_t *job)
{
	if (job->time_limit == NO_VAL || job->time_limit == INFINITE || !job->time_limit)
		return 0;
	return job->time_limit * 60.0;
}

extern void ffg_wait_learn(job_record_t *job)
{
	if (!predictor || !(IS_JOB_COMPLETE(job) || IS_JOB_TIMEOUT(job)) || !job->start_time ||
	    job->end_time < job->start_time)
		return;
	ff_predictor_observe(predictor, job->user_id, job->job_id, _limit_s(job),
			     difftime(job->end_time, job->start_time) - job->tot_sus_time,
			     (double)job->end_time);
}

extern bool ffg_wait_begin(topology_eval_t *topo_eval, bool test_only)
{
	job_record_t *job_ptr = topo_eval->job_ptr;
	bitstr_t *req = job_ptr->details ? job_ptr->details->req_node_bitmap : NULL;
	time_t now = time(NULL);
	bool may_run = true;
	int self;

	if (!nwaits)
		return true;
	_prune(now);
	if ((self = _find(job_ptr->job_id)) >= 0 && !job_ptr->req_switch)
		job_ptr->best_switch = true; /* this evaluation decides afresh */
	for (int k = 0; k < nwaits; k++) {
		job_record_t *w = find_job_record(waits[k].job_id);
		double limit;

		if (k == self || !w)
			continue;
		_show_reason(w, &waits[k]);
		/* A submission test must not reject a job for a wait that will end. */
		if (test_only && !(job_ptr->bit_flags & BACKFILL_TEST))
			continue;
		if (!_ranks_after(job_ptr, w) || bit_size(topo_eval->node_map) != node_record_count)
			continue;
		limit = _limit_s(job_ptr);
		if (limit > 0 && now + limit <= waits[k].until)
			continue; /* ends before the waiting job may start: backfill */
		bit_and_not(topo_eval->node_map, waits[k].nodes);
		/* Slurm's evaluator walks -w nodes by themselves: refuse here instead. */
		if (req && bit_size(req) == bit_size(waits[k].nodes) &&
		    bit_overlap_any(req, waits[k].nodes))
			may_run = false;
	}
	return may_run;
}

static bool _scratch(int hosts)
{
	if (hosts <= 0)
		return false;
	if (hosts != scratch_hosts) {
		xfree(free_at);
		xfree(placed);
		xfree(expected);
		xfree(usable);
		free_at = xcalloc(hosts, sizeof(*free_at));
		placed = xcalloc(hosts, sizeof(*placed));
		expected = xcalloc(hosts, sizeof(*expected));
		usable = xcalloc(hosts, sizeof(*usable));
		scratch_hosts = hosts;
	}
	return true;
}

/*
 * When each host's running jobs are expected to end: when they reach their time limits
 * (slurmctld's end_time), or with LocalityWaitEstimate=history as predicted from their
 * users' last jobs.
 */
static void _fill_free_at(int hosts, time_t now)
{
	list_itr_t *it = list_iterator_create(job_list);
	job_record_t *job;

	for (int h = 0; h < hosts; h++)
		free_at[h] = 0;
	while ((job = list_next(it))) {
		double end;

		if (!(IS_JOB_RUNNING(job) || IS_JOB_SUSPENDED(job)) || !job->node_bitmap)
			continue;
		end = ff_predictor_end(predictor, settings.locality_wait_history_estimate,
				       job->user_id, _limit_s(job), (double)job->end_time,
				       (double)now);
		for (int i = 0; (i = bit_ffs_from_bit(job->node_bitmap, i)) >= 0; i++) {
			int h = i < mapped_node_count ? host_of_node[i] : -1;
			if (h >= 0 && h < hosts && free_at[h] < end)
				free_at[h] = end;
		}
	}
	list_iterator_destroy(it);
}

/* Hosts the job may ever run on: its partition's, available, not excluded. */
static void _fill_usable(job_record_t *job_ptr, int hosts)
{
	bitstr_t *part = job_ptr->part_ptr ? job_ptr->part_ptr->node_bitmap : NULL;
	bitstr_t *exc = job_ptr->details ? job_ptr->details->exc_node_bitmap : NULL;

	memset(usable, 0, hosts);
	for (int i = 0; i < mapped_node_count && i < node_record_count; i++) {
		int h = host_of_node[i];
		if (h < 0 || h >= hosts || !ffg_slot_current(i))
			continue;
		if ((part && !bit_test(part, i)) ||
		    (avail_node_bitmap && !bit_test(avail_node_bitmap, i)) ||
		    (exc && bit_test(exc, i)))
			continue;
		usable[h] = 1;
	}
}

static void _describe(wait_t *w)
{
	char ready[32], until[32], *names = bitmap2node_name(w->nodes);

	slurm_make_time_str(&w->ready_at, ready, sizeof(ready));
	slurm_make_time_str(&w->until, until, sizeof(until));
	xfree(w->desc);
	xstrfmtcat(w->desc, "%s (%s) expected %s, at most until %s (fabricfit locality wait)",
		   WAIT_DESC_PREFIX, names, ready, until);
	xfree(names);
}

static void _keep(job_record_t *job_ptr, const ff_wait_advice_t *a, const int *hosts)
{
	int k = _find(job_ptr->job_id);
	wait_t *w;
	bool changed;

	if (k < 0) {
		if (nwaits == wait_slots) {
			wait_slots = wait_slots ? 2 * wait_slots : 16;
			xrecalloc(waits, wait_slots, sizeof(*waits));
		}
		k = nwaits++;
		memset(&waits[k], 0, sizeof(waits[k]));
		waits[k].job_id = job_ptr->job_id;
	}
	w = &waits[k];
	changed = !w->nodes || w->until != (time_t)ceil(a->until) ||
		  w->ready_at != (time_t)ceil(a->ready_at);
	/* Up to Slurm's whole seconds: the wait lasts until the expected moment. */
	w->until = (time_t)ceil(a->until);
	w->ready_at = (time_t)ceil(a->ready_at);
	FREE_NULL_BITMAP(w->nodes);
	w->nodes = bit_alloc(node_record_count);
	for (unsigned i = 0; i < a->nhosts; i++) {
		int node = node_of_host[hosts[i]];
		if (node >= 0 && node < node_record_count)
			bit_set(w->nodes, node);
	}
	_describe(w);
	_note_next_end();
	if (changed)
		info(
		    "fabricfit: %pJ waits: %s; slowdown now %.3f, gain %.0fs > expected wait %.0fs",
		    job_ptr, w->desc, a->slowdown_now, a->gain_s, a->expected_wait_s);
}

/* The fabric hosts of node_map into placed[]; their count, or -1 for a node outside it. */
static int _placed_hosts(bitstr_t *node_map)
{
	int n = 0;

	for (int i = 0; (i = bit_ffs_from_bit(node_map, i)) >= 0; i++) {
		int h = (i < mapped_node_count && ffg_slot_current(i)) ? host_of_node[i] : -1;
		if (h < 0 || n >= scratch_hosts)
			return -1;
		placed[n++] = h;
	}
	return n;
}

extern void ffg_wait_end(topology_eval_t *topo_eval, const ff_request_t *request, bool test_only,
			 char *note, size_t note_len)
{
	job_record_t *job_ptr = topo_eval->job_ptr;
	job_details_t *details = job_ptr->details;
	ff_wait_facts_t facts = {0};
	ff_wait_advice_t advice;
	size_t len = strlen(note);
	char err[256] = "";
	int self = _find(job_ptr->job_id), hosts, n;
	time_t now = time(NULL);

	if (!request || !engine || !_scratch(hosts = ff_engine_host_count(engine)) ||
	    (n = _placed_hosts(topo_eval->node_map)) < 2) {
		if (self >= 0 && !test_only)
			_drop(self);
		return;
	}
	if (test_only) {
		/* Backfill's trials (now and at the times jobs end) keep to the decision. */
		if (self >= 0 && (job_ptr->bit_flags & BACKFILL_TEST) &&
		    ff_engine_leaf_groups_of(engine, placed, n) > 1) {
			job_ptr->best_switch = false;
			_show_reason(job_ptr, &waits[self]);
			snprintf(note + len, note_len - len, " locality-wait=kept");
		}
		return;
	}
	/* Most multi-host jobs land in one group: no wait to weigh, and no pass over the job
	 * list (the core would answer "one-group" without reading it). */
	if (ff_engine_leaf_groups_of(engine, placed, n) <= 1) {
		if (self >= 0) {
			info("fabricfit: %pJ waits no more: one-group", job_ptr);
			_drop(self);
		}
		return;
	}
	_fill_free_at(hosts, now);
	_fill_usable(job_ptr, hosts);
	facts.now = (double)now;
	facts.eligible = (double)(details && details->begin_time ? details->begin_time
				  : details			 ? details->submit_time
								 : now);
	facts.time_limit_s = ff_predictor_run(predictor, settings.locality_wait_history_estimate,
					      job_ptr->user_id, _limit_s(job_ptr));
	facts.comm_share = settings.locality_wait_comm_share;
	facts.cap_s = settings.locality_wait_max_s;
	if (ff_engine_wait_advice(engine, request, placed, n, usable, host_free, host_total,
				  free_at, &facts, &advice, expected, err, sizeof(err)) != FF_OK) {
		snprintf(note + len, note_len - len, " locality-wait=error reason=\"%s\"", err);
		if (self >= 0)
			_drop(self);
		return;
	}
	if (!advice.wait) {
		if (self >= 0) {
			info("fabricfit: %pJ waits no more: %s", job_ptr, advice.verdict);
			_drop(self);
		}
		if (strcmp(advice.verdict, "one-group") && strcmp(advice.verdict, "not-candidate"))
			snprintf(note + len, note_len - len,
				 " locality-wait=%s gain=%.0fs expected_wait=%.0fs run=%.0fs",
				 advice.verdict, advice.gain_s, advice.expected_wait_s,
				 facts.time_limit_s);
		return;
	}
	_keep(job_ptr, &advice, expected);
	job_ptr->best_switch = false;
	_show_reason(job_ptr, &waits[_find(job_ptr->job_id)]);
	snprintf(note + len, note_len - len,
		 " locality-wait=waits gain=%.0fs expected_wait=%.0fs until=%ld run=%.0fs",
		 advice.gain_s, advice.expected_wait_s, (long)ceil(advice.until),
		 facts.time_limit_s);
}
