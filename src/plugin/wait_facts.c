/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Slurm's facts for the locality wait's advice (wait_facts.h): the job's hosts, the hosts it
 * may ever use, and when each host's running jobs are expected to end.
 */

#include "config.h"

#include <string.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "job_facts.h"
#include "node_map.h"
#include "wait_facts.h"

/* slurmctld's data: weak, for the clients that load this plugin too (topology_wait.c). */
#pragma weak job_list
#pragma weak avail_node_bitmap

static bool _scratch(ffg_waits_t *w, int hosts)
{
	if (hosts <= 0)
		return false;
	if (hosts != w->scratch_hosts) {
		xfree(w->free_at);
		xfree(w->placed);
		xfree(w->expected);
		xfree(w->usable);
		w->free_at = xcalloc(hosts, sizeof(*w->free_at));
		w->placed = xcalloc(hosts, sizeof(*w->placed));
		w->expected = xcalloc(hosts, sizeof(*w->expected));
		w->usable = xcalloc(hosts, sizeof(*w->usable));
		w->scratch_hosts = hosts;
	}
	return true;
}

/* The fabric hosts of node_map into placed[]; their count, or -1 for a node outside it. */
static int _placed_hosts(ffg_ctx_t *ctx, bitstr_t *node_map)
{
	int n = 0;

	for (int i = 0; (i = bit_ffs_from_bit(node_map, i)) >= 0; i++) {
		int h = ffg_host_of(ctx, i);
		if (h < 0 || n >= ctx->waits.scratch_hosts)
			return -1;
		ctx->waits.placed[n++] = h;
	}
	return n;
}

extern int ffg_wait_placed(ffg_ctx_t *ctx, bitstr_t *node_map)
{
	if (!ctx->engine || !_scratch(&ctx->waits, ff_engine_host_count(ctx->engine)))
		return -1;
	return _placed_hosts(ctx, node_map);
}

/*
 * When each host's running jobs are expected to end: when they reach their time limits
 * (slurmctld's end_time), or with LocalityWaitEstimate=history as predicted from their
 * users' last jobs.
 */
static void _fill_free_at(ffg_ctx_t *ctx, int hosts, time_t now)
{
	double *free_at = ctx->waits.free_at;
	list_itr_t *it = list_iterator_create(job_list);
	job_record_t *job;

	for (int h = 0; h < hosts; h++)
		free_at[h] = 0;
	while ((job = list_next(it))) {
		double end;

		if (!(IS_JOB_RUNNING(job) || IS_JOB_SUSPENDED(job)) || !job->node_bitmap)
			continue;
		end = ff_predictor_end(ctx->history.predictor,
				       ctx->settings.locality_wait_history_estimate, job->user_id,
				       ffg_job_limit_s(job), (double)job->end_time, (double)now);
		for (int i = 0; (i = bit_ffs_from_bit(job->node_bitmap, i)) >= 0; i++) {
			int h = i < ctx->map.mapped_node_count ? ctx->map.host_of_node[i] : -1;
			if (h >= 0 && h < hosts && free_at[h] < end)
				free_at[h] = end;
		}
	}
	list_iterator_destroy(it);
}

/* Hosts the job may ever run on: its partition's, available, not excluded. */
static void _fill_usable(ffg_ctx_t *ctx, job_record_t *job_ptr, int hosts)
{
	bitstr_t *part = job_ptr->part_ptr ? job_ptr->part_ptr->node_bitmap : NULL;
	bitstr_t *exc = job_ptr->details ? job_ptr->details->exc_node_bitmap : NULL;

	unsigned char *usable = ctx->waits.usable;

	memset(usable, 0, hosts);
	for (int i = 0; i < ctx->map.mapped_node_count && i < node_record_count; i++) {
		int h = ctx->map.host_of_node[i];
		if (h < 0 || h >= hosts || !ffg_slot_current(ctx, i))
			continue;
		if ((part && !bit_test(part, i)) ||
		    (avail_node_bitmap && !bit_test(avail_node_bitmap, i)) ||
		    (exc && bit_test(exc, i)))
			continue;
		usable[h] = 1;
	}
}

extern void ffg_wait_fill(ffg_ctx_t *ctx, job_record_t *job_ptr, time_t now)
{
	int hosts = ctx->waits.scratch_hosts;

	_fill_free_at(ctx, hosts, now);
	_fill_usable(ctx, job_ptr, hosts);
}
