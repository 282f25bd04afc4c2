/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology/fabricfit, the part that is the same in every Slurm release it supports: thin
 * glue that translates between Slurm's structures and fabricfit's C API (fabricfit_api.h)
 * and holds no logic of its own. The symbols slurmctld looks up are in one small file per
 * release (topology_exports_<release>.c, chosen by configure), each a mechanical call into
 * the functions here. Any failure logs one clear line and leaves Slurm's default selection
 * in charge.
 */

#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/bitstring.h"
#include "src/common/hostlist.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/pack.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/interfaces/gres.h"
#include "src/interfaces/select.h"
#include "src/interfaces/topology.h"
#include "src/slurmctld/slurmctld.h"

#include "src/plugins/topology/common/common_topo.h"

#include "fabricfit_api.h"
#include "placement_record.h"
#include "topology_eval_state.h"
#include "topology_glue.h"
#include "snapshot_watch.h"
#include "topology_glue_internal.h"
#include "topology_wait.h"

const char plugin_name[] = "topology fabricfit plugin";
const char plugin_type[] = "topology/fabricfit";
/* Slurm's own topology plugins use 100-104. */
const uint32_t plugin_id = 190;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

ff_settings_t settings;
static char *conf_path = NULL;
static char conf_status[512] = "not read";

/*
 * Reads fabricfit.conf. A bad file never replaces good settings: slurmctld keeps a copy
 * of the last good file in StateSaveLocation, which survives the re-exec that
 * `scontrol reconfigure` does.
 */
static void _load_settings(void)
{
	char err[512] = "";
	char *last_good = NULL;

	if (!conf_path)
		conf_path = get_extra_conf_path("fabricfit.conf");
	if (running_in_slurmctld() && slurm_conf.state_save_location)
		xstrfmtcat(last_good, "%s/fabricfit.conf.last-good",
			   slurm_conf.state_save_location);
	if (ff_settings_load(conf_path, last_good, &settings, err, sizeof(err)) == FF_OK) {
		snprintf(conf_status, sizeof(conf_status), "ok");
	} else {
		snprintf(conf_status, sizeof(conf_status), "error: %s", err);
		if (running_in_slurmctld())
			error("fabricfit: %s; using %s", err,
			      !strcmp(settings.source, "last-good")
				  ? "the last good copy of the file"
				  : "built-in defaults");
	}
	xfree(last_good);
}

extern int ffg_init(void)
{
	_load_settings();
	if (running_in_slurmctld()) {
		ffg_wait_init();
		ffg_record_start();
	}
	if (running_in_slurmctld())
		info("fabricfit: %s loaded (%s for Slurm %s, config %s: %s)", plugin_type,
		     ff_version(), SLURM_VERSION_STRING, conf_path, conf_status);
	return SLURM_SUCCESS;
}

extern void ffg_fini(void)
{
	if (running_in_slurmctld())
		ffg_record_stop();
	ffg_free_engine();
	ffg_wait_forget();
	ffg_eval_state_fini();
	xfree(conf_path);
}

extern int ffg_build_config(void)
{
	_load_settings();
	if (running_in_slurmctld())
		ffg_load_engine_now();
	return SLURM_SUCCESS;
}

extern int ffg_destroy_config(void)
{
	ffg_free_engine();
	return SLURM_SUCCESS;
}

/* A node was added or removed at run time (scontrol create/delete node): map again. */
extern int ffg_add_rm_node(node_record_t *node_ptr)
{
	nodes_changed = true;
	if (engine)
		info("fabricfit: node %s added or removed: mapping Slurm's nodes onto the fabric "
		     "again",
		     node_ptr ? node_ptr->name : "(unknown)");
	return SLURM_SUCCESS;
}

