/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology/fabricfit: the engine in use and the map between Slurm's node table and the
 * fabric's hosts (topology_glue_internal.h). Slurm's node indices change on reconfigure
 * and slots are reused by scontrol create/delete node, so the map is checked and made
 * again when they do; GPU counts are taken from a source that is valid when read.
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
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/interfaces/gres.h"
#include "src/interfaces/select.h"
#include "src/interfaces/topology.h"
#include "src/slurmctld/slurmctld.h"

#include "fabricfit_api.h"
#include "placement_record.h"
#include "snapshot_watch.h"
#include "topology_glue_internal.h"

/* slurmctld only: the placement engine over the loaded snapshot. */
ff_engine_t *engine = NULL;
pthread_rwlock_t engine_lock = PTHREAD_RWLOCK_INITIALIZER;
unsigned engine_generation = 0;
char engine_status[FF_PATH_MAX + 1024] = "not loaded";
int *host_of_node = NULL; /* Slurm node index -> fabric host, -1 if unknown */
int *node_of_host = NULL; /* fabric host -> Slurm node index, -1 if none */
int mapped_node_count = -1;
char **mapped_name = NULL;   /* Slurm node name per slot when mapped (slots are reused) */
bool totals_pending = false; /* some host's GPU count was not known when read */
bool nodes_changed = false;  /* a node was added or removed since the last map */
char *mismatch_note = NULL;  /* Slurm nodes and fabric hosts without a counterpart */
unsigned char *host_allowed = NULL;
int *host_free = NULL, *host_total = NULL, *host_chosen = NULL;

/* The map matches Slurm's node table now: same size, no node added or removed. */
extern bool ffg_map_current(void)
{
	return engine && mapped_node_count == node_record_count && !nodes_changed;
}

/*
 * A slot of the node table holds the node it held when mapped. Slurm reuses the slots of
 * deleted nodes for new ones (scontrol create/delete node) without changing
 * node_record_count, so the name is checked.
 */
extern bool ffg_slot_current(int i)
{
	node_record_t *node_ptr = node_record_table_ptr[i];
	return node_ptr && mapped_name[i] && !strcmp(node_ptr->name, mapped_name[i]);
}

/*
 * "NotInFabric=... NotInSlurm=..." for Slurm's node table as it is now (NULL when Slurm and
 * the fabric agree), logged when `log`. It reads the table, not the map, and changes no
 * state of the plugin: `scontrol show topology` calls it under a node read lock only, so a
 * dynamic node shows there before any job is offered it.
 */
extern char *ffg_mismatch_text(bool log)
{
	int hosts = ff_engine_host_count(engine);
	hostlist_t *unknown = hostlist_create(NULL), *unused = hostlist_create(NULL);
	bool *in_slurm = xcalloc(MAX(hosts, 1), sizeof(bool));
	node_record_t *node_ptr;
	char *a, *b, *text = NULL;

	for (int i = 0; (node_ptr = next_node(&i)); i++) {
		int host = ff_engine_host(engine, node_ptr->name);
		if (host < 0)
			hostlist_push_host(unknown, node_ptr->name);
		else if (host < hosts)
			in_slurm[host] = true;
	}
	for (int h = 0; h < hosts; h++)
		if (!in_slurm[h] && ff_engine_host_name(engine, h))
			hostlist_push_host(unused, ff_engine_host_name(engine, h));
	hostlist_sort(unknown);
	hostlist_sort(unused);
	a = hostlist_ranged_string_xmalloc(unknown);
	b = hostlist_ranged_string_xmalloc(unused);
	if (hostlist_count(unknown) || hostlist_count(unused)) {
		xstrfmtcat(text, "NotInFabric=%s NotInSlurm=%s", a[0] ? a : "(none)",
			   b[0] ? b : "(none)");
		if (log && hostlist_count(unknown))
			warning("fabricfit: %d Slurm node(s) are not in the fabric: %s; jobs "
				"offered them use Slurm's selection",
				hostlist_count(unknown), a);
		if (log && hostlist_count(unused))
			warning("fabricfit: %d fabric host(s) are not Slurm nodes: %s",
				hostlist_count(unused), b);
	}
	xfree(in_slurm);
	xfree(a);
	xfree(b);
	hostlist_destroy(unknown);
	hostlist_destroy(unused);
	return text;
}

/* Names, once per snapshot or node table, what ffg_mismatch_text() finds. */
static void _report_mismatch(void)
{
	xfree(mismatch_note);
	mismatch_note = ffg_mismatch_text(true);
}

/*
 * A node's GPUs from a count that is valid now: the GRES state's configured count is a
 * NO_VAL sentinel (or 0) until Slurm reconciles slurm.conf with the state it saved, so
 * right after a restart slurm.conf's Gres= string of the node answers instead.
 */
extern int ffg_node_gpus(node_record_t *node_ptr)
{
	uint64_t reported = gres_node_config_cnt(node_ptr->gres_list, "gpu");
	const char *conf = node_ptr->config_ptr && node_ptr->config_ptr->gres
			       ? node_ptr->config_ptr->gres
			       : node_ptr->gres;
	return ff_node_gpus(reported, conf);
}

/* A node's GPUs in use now (its GRES state), 0 when it has none. */
extern int ffg_node_gpus_used(node_record_t *node_ptr)
{
	gres_state_t *gres_state;
	list_itr_t *iter;
	uint64_t used = 0;

	if (!node_ptr->gres_list)
		return 0;
	iter = list_iterator_create(node_ptr->gres_list);
	while ((gres_state = list_next(iter)))
		if (gres_state->gres_data && !xstrcmp(gres_state->gres_name, "gpu"))
			used += ((gres_node_state_t *)gres_state->gres_data)->gres_cnt_alloc;
	list_iterator_destroy(iter);
	return (int)MIN(used, (uint64_t)INT32_MAX);
}

