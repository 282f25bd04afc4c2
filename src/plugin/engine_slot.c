/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The engine in use (engine_slot.h). */

#include "config.h"

#include <pthread.h>
#include <stdio.h>

#include "src/common/slurm_xlator.h"

#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "engine_slot.h"
#include "health_watch.h"
#include "node_map.h"
#include "placement_record.h"
#include "snapshot_watch.h"

/* Puts a newly loaded engine in place (under slurmctld's locks). */
static void _adopt(ffg_ctx_t *ctx, ff_engine_t *fresh, const char *status)
{
	if (!fresh)
		return;
	/* scontrol show topology may be reading the old one (under a node read lock only). */
	pthread_rwlock_wrlock(&ctx->engine_lock);
	ffg_record_settle(ctx); /* records of decisions made with the old engine */
	ff_engine_free(ctx->engine);
	ctx->engine = fresh;
	if (!++ctx->engine_generation)
		ctx->engine_generation = 1; /* 0 means none */
	ffg_map_nodes(ctx);
	ffg_health_apply(ctx, true); /* the view over the new fabric */
	pthread_rwlock_unlock(&ctx->engine_lock);
	snprintf(ctx->engine_status, sizeof(ctx->engine_status), "%s", status);
}

extern void ffg_refresh_engine(ffg_ctx_t *ctx)
{
	/* Runs in every evaluation: the buffer is not zero-filled, only terminated. */
	char status[sizeof(ctx->engine_status)];
	bool status_changed = false;
	ff_engine_t *fresh;

	if (!running_in_slurmctld())
		return;
	status[0] = '\0';
	fresh = ffg_snapshot_take(ctx->watch, status, sizeof(status), &status_changed);
	if (fresh)
		_adopt(ctx, fresh, status);
	else if (status_changed)
		snprintf(ctx->engine_status, sizeof(ctx->engine_status), "%s", status);
	ffg_health_apply(ctx, false); /* cheap unless the health file changed */
}

extern void ffg_load_engine_now(ffg_ctx_t *ctx)
{
	char status[sizeof(ctx->engine_status)] = "";
	char *keep = NULL;
	char **names = xcalloc(MAX(node_record_count, 1), sizeof(char *));
	int count = 0;
	node_record_t *node_ptr;
	ff_engine_t *fresh;

	/* A snapshot must have some of these as hosts (not another fabric's). */
	for (int i = 0; (node_ptr = next_node(&i)); i++)
		names[count++] = node_ptr->name;

	if (ctx->health) {
		char health_path[FF_PATH_MAX];
		ff_health_path(&ctx->settings, health_path, sizeof(health_path));
		ffg_health_watch_set(ctx->health, health_path, ctx->settings.health_max_age_s);
	}
	if (slurm_conf.state_save_location)
		xstrfmtcat(keep, "%s/fabricfit.snapshot.last-good", slurm_conf.state_save_location);
	fresh = ffg_snapshot_load_now(ctx->watch, ctx->settings.snapshot_file, keep, names, count,
				      ctx->engine != NULL, status, sizeof(status));
	xfree(keep);
	xfree(names);
	if (fresh)
		_adopt(ctx, fresh, status);
	else if (status[0])
		snprintf(ctx->engine_status, sizeof(ctx->engine_status), "%s", status);
	else if (ctx->engine && !ffg_map_current(ctx))
		ffg_map_nodes(ctx);
	ffg_health_apply(ctx, false);
}

extern void ffg_free_engine(ffg_ctx_t *ctx)
{
	if (running_in_slurmctld())
		ffg_snapshot_watch_stop(ctx->watch);
	pthread_rwlock_wrlock(&ctx->engine_lock);
	ffg_record_settle(ctx); /* nothing waits outside slurmctld */
	ff_engine_free(ctx->engine);
	ctx->engine = NULL;
	pthread_rwlock_unlock(&ctx->engine_lock);
	ffg_map_free(ctx);
}
