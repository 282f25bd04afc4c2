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

#include "job_facts.h"
#include "node_map.h"
#include "topology_wait.h"
#include "wait_facts.h"

/*
 * Data only slurmctld has: weak, so that clients (scontrol, srun), which load this plugin
 * too and never call these functions, resolve them to nothing instead of failing to load
 * it (functions bind lazily; data is resolved at load time).
 */
#pragma weak last_job_update

#define WAIT_DESC_PREFIX "Waiting for one leaf group"
#define WAIT_DESC_PREFIX_WIDE "Waiting for %u leaf groups"

extern void ffg_waits_init(ffg_waits_t *w)
{
	if (!w->book && !(w->book = ff_wait_book_new()))
		error("fabricfit: no memory for the locality waits: no job waits for a leaf group");
}

extern void ffg_waits_free(ffg_waits_t *w)
{
	ff_wait_book_free(w->book);
	w->book = NULL;
	xfree(w->free_at);
	xfree(w->placed);
	xfree(w->expected);
	xfree(w->usable);
	w->scratch_hosts = 0;
}

/*
 * Nothing else asks slurmctld to schedule when a wait ends, so the job would stay pending
 * to the next periodic pass (sched_interval, bf_interval: 60 s and 30 s by default): the
 * housekeeper reads this without slurmctld's locks.
 */
