/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What slurmctld says of the plugin and the fabric for `scontrol show topology`
 * (topology_glue.h: ffg_describe), packed and printed by topology_topoinfo.c.
 */

#include "config.h"

#include <pthread.h>
#include <stdio.h>

#include "src/common/slurm_xlator.h"

#include "src/common/node_conf.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "fabricfit_api.h"
#include "health_watch.h"
#include "node_map.h"
#include "snapshot_watch.h"
#include "topology_glue.h"

/*
 * The fabric as the controller sees it now (ff_engine_topology): free and total GPUs per
 * fabric host read from Slurm's node table into arrays of this call's own, since several
 * scontrol requests may run at once. Caller holds engine_lock for reading.
 */
static char *_describe_fabric(const ffg_ctx_t *ctx)
{
	const ff_engine_t *engine = ctx->engine;
	int hosts = ff_engine_host_count(engine);
	int *free_gpus = xcalloc(MAX(hosts, 1), sizeof(int));
	int *total_gpus = xcalloc(MAX(hosts, 1), sizeof(int));
	char err[512] = "", *text = NULL;
	node_record_t *node_ptr;
	int rc = FF_EINTERNAL;

	for (int i = 0; (node_ptr = next_node(&i)); i++) {
		int host = ff_engine_host(engine, node_ptr->name);
		if (host < 0 || host >= hosts)
			continue;
		total_gpus[host] = MAX(ffg_node_gpus(node_ptr), 0);
		/* A node that cannot take jobs has no GPU free. */
		if (IS_NODE_DOWN(node_ptr) || IS_NODE_DRAIN(node_ptr) || IS_NODE_FAIL(node_ptr) ||
		    IS_NODE_NO_RESPOND(node_ptr) || IS_NODE_FUTURE(node_ptr))
			continue;
		free_gpus[host] = MAX(total_gpus[host] - ffg_node_gpus_used(node_ptr), 0);
	}
	/* The text grows with the leaf groups: a bigger buffer until it fits. */
	for (size_t len = 65536; rc != FF_OK && len <= (64u << 20); len *= 4) {
		xfree(text);
		text = xmalloc(len);
		rc = ff_engine_topology(engine, free_gpus, total_gpus, NULL, text, len, err,
					sizeof(err));
	}
	if (rc != FF_OK) {
		xfree(text);
		xstrfmtcat(text, "Fabric=(error) Reason=\"%s\"\n", err);
	}
	xfree(free_gpus);
	xfree(total_gpus);
	return text;
}

/*
 * What `scontrol show topology` prints: the plugin's settings and snapshot state, and in
 * *fabric the fabric's leaf groups, pods and degraded links (NULL without a snapshot).
 * Runs under a node read lock only: it reads the node table and the engine, and changes
 * nothing of the plugin's.
 */
extern char *ffg_describe(ffg_ctx_t *ctx, char **fabric)
{
	const ff_settings_t *settings = &ctx->settings;
	const int *host_total;
	char *out = NULL, status[sizeof(ctx->engine_status)], pattern[FF_PATTERN_MAX];

	*fabric = NULL;
	ff_pattern_name(&settings->default_pattern, pattern, sizeof(pattern));
	pthread_rwlock_rdlock(&ctx->engine_lock);
	host_total = ctx->map.host_total;
	/* What the snapshot watcher found since the last evaluation, if anything. */
	if (!running_in_slurmctld() ||
	    !ffg_snapshot_peek_status(ctx->watch, status, sizeof(status)))
		snprintf(status, sizeof(status), "%s", ctx->engine_status);
	xstrfmtcat(out, "Plugin=%s Version=\"%s\"\n", plugin_type, ff_version());
	xstrfmtcat(out, "Config=%s Status=\"%s\" Using=%s\n",
		   ctx->conf_path ? ctx->conf_path : "(none)", ctx->conf_status, settings->source);
	xstrfmtcat(out, "SnapshotFile=%s DefaultPattern=%s\n", settings->snapshot_file, pattern);
	xstrfmtcat(out,
		   "LocalityWaitMax=%.0f LocalityWaitCommShare=%g LocalityWaitRouting=%s "
		   "LocalityWaitEstimate=%s\n",
		   settings->locality_wait_max_s, settings->locality_wait_comm_share,
		   settings->locality_wait_static_routing ? "static" : "ecmp",
		   settings->locality_wait_history_estimate ? "history" : "limit");
	xstrfmtcat(out, "Placement=%s Snapshot=\"%s\"\n",
		   ctx->engine ? "fabricfit" : "slurm-default", status);
	if (running_in_slurmctld() && ctx->health) {
		char health[FF_PATH_MAX + 1024], avoiding[256];
		ffg_health_status(ctx->health, health, sizeof(health));
		ff_engine_health_describe(ctx->engine, avoiding, sizeof(avoiding));
		xstrfmtcat(out, "%s HealthMaxAge=%ld Avoiding=\"%s\"\n", health,
			   settings->health_max_age_s, avoiding);
	}
	if (ctx->engine && running_in_slurmctld()) {
		char *mismatch = ffg_mismatch_text(ctx, false);
		if (mismatch)
			xstrfmtcat(out, "%s\n", mismatch);
		xfree(mismatch);
		*fabric = _describe_fabric(ctx);
	}
	if (ctx->engine && host_total) {
		int hosts = ff_engine_host_count(ctx->engine), known = 0, gpus = 0;
		for (int h = 0; h < hosts; h++)
			if (host_total[h] > 0) {
				known++;
				gpus += host_total[h];
			}
		/* What placement and get_fragmentation count: hosts whose GPUs are known. */
		xstrfmtcat(out, "HostsWithGpus=%d/%d Gpus=%d\n", known, hosts, gpus);
	}
	pthread_rwlock_unlock(&ctx->engine_lock);
	return out;
}
