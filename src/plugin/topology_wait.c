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
 * The waits and the rules over them are the core's wait book (ff_wait_book_*); what must
 * survive a restart, when the wait began, is the job's eligible time (details->begin_time) in its
 * own record, so a restarted or reconfigured slurmctld decides again from the same facts and never
 * waits past the cap.
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

/* The waits and their rules are the core's (ff_wait_book_*): used under the job write lock. */
static ff_wait_book_t *book = NULL;
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
 * Nothing else asks slurmctld to schedule when a wait ends, so the job would stay pending
 * to the next periodic pass (sched_interval, bf_interval: 60 s and 30 s by default): the
 * record thread reads this without slurmctld's locks.
 */
extern time_t ffg_wait_next_end(void)
{
	return (time_t)ff_wait_book_next_end(book);
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
	ff_wait_book_free(book);
	book = NULL;
	xfree(free_at);
	xfree(placed);
	xfree(expected);
	xfree(usable);
	scratch_hosts = 0;
	ff_predictor_free(predictor);
	predictor = NULL;
}

extern void ffg_wait_init(void)
{
	char err[512] = "";
	unsigned jobs = 0;

	if (predictor)
		return;
	if (!book && !(book = ff_wait_book_new()))
		error("fabricfit: no memory for the locality waits: no job waits for a leaf group");
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

/* select_nodes() left a job it could not start with WAIT_RESOURCES and no text. */
static void _show_reason(job_record_t *job, const char *desc)
{
	if (!job || !desc || !IS_JOB_PENDING(job) || job->state_reason != WAIT_RESOURCES ||
	    !xstrcmp(job->state_desc, desc))
		return;
	xfree(job->state_desc);
	job->state_desc = xstrdup(desc);
	last_job_update = time(NULL);
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

static int _find_job(void *ctx, uint32_t job_id, ff_queued_job_t *out)
{
	job_record_t *job = find_job_record(job_id);

	(void)ctx;
	if (!job)
		return 0;
	out->pending = IS_JOB_PENDING(job);
	out->priority = job->priority;
	return 1;
}

static void _remind(void *ctx, uint32_t job_id, const char *reason)
{
	(void)ctx;
	_show_reason(find_job_record(job_id), reason);
}

static void _take_node(void *node_map, int node)
{
	if (node >= 0 && node < bit_size(node_map))
		bit_clear(node_map, node);
}

/* The job as the book weighs it; `required` (NULL: not needed) gets its -w nodes as slots
 * (xfree it). */
static ff_evaluated_job_t _evaluated(const job_record_t *job_ptr, bool test_only, int **required)
{
	bitstr_t *req = job_ptr->details ? job_ptr->details->req_node_bitmap : NULL;
	ff_evaluated_job_t job = {.job_id = job_ptr->job_id,
				  .priority = job_ptr->priority,
				  .time_limit_s = _limit_s(job_ptr),
				  .test_only = test_only,
				  .backfill_test = (job_ptr->bit_flags & BACKFILL_TEST) != 0,
				  .switches = job_ptr->req_switch != 0};

	if (!required)
		return job;
	*required = NULL;
	if (req && bit_size(req) == node_record_count) {
		*required = xcalloc(MAX(bit_set_count(req), 1), sizeof(int));
		for (int i = 0; (i = bit_ffs_from_bit(req, i)) >= 0; i++)
			(*required)[job.nrequired++] = i;
		job.required = *required;
	}
	return job;
}

extern bool ffg_wait_begin(topology_eval_t *topo_eval, bool test_only)
{
	job_record_t *job_ptr = topo_eval->job_ptr;
	ff_wait_begin_t begin = {.may_run = 1};
	ff_evaluated_job_t job;
	char err[256] = "";
	int *required;

	if (!ff_wait_book_count(book))
		return true;
	job = _evaluated(job_ptr, test_only, &required);
	if (ff_wait_book_begin(book, &job, (double)time(NULL), node_record_count,
			       bit_size(topo_eval->node_map), _find_job, _remind, _take_node,
			       topo_eval->node_map, &begin, err, sizeof(err)) != FF_OK)
		error("fabricfit: %pJ: the locality waits are not applied: %s", job_ptr, err);
	xfree(required);
	if (begin.schedule)
		queue_job_scheduler(); /* a wait's job is decided again at once */
	if (begin.decide_afresh)
		job_ptr->best_switch = true;
	return begin.may_run;
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

/* The job waits as `a` says, on the Slurm nodes of the hosts it expects. */
static void _keep(job_record_t *job_ptr, const ff_wait_advice_t *a, const int *hosts)
{
	bitstr_t *nodes = bit_alloc(node_record_count);
	int *slots = xcalloc(MAX(a->nhosts, 1), sizeof(int));
	unsigned n = 0;
	char ready[32], until[32], err[256] = "", *names, *desc = NULL;
	time_t ready_at = (time_t)ceil(a->ready_at), until_t = (time_t)ceil(a->until);
	int changed = 0;

	for (unsigned i = 0; i < a->nhosts; i++) {
		int node = node_of_host[hosts[i]];
		if (node >= 0 && node < node_record_count) {
			bit_set(nodes, node);
			slots[n++] = node;
		}
	}
	names = bitmap2node_name(nodes);
	slurm_make_time_str(&ready_at, ready, sizeof(ready));
	slurm_make_time_str(&until_t, until, sizeof(until));
	xstrfmtcat(desc, "%s (%s) expected %s, at most until %s (fabricfit locality wait)",
		   WAIT_DESC_PREFIX, names, ready, until);
	if (ff_wait_book_keep(book, job_ptr->job_id, a, slots, n, node_record_count, desc, &changed,
			      err, sizeof(err)) != FF_OK)
		error("fabricfit: %pJ cannot wait: %s", job_ptr, err);
	else if (changed)
		info(
		    "fabricfit: %pJ waits: %s; slowdown now %.3f, gain %.0fs > expected wait %.0fs",
		    job_ptr, desc, a->slowdown_now, a->gain_s, a->expected_wait_s);
	xfree(desc);
	xfree(names);
	xfree(slots);
	FREE_NULL_BITMAP(nodes);
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
	ff_evaluated_job_t job;
	size_t len = strlen(note);
	char err[256] = "";
	int hosts = 0, n = -1;
	time_t now = time(NULL);

	if (request && engine && _scratch(hosts = ff_engine_host_count(engine)))
		n = _placed_hosts(topo_eval->node_map);
	job = _evaluated(job_ptr, test_only, NULL);
	switch (ff_wait_book_after(book, &job, n >= 0, engine, placed, MAX(n, 0))) {
	case FF_WAIT_ONE_GROUP:
		info("fabricfit: %pJ waits no more: one-group", job_ptr);
		return;
	case FF_WAIT_HOLD:
		job_ptr->best_switch = false;
		_show_reason(job_ptr, ff_wait_book_reason(book, job_ptr->job_id));
		snprintf(note + len, note_len - len, " locality-wait=kept");
		return;
	case FF_WAIT_ASK:
		break;
	default:
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
		ff_wait_book_forget(book, job_ptr->job_id);
		return;
	}
	if (!advice.wait) {
		if (ff_wait_book_forget(book, job_ptr->job_id))
			info("fabricfit: %pJ waits no more: %s", job_ptr, advice.verdict);
		if (strcmp(advice.verdict, "one-group") && strcmp(advice.verdict, "not-candidate"))
			snprintf(note + len, note_len - len,
				 " locality-wait=%s gain=%.0fs expected_wait=%.0fs run=%.0fs",
				 advice.verdict, advice.gain_s, advice.expected_wait_s,
				 facts.time_limit_s);
		return;
	}
	_keep(job_ptr, &advice, expected);
	job_ptr->best_switch = false;
	_show_reason(job_ptr, ff_wait_book_reason(book, job_ptr->job_id));
	snprintf(note + len, note_len - len,
		 " locality-wait=waits gain=%.0fs expected_wait=%.0fs until=%ld run=%.0fs",
		 advice.gain_s, advice.expected_wait_s, (long)ceil(advice.until),
		 facts.time_limit_s);
}
