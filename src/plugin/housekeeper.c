/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slurmctld's one fabricfit thread (housekeeper.h). */

#include "config.h"

#include <pthread.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "health_watch.h"
#include "housekeeper.h"
#include "placement_record.h"
#include "running_count.h"
#include "snapshot_watch.h"
#include "topology_wait.h"
#include "wait_history.h"

/*
 * Seconds between saves of the run-time history, when something was learnt: the pace of
 * the scans of the job list (placement/waiting/running_scan.hpp). Slurm runs no plugin fini at a
 * reconfigure's re-exec nor at a shutdown, so what the new slurmctld reads is what was
 * saved here, and once more when the thread sees the shutdown (a re-exec sets
 * shutdown_time too) and never after it.
 */
#define HISTORY_SAVE_INTERVAL 10

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

/* A locality wait ended: its job is decided again at once, not at the next periodic pass. */
static void _kick(ffg_ctx_t *ctx, time_t now, time_t *kicked)
{
	time_t wait_end = ffg_wait_next_end(&ctx->waits);

	if (wait_end && now >= wait_end && wait_end != *kicked) {
		debug("fabricfit: a locality wait ended: scheduling");
		queue_job_scheduler();
		*kicked = wait_end;
	}
}

/*
 * Four rounds a second, woken by the clock and never by eval_nodes: a note is posted from
 * inside a scheduling cycle, and a thread woken then queues on the job write lock and is
 * handed it the instant the cycle unlocks, which can preempt the scheduler thread before it
 * stops sdiag's cycle timer. Polled, it meets a cycle only by chance. (The lab window did
 * not show sdiag's main cycle moving with this: docs/performance.md.) A snapshot load
 * delays the rounds behind it: the records wait, the same-pass count in eval_nodes does not.
 */
static void *_keep_house(void *arg)
{
	ffg_ctx_t *ctx = arg;
	ffg_keeper_t *k = &ctx->keeper;
	time_t last_second = 0, last_save = time(NULL), kicked = 0;
	bool saved_at_shutdown = false;

	slurm_mutex_lock(&k->lock);
	while (!k->stopping) {
		struct timespec until = _after_ms(250);
		time_t now;

		pthread_cond_timedwait(&k->wake, &k->lock, &until);
		if (k->stopping)
			break;
		slurm_mutex_unlock(&k->lock);

		ffg_records_round(ctx);
		now = time(NULL);
		_kick(ctx, now, &kicked);
		if (now != last_second) {
			last_second = now;
			/* A new snapshot is loaded here, off slurmctld's locks. */
			ffg_snapshot_poll(ctx->watch);
			/* And a new health file, off them too. */
			ffg_health_poll(ctx->health);
			/* Applied now, not only at the next decision, so the log and scontrol
			 * show topology tell the admin at once. Decisions read the view under
			 * slurmctld's node lock, not engine_lock: swap it under that lock. */
			if (ffg_health_news(ctx->health)) {
				slurmctld_lock_t node_write = {.node = WRITE_LOCK};

				lock_slurmctld(node_write);
				if (!ffg_shutting_down())
					ffg_health_apply(ctx, false);
				unlock_slurmctld(node_write);
			}
			/* Forget the running jobs that ended, count new ones. */
			ffg_running_recount(ctx);
		}
		if (ffg_shutting_down()) {
			/* Last save before a re-exec or exit; none after (the new slurmctld's). */
			if (!saved_at_shutdown)
				ffg_history_save(&ctx->history);
			saved_at_shutdown = true;
		} else if (now < last_save || now >= last_save + HISTORY_SAVE_INTERVAL) {
			last_save = now;
			saved_at_shutdown = false;
			ffg_history_save(&ctx->history);
		}
		slurm_mutex_lock(&k->lock);
	}
	slurm_mutex_unlock(&k->lock);
	return NULL;
}

extern void ffg_housekeeper_start(ffg_ctx_t *ctx)
{
	ffg_keeper_t *k = &ctx->keeper;

	slurm_mutex_lock(&k->lock);
	if (!k->running) {
		k->stopping = false;
		if (pthread_create(&k->thread, NULL, _keep_house, ctx) == 0) {
			k->running = true;
			ffg_records_open(ctx->records);
		} else {
			error("fabricfit: cannot start its thread: jobs get no placement record, "
			      "new snapshots are read on reconfigure only");
		}
	}
	slurm_mutex_unlock(&k->lock);
}

extern void ffg_housekeeper_stop(ffg_ctx_t *ctx)
{
	ffg_keeper_t *k = &ctx->keeper;
	bool join;

	slurm_mutex_lock(&k->lock);
	join = k->running;
	k->stopping = true;
	pthread_cond_broadcast(&k->wake);
	slurm_mutex_unlock(&k->lock);
	if (join)
		pthread_join(k->thread, NULL);
	slurm_mutex_lock(&k->lock);
	k->running = false;
	slurm_mutex_unlock(&k->lock);
}