/* Reads again the GPU counts that were not known (get_fragmentation sees every host). */
extern void ffg_refresh_totals(void)
{
	int hosts = ff_engine_host_count(engine);

	totals_pending = false;
	for (int h = 0; h < hosts; h++) {
		int i = node_of_host[h];
		if (i < 0 || host_total[h] > 0 || !node_record_table_ptr[i])
			continue;
		host_total[h] = MAX(ffg_node_gpus(node_record_table_ptr[i]), 0);
		if (!host_total[h])
			totals_pending = true;
	}
}

static void _free_names(void)
{
	if (mapped_name)
		for (int i = 0; i < mapped_node_count; i++)
			xfree(mapped_name[i]);
	xfree(mapped_name);
}

/* The node map and the per-host scratch arrays sized by it. */
static void _free_map(void)
{
	_free_names();
	xfree(host_of_node);
	xfree(node_of_host);
	xfree(host_allowed);
	xfree(host_free);
	xfree(host_total);
	xfree(host_chosen);
}

/* Maps Slurm's node table onto the fabric's hosts (node indices change on reconfigure). */
extern void ffg_map_nodes(void)
{
	int hosts = ff_engine_host_count(engine);
	node_record_t *node_ptr;

	_free_map();
	mapped_node_count = node_record_count;
	mapped_name = xcalloc(MAX(node_record_count, 1), sizeof(char *));
	host_of_node = xcalloc(MAX(node_record_count, 1), sizeof(int));
	node_of_host = xcalloc(MAX(hosts, 1), sizeof(int));
	host_allowed = xcalloc(MAX(hosts, 1), sizeof(unsigned char));
	host_free = xcalloc(MAX(hosts, 1), sizeof(int));
	host_total = xcalloc(MAX(hosts, 1), sizeof(int));
	host_chosen = xcalloc(MAX(hosts, 1), sizeof(int));
	for (int h = 0; h < hosts; h++)
		node_of_host[h] = -1;
	for (int i = 0; i < node_record_count; i++)
		host_of_node[i] = -1;
	nodes_changed = false;
	totals_pending = false;
	for (int i = 0; (node_ptr = next_node(&i)); i++) {
		int host = ff_engine_host(engine, node_ptr->name);
		host_of_node[i] = host;
		mapped_name[i] = xstrdup(node_ptr->name);
		if (host >= 0) {
			node_of_host[host] = i;
			host_total[host] = MAX(ffg_node_gpus(node_ptr), 0);
			if (!host_total[host])
				totals_pending = true;
		}
	}
	_report_mismatch();
}

/*
 * Puts a newly loaded engine in place (under slurmctld's locks: nothing evaluates at the
 * same time).
 */
static void _adopt(ff_engine_t *fresh, const char *status)
{
	if (!fresh)
		return;
	/* scontrol show topology may be reading the old one (under a node read lock only). */
	pthread_rwlock_wrlock(&engine_lock);
	ffg_record_settle(); /* records of decisions made with the old engine */
	ff_engine_free(engine);
	engine = fresh;
	if (!++engine_generation)
		engine_generation = 1; /* 0 means none */
	ffg_map_nodes();
	pthread_rwlock_unlock(&engine_lock);
	snprintf(engine_status, sizeof(engine_status), "%s", status);
}

/* Takes over what the snapshot watcher loaded since the last call (cheap when nothing). */
extern void ffg_refresh_engine(void)
{
	/* Runs in every evaluation: the buffer is not zero-filled, only terminated. */
	char status[sizeof(engine_status)];
	bool status_changed = false;
	ff_engine_t *fresh;

	if (!running_in_slurmctld())
		return;
	status[0] = '\0';
	fresh = ffg_snapshot_take(status, sizeof(status), &status_changed);
	if (fresh)
		_adopt(fresh, status);
	else if (status_changed)
		snprintf(engine_status, sizeof(engine_status), "%s", status);
}

/* Reads the snapshot now (startup, reconfigure), falling back to the last good copy. */
extern void ffg_load_engine_now(void)
{
	char status[sizeof(engine_status)] = "";
	char *keep = NULL;
	char **names = xcalloc(MAX(node_record_count, 1), sizeof(char *));
	int count = 0;
	node_record_t *node_ptr;
	ff_engine_t *fresh;

	/* A snapshot must have some of these as hosts (not another fabric's). */
	for (int i = 0; (node_ptr = next_node(&i)); i++)
		names[count++] = node_ptr->name;

	if (slurm_conf.state_save_location)
		xstrfmtcat(keep, "%s/fabricfit.snapshot.last-good", slurm_conf.state_save_location);
	fresh = ffg_snapshot_load_now(settings.snapshot_file, keep, names, count, engine != NULL,
				      status, sizeof(status));
	xfree(keep);
	xfree(names);
	if (fresh)
		_adopt(fresh, status);
	else if (status[0])
		snprintf(engine_status, sizeof(engine_status), "%s", status);
	else if (engine && !ffg_map_current())
		ffg_map_nodes();
	ffg_snapshot_watch_start();
}

extern void ffg_free_engine(void)
{
	if (running_in_slurmctld())
		ffg_snapshot_watch_stop();
	pthread_rwlock_wrlock(&engine_lock);
	ffg_record_settle(); /* nothing waits outside slurmctld */
	ff_engine_free(engine);
	engine = NULL;
	pthread_rwlock_unlock(&engine_lock);
	xfree(mismatch_note);
	_free_map();
	mapped_node_count = -1;
}