extern time_t ffg_wait_next_end(const ffg_waits_t *w)
{
	return (time_t)ff_wait_book_next_end(w->book);
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
				  .time_limit_s = ffg_job_limit_s(job_ptr),
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

extern bool ffg_wait_begin(ffg_ctx_t *ctx, topology_eval_t *topo_eval, bool test_only)
{
	job_record_t *job_ptr = topo_eval->job_ptr;
	ff_wait_begin_t begin = {.may_run = 1};
	ff_evaluated_job_t job;
	char err[256] = "";
	int *required;

	/* A real evaluation decides afresh whether the job is still held for health or a
	 * domain (ffg_eval notes it again): a note never outlives its cause. */
	if (!test_only)
		ff_wait_book_unnote(ctx->waits.book, job_ptr->job_id);
	if (!ff_wait_book_count(ctx->waits.book) && !ff_wait_book_notes(ctx->waits.book))
		return true;
	job = _evaluated(job_ptr, test_only, &required);
	if (ff_wait_book_begin(ctx->waits.book, &job, (double)time(NULL), node_record_count,
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

/* The job waits as `a` says, on the Slurm nodes of the hosts it expects; false when the book
 * could not take it (no memory): the job is then not held. */
static bool _keep(ffg_ctx_t *ctx, job_record_t *job_ptr, const ff_wait_advice_t *a,
		  const int *hosts)
{
	bitstr_t *nodes = bit_alloc(node_record_count);
	int *slots = xcalloc(MAX(a->nhosts, 1), sizeof(int));
	unsigned n = 0;
	char ready[32], until[32], err[256] = "", *names, *desc = NULL;
	time_t ready_at = (time_t)ceil(a->ready_at), until_t = (time_t)ceil(a->until);
	int changed = 0;
	bool kept;

	for (unsigned i = 0; i < a->nhosts; i++) {
		int node = ctx->map.node_of_host[hosts[i]];
		if (node >= 0 && node < node_record_count) {
			bit_set(nodes, node);
			slots[n++] = node;
		}
	}
	names = bitmap2node_name(nodes);
	slurm_make_time_str(&ready_at, ready, sizeof(ready));
	slurm_make_time_str(&until_t, until, sizeof(until));
	if (a->leaf_groups > 1)
		xstrfmtcat(desc, WAIT_DESC_PREFIX_WIDE, a->leaf_groups);
	else
		xstrcat(desc, WAIT_DESC_PREFIX);
	xstrfmtcat(desc, " (%s) expected %s, at most until %s (fabricfit locality wait)", names,
		   ready, until);
	kept = ff_wait_book_keep(ctx->waits.book, job_ptr->job_id, a, slots, n, node_record_count,
				 desc, &changed, err, sizeof(err)) == FF_OK;
	if (!kept)
		error("fabricfit: %pJ cannot wait: %s", job_ptr, err);
	else if (changed)
		info(
		    "fabricfit: %pJ waits: %s; slowdown now %.3f, gain %.0fs > expected wait %.0fs",
		    job_ptr, desc, a->slowdown_now, a->gain_s, a->expected_wait_s);
	xfree(desc);
	xfree(names);
	xfree(slots);
	FREE_NULL_BITMAP(nodes);
	return kept;
}

extern void ffg_wait_end(ffg_ctx_t *ctx, topology_eval_t *topo_eval, const ff_request_t *request,
			 bool test_only, char *note, size_t note_len)
{
	job_record_t *job_ptr = topo_eval->job_ptr;
	job_details_t *details = job_ptr->details;
	ff_wait_facts_t facts = {0};
	ff_wait_advice_t advice;
	ff_evaluated_job_t job;
	size_t len = strlen(note);
	char err[256] = "";
	int n = -1;
	time_t now = time(NULL);

	ffg_waits_t *w = &ctx->waits;
	ff_engine_t *engine = ctx->engine;

	if (request)
		n = ffg_wait_placed(ctx, topo_eval->node_map);
	job = _evaluated(job_ptr, test_only, NULL);
	switch (ff_wait_book_after(w->book, &job, n >= 0, engine, w->placed, MAX(n, 0))) {
	case FF_WAIT_ONE_GROUP:
		info("fabricfit: %pJ waits no more: one-group", job_ptr);
		return;
	case FF_WAIT_HOLD:
		job_ptr->best_switch = false;
		_show_reason(job_ptr, ff_wait_book_reason(w->book, job_ptr->job_id));
		snprintf(note + len, note_len - len, " locality-wait=kept");
		return;
	case FF_WAIT_ASK:
		break;
	default:
		return;
	}
	ffg_wait_fill(ctx, job_ptr, now);
	facts.now = (double)now;
	facts.eligible = (double)(details && details->begin_time ? details->begin_time
				  : details			 ? details->submit_time
								 : now);
	facts.time_limit_s =
	    ff_predictor_run(ctx->history.predictor, ctx->settings.locality_wait_history_estimate,
			     job_ptr->user_id, ffg_job_limit_s(job_ptr));
	facts.comm_share = ctx->settings.locality_wait_comm_share;
	facts.cap_s = ctx->settings.locality_wait_max_s;
	if (ff_engine_wait_advice(engine, request, w->placed, n, w->usable, ctx->map.host_free,
				  ctx->map.host_total, w->free_at, &facts, &advice, w->expected,
				  err, sizeof(err)) != FF_OK) {
		snprintf(note + len, note_len - len, " locality-wait=error reason=\"%s\"", err);
		ff_wait_book_forget(w->book, job_ptr->job_id);
		return;
	}
	if (!advice.wait) {
		if (ff_wait_book_forget(w->book, job_ptr->job_id))
			info("fabricfit: %pJ waits no more: %s", job_ptr, advice.verdict);
		if (strcmp(advice.verdict, "one-group") &&
		    strcmp(advice.verdict, "fewest-groups") &&
		    strcmp(advice.verdict, "not-candidate"))
			snprintf(note + len, note_len - len,
				 " locality-wait=%s gain=%.0fs expected_wait=%.0fs run=%.0fs",
				 advice.verdict, advice.gain_s, advice.expected_wait_s,
				 facts.time_limit_s);
		return;
	}
	if (!_keep(ctx, job_ptr, &advice, w->expected))
		return; /* not held: a wait the book does not keep would never end */
	job_ptr->best_switch = false;
	_show_reason(job_ptr, ff_wait_book_reason(w->book, job_ptr->job_id));
	snprintf(note + len, note_len - len,
		 " locality-wait=waits gain=%.0fs expected_wait=%.0fs until=%ld run=%.0fs",
		 advice.gain_s, advice.expected_wait_s, (long)ceil(advice.until),
		 facts.time_limit_s);
}