/* Ranks nodes so that each leaf group's nodes are contiguous (known hosts first). */
extern bool ffg_generate_node_ranking(void)
{
	node_record_t *node_ptr;
	int hosts;

	if (!running_in_slurmctld())
		return false;
	if (!conf_path)
		_load_settings();
	if (!engine)
		ffg_load_engine_now();
	else
		ffg_refresh_engine();
	if (!engine)
		return false;
	hosts = ff_engine_host_count(engine);
	for (int i = 0; (node_ptr = next_node(&i)); i++) {
		int host = ff_engine_host(engine, node_ptr->name);
		node_ptr->node_rank = (host >= 0) ? ff_engine_host_rank(engine, host) : hosts + i;
	}
	/* Node indices change once Slurm sorts by rank: map again on next use. */
	mapped_node_count = -1;
	return true;
}

/*
 * The fabric as the controller sees it now (ff_engine_topology): free and total GPUs per
 * fabric host read from Slurm's node table into arrays of this call's own, since several
 * scontrol requests may run at once. Caller holds engine_lock for reading.
 */
static char *_describe_fabric(void)
{
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
extern char *ffg_describe(char **fabric)
{
	char *out = NULL, status[sizeof(engine_status)];

	*fabric = NULL;
	pthread_rwlock_rdlock(&engine_lock);
	/* What the snapshot watcher found since the last evaluation, if anything. */
	if (!running_in_slurmctld() || !ffg_snapshot_peek_status(status, sizeof(status)))
		snprintf(status, sizeof(status), "%s", engine_status);
	xstrfmtcat(out, "Plugin=%s Version=\"%s\"\n", plugin_type, ff_version());
	xstrfmtcat(out, "Config=%s Status=\"%s\" Using=%s\n", conf_path ? conf_path : "(none)",
		   conf_status, settings.source);
	xstrfmtcat(out, "SnapshotFile=%s DefaultPattern=%s\n", settings.snapshot_file,
		   settings.default_pattern);
	xstrfmtcat(out,
		   "LocalityWaitMax=%.0f LocalityWaitCommShare=%g LocalityWaitRouting=%s "
		   "LocalityWaitEstimate=%s\n",
		   settings.locality_wait_max_s, settings.locality_wait_comm_share,
		   settings.locality_wait_static_routing ? "static" : "ecmp",
		   settings.locality_wait_history_estimate ? "history" : "limit");
	xstrfmtcat(out, "Placement=%s Snapshot=\"%s\"\n", engine ? "fabricfit" : "slurm-default",
		   status);
	if (engine && running_in_slurmctld()) {
		char *mismatch = ffg_mismatch_text(false);
		if (mismatch)
			xstrfmtcat(out, "%s\n", mismatch);
		xfree(mismatch);
		*fabric = _describe_fabric();
	}
	if (engine && host_total) {
		int hosts = ff_engine_host_count(engine), known = 0, gpus = 0;
		for (int h = 0; h < hosts; h++)
			if (host_total[h] > 0) {
				known++;
				gpus += host_total[h];
			}
		/* What placement and get_fragmentation count: hosts whose GPUs are known. */
		xstrfmtcat(out, "HostsWithGpus=%d/%d Gpus=%d\n", known, hosts, gpus);
	}
	pthread_rwlock_unlock(&engine_lock);
	return out;
}

/*
 * Backfill compares this across candidate start times (lower is better): the free GPUs
 * that the workload's job sizes could not use if the nodes in node_mask were the free ones.
 */
extern uint32_t ffg_get_fragmentation(bitstr_t *node_mask)
{
	double share = 0, unusable = 0;
	char err[256] = "";
	int hosts;

	ffg_refresh_engine();
	if (!engine)
		return 0;
	if (!ffg_map_current())
		ffg_map_nodes();
	if (totals_pending)
		ffg_refresh_totals();
	hosts = ff_engine_host_count(engine);
	for (int h = 0; h < hosts; h++) {
		int i = node_of_host[h];
		host_free[h] = (i >= 0 && bit_test(node_mask, i)) ? host_total[h] : 0;
	}
	if (ff_engine_fragmentation(engine, host_free, host_total, &share, &unusable, err,
				    sizeof(err)) != FF_OK)
		return 0;
	return (uint32_t)(unusable + 0.5);
}
