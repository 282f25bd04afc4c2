/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The running multi-host jobs the locality wait and the steering price beside, kept in
 * step with slurmctld's job list (running_count.h): the core decides which jobs to try
 * (ff_running_scan_*) and forgets those that ended (ff_engine_running_prune); this file
 * reads the jobs' records.
 */

#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "fabricfit_api.h"
#include "job_facts.h"
#include "node_map.h"
#include "placement_record.h"
#include "running_count.h"
#include "wait_history.h"

#pragma weak job_list

static int _job_runs(void *unused, uint32_t job_id)
{
	job_record_t *job_ptr = find_job_record(job_id);

	(void)unused;
	return job_ptr && IS_JOB_RUNNING(job_ptr);
}

/* Running jobs that ended leave the locality wait's count (job read lock held). */
static void _prune_running(ffg_ctx_t *ctx)
{
	char err[256] = "";

	pthread_rwlock_rdlock(&ctx->engine_lock);
	if (ctx->engine &&
	    ff_engine_running_prune(ctx->engine, _job_runs, NULL, err, sizeof(err)) != FF_OK)
		error("fabricfit: a job stays among the running jobs the locality wait counts: %s",
		      err);
	pthread_rwlock_unlock(&ctx->engine_lock);
}

/*
 * A running multi-host job joins the locality wait's count: its GPUs as it asked for them
 * on the nodes it got (AllocTRES has GPUs only where accounting tracks gres/gpu), and its
 * pattern (engine_lock read, job and node read locks held).
 */
static bool _count_running(ffg_ctx_t *ctx, job_record_t *job_ptr)
{
	ff_job_facts_t facts;
	char err[256] = "";
	int *hosts = xcalloc(bit_set_count(job_ptr->node_bitmap), sizeof(int));
	unsigned n = 0;
	bool counted = false;

	for (int i = 0; (i = bit_ffs_from_bit(job_ptr->node_bitmap, i)) >= 0; i++) {
		int h = ffg_host_of(ctx, i);
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
	if (!(counted =
		  ff_engine_running_count(ctx->engine, job_ptr->job_id, &facts, &ctx->settings,
					  hosts, n, err, sizeof(err)) == FF_OK))
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
static void _scan_running(ffg_ctx_t *ctx)
{
	time_t now = time(NULL);
	int count = 0, slots, counted = 0, fresh = 0, running = 0;
	char err[256] = "";
	list_itr_t *it;
	job_record_t *job;

	if (!&job_list || !job_list)
		return;
	pthread_rwlock_rdlock(&ctx->engine_lock);
	if (!ctx->engine || !ff_running_scan_due(ctx->scan, ctx->engine_generation, now)) {
		pthread_rwlock_unlock(&ctx->engine_lock);
		return;
	}
	if (!ffg_map_current(ctx)) {
		/* Until an evaluation maps Slurm's changed node table: try again later. */
		ff_running_scan_postpone(ctx->scan, now);
		pthread_rwlock_unlock(&ctx->engine_lock);
		return;
	}
	if (ff_running_scan_start(ctx->scan, ctx->engine, ctx->engine_generation, now, err,
				  sizeof(err)) != FF_OK) {
		error("fabricfit: no scan of the running jobs: %s", err);
		pthread_rwlock_unlock(&ctx->engine_lock);
		return;
	}
	slots = list_count(job_list);
	it = list_iterator_create(job_list);
	while ((job = list_next(it)) && count < slots) {
		ffg_history_learn(&ctx->history, job);
		if (!IS_JOB_RUNNING(job) || !job->node_bitmap ||
		    bit_set_count(job->node_bitmap) < 2)
			continue;
		count++;
		if (ff_running_scan_should_count(ctx->scan, job->job_id, (long)job->start_time) &&
		    _count_running(ctx, job))
			counted++;
	}
	list_iterator_destroy(it);
	if (ff_running_scan_finish(ctx->scan, ctx->engine, &fresh, &running, err, sizeof(err)) !=
	    FF_OK)
		error("fabricfit: the scan of the running jobs did not finish: %s", err);
	if (fresh && running)
		info("fabricfit: locality wait: %d of the %d jobs running on several nodes counted "
		     "from Slurm's job list (a new snapshot, restart or reconfigure)",
		     counted, running);
	else if (counted)
		debug("fabricfit: Placement: %d more running multi-host jobs counted", counted);
	pthread_rwlock_unlock(&ctx->engine_lock);
}

/* A scan of the job list is due (ff_running_scan_due). */
static bool _scan_due(ffg_ctx_t *ctx)
{
	bool due;

	pthread_rwlock_rdlock(&ctx->engine_lock);
	due = ctx->engine && ff_running_scan_due(ctx->scan, ctx->engine_generation, time(NULL));
	pthread_rwlock_unlock(&ctx->engine_lock);
	return due;
}

static bool _any_running(ffg_ctx_t *ctx)
{
	bool any;

	pthread_rwlock_rdlock(&ctx->engine_lock);
	any = ctx->engine && ff_engine_running_jobs(ctx->engine, NULL, 0) > 0;
	pthread_rwlock_unlock(&ctx->engine_lock);
	return any;
}

/*
 * Forget the running jobs that ended, count the new ones (slurmctld's locks not held);
 * nothing once a shutdown or reconfigure has begun (checked under the lock), and no lock
 * taken when no job is counted and no scan is due.
 */
extern void ffg_running_recount(ffg_ctx_t *ctx)
{
	slurmctld_lock_t job_read = {.job = READ_LOCK, .node = READ_LOCK};

	if (!_any_running(ctx) && !_scan_due(ctx))
		return;
	lock_slurmctld(job_read);
	if (!ffg_shutting_down()) {
		_prune_running(ctx);
		_scan_running(ctx);
	}
	unlock_slurmctld(job_read);
}
