/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology/fabricfit, the part that is the same in every Slurm release it supports: thin
 * glue that translates between Slurm's structures and fabricfit's C API (fabricfit_api.h)
 * and holds no logic of its own. The symbols slurmctld looks up are in one small file per
 * release (topology_exports_<release>.c, chosen by configure), each a mechanical call into
 * the functions here with the plugin's context (plugin_ctx.h). Any failure logs one clear
 * line and leaves Slurm's default selection in charge.
 */

#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/bitstring.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "engine_slot.h"
#include "fabricfit_api.h"
#include "health_watch.h"
#include "housekeeper.h"
#include "node_map.h"
#include "placement_record.h"
#include "snapshot_watch.h"
#include "topology_eval_state.h"
#include "topology_glue.h"
#include "topology_wait.h"
#include "wait_history.h"

const char plugin_name[] = "topology fabricfit plugin";
const char plugin_type[] = "topology/fabricfit";
/* Slurm's own topology plugins use 100-104. */
const uint32_t plugin_id = 190;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* The plugin's one context: slurmctld, slurmd and clients each load the plugin once. */
static ffg_ctx_t plugin_ctx = {
    .engine_lock = PTHREAD_RWLOCK_INITIALIZER,
    .engine_status = "not loaded",
    .conf_status = "not read",
    .map = {.mapped_node_count = -1},
    .keeper = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER},
};

extern ffg_ctx_t *ffg_ctx(void)
{
	return &plugin_ctx;
}

/*
 * Reads fabricfit.conf. A bad file never replaces good settings: slurmctld keeps a copy
 * of the last good file in StateSaveLocation, which survives the re-exec that
 * `scontrol reconfigure` does.
 */
static void _load_settings(ffg_ctx_t *ctx)
{
	char err[512] = "";
	char *last_good = NULL;

	if (!ctx->conf_path)
		ctx->conf_path = get_extra_conf_path("fabricfit.conf");
	if (running_in_slurmctld() && slurm_conf.state_save_location)
		xstrfmtcat(last_good, "%s/fabricfit.conf.last-good",
			   slurm_conf.state_save_location);
	if (ff_settings_load(ctx->conf_path, last_good, &ctx->settings, err, sizeof(err)) ==
	    FF_OK) {
		snprintf(ctx->conf_status, sizeof(ctx->conf_status), "ok");
	} else {
		snprintf(ctx->conf_status, sizeof(ctx->conf_status), "error: %s", err);
		if (running_in_slurmctld())
			error("fabricfit: %s; using %s", err,
			      !strcmp(ctx->settings.source, "last-good")
				  ? "the last good copy of the file"
				  : "built-in defaults");
	}
	xfree(last_good);
}

extern int ffg_init(ffg_ctx_t *ctx)
{
	_load_settings(ctx);
	if (running_in_slurmctld()) {
		ctx->watch = ffg_snapshot_watch_new();
		ctx->health = ffg_health_watch_new();
		ctx->records = ffg_records_new();
		ctx->eval_state = ffg_eval_state_new();
		if (!(ctx->scan = ff_running_scan_new()))
			error("fabricfit: no memory for the scans of the running jobs: jobs Slurm "
			      "placed are not counted by the locality wait");
		ffg_waits_init(&ctx->waits);
		ffg_history_init(&ctx->history);
		ffg_housekeeper_start(ctx);
		info("fabricfit: %s loaded (%s for Slurm %s, config %s: %s)", plugin_type,
		     ff_version(), SLURM_VERSION_STRING, ctx->conf_path, ctx->conf_status);
	}
	return SLURM_SUCCESS;
}

/* Slurm calls fini only at a shutdown with MEMORY_LEAK_DEBUG: no thread holds its locks. */
extern void ffg_fini(ffg_ctx_t *ctx)
{
	if (running_in_slurmctld())
		ffg_housekeeper_stop(ctx);
	ffg_free_engine(ctx);
	ffg_records_free(ctx->records);
	ctx->records = NULL;
	ffg_snapshot_watch_free(ctx->watch);
	ctx->watch = NULL;
	ffg_health_watch_free(ctx->health);
	ctx->health = NULL;
	ff_running_scan_free(ctx->scan);
	ctx->scan = NULL;
	ffg_waits_free(&ctx->waits);
	ffg_history_free(&ctx->history);
	ffg_eval_state_destroy(ctx->eval_state);
	ctx->eval_state = NULL;
	xfree(ctx->logged);
	xfree(ctx->conf_path);
}

extern int ffg_build_config(ffg_ctx_t *ctx)
{
	_load_settings(ctx);
	if (running_in_slurmctld())
		ffg_load_engine_now(ctx);
	return SLURM_SUCCESS;
}

extern int ffg_destroy_config(ffg_ctx_t *ctx)
{
	ffg_free_engine(ctx);
	return SLURM_SUCCESS;
}

/* A node was added or removed at run time (scontrol create/delete node): map again. */
extern int ffg_add_rm_node(ffg_ctx_t *ctx, node_record_t *node_ptr)
{
	ctx->map.nodes_changed = true;
	if (ctx->engine)
		info("fabricfit: node %s added or removed: mapping Slurm's nodes onto the fabric "
		     "again",
		     node_ptr ? node_ptr->name : "(unknown)");
	return SLURM_SUCCESS;
}

/* Ranks nodes so that each leaf group's nodes are contiguous (known hosts first). */
extern bool ffg_generate_node_ranking(ffg_ctx_t *ctx)
{
	node_record_t *node_ptr;
	int hosts;

	if (!running_in_slurmctld())
		return false;
	if (!ctx->conf_path)
		_load_settings(ctx);
	if (!ctx->engine)
		ffg_load_engine_now(ctx);
	else
		ffg_refresh_engine(ctx);
	if (!ctx->engine)
		return false;
	hosts = ff_engine_host_count(ctx->engine);
	for (int i = 0; (node_ptr = next_node(&i)); i++) {
		int host = ff_engine_host(ctx->engine, node_ptr->name);
		node_ptr->node_rank =
		    (host >= 0) ? ff_engine_host_rank(ctx->engine, host) : hosts + i;
	}
	/* Node indices change once Slurm sorts by rank: map again on next use. */
	ctx->map.mapped_node_count = -1;
	return true;
}

/*
 * Backfill compares this across candidate start times (lower is better): the free GPUs
 * that the workload's job sizes could not use if the nodes in node_mask were the free ones.
 */
extern uint32_t ffg_get_fragmentation(ffg_ctx_t *ctx, bitstr_t *node_mask)
{
	ffg_node_map_t *map = &ctx->map;
	double share = 0, unusable = 0;
	char err[256] = "";
	int hosts;

	ffg_refresh_engine(ctx);
	if (!ctx->engine)
		return 0;
	if (!ffg_map_current(ctx))
		ffg_map_nodes(ctx);
	if (map->totals_pending)
		ffg_refresh_totals(ctx);
	hosts = ff_engine_host_count(ctx->engine);
	for (int h = 0; h < hosts; h++) {
		int i = map->node_of_host[h];
		map->host_free[h] = (i >= 0 && bit_test(node_mask, i)) ? map->host_total[h] : 0;
	}
	if (ff_engine_fragmentation(ctx->engine, map->host_free, map->host_total, &share, &unusable,
				    err, sizeof(err)) != FF_OK)
		return 0;
	return (uint32_t)(unusable + 0.5);
}
