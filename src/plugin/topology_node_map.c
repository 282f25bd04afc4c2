/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The map between Slurm's node table and the fabric's hosts (node_map.h).
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
#include "node_map.h"

/* The map matches Slurm's node table now: same size, no node added or removed. */
extern bool ffg_map_current(const ffg_ctx_t *ctx)
{
	return ctx->engine && ctx->map.mapped_node_count == node_record_count &&
	       !ctx->map.nodes_changed;
}

/*
 * A slot of the node table holds the node it held when mapped. Slurm reuses the slots of
 * deleted nodes for new ones (scontrol create/delete node) without changing
 * node_record_count, so the name is checked.
 */
extern bool ffg_slot_current(const ffg_ctx_t *ctx, int i)
{
	node_record_t *node_ptr = node_record_table_ptr[i];
	return node_ptr && ctx->map.mapped_name[i] &&
	       !strcmp(node_ptr->name, ctx->map.mapped_name[i]);
}

extern int ffg_host_of(const ffg_ctx_t *ctx, int i)
{
	return (i >= 0 && i < ctx->map.mapped_node_count && ffg_slot_current(ctx, i))
		   ? ctx->map.host_of_node[i]
		   : -1;
}

/*
 * "NotInFabric=... NotInSlurm=..." for Slurm's node table as it is now (NULL when Slurm and
 * the fabric agree), logged when `log`. It reads the table, not the map, and changes no
 * state of the plugin: `scontrol show topology` calls it under a node read lock only, so a
 * dynamic node shows there before any job is offered it.
 */
extern char *ffg_mismatch_text(const ffg_ctx_t *ctx, bool log)
{
	const ff_engine_t *engine = ctx->engine;
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
static void _report_mismatch(ffg_ctx_t *ctx)
{
	xfree(ctx->map.mismatch_note);
	ctx->map.mismatch_note = ffg_mismatch_text(ctx, true);
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
extern void ffg_refresh_totals(ffg_ctx_t *ctx)
{
	ffg_node_map_t *map = &ctx->map;
	int hosts = ff_engine_host_count(ctx->engine);

	map->totals_pending = false;
	for (int h = 0; h < hosts; h++) {
		int i = map->node_of_host[h];
		if (i < 0 || map->host_total[h] > 0 || !node_record_table_ptr[i])
			continue;
		map->host_total[h] = MAX(ffg_node_gpus(node_record_table_ptr[i]), 0);
		if (!map->host_total[h])
			map->totals_pending = true;
	}
}

/* The node map and the per-host scratch arrays sized by it. */
extern void ffg_map_free(ffg_ctx_t *ctx)
{
	ffg_node_map_t *map = &ctx->map;

	if (map->mapped_name)
		for (int i = 0; i < map->mapped_node_count; i++)
			xfree(map->mapped_name[i]);
	xfree(map->mapped_name);
	xfree(map->host_of_node);
	xfree(map->node_of_host);
	xfree(map->host_allowed);
	xfree(map->host_free);
	xfree(map->host_total);
	xfree(map->host_chosen);
	xfree(map->mismatch_note);
	map->mapped_node_count = -1;
}

/* Maps Slurm's node table onto the fabric's hosts (node indices change on reconfigure). */
extern void ffg_map_nodes(ffg_ctx_t *ctx)
{
	ffg_node_map_t *map = &ctx->map;
	int hosts = ff_engine_host_count(ctx->engine);
	node_record_t *node_ptr;

	ffg_map_free(ctx);
	map->mapped_node_count = node_record_count;
	map->mapped_name = xcalloc(MAX(node_record_count, 1), sizeof(char *));
	map->host_of_node = xcalloc(MAX(node_record_count, 1), sizeof(int));
	map->node_of_host = xcalloc(MAX(hosts, 1), sizeof(int));
	map->host_allowed = xcalloc(MAX(hosts, 1), sizeof(unsigned char));
	map->host_free = xcalloc(MAX(hosts, 1), sizeof(int));
	map->host_total = xcalloc(MAX(hosts, 1), sizeof(int));
	map->host_chosen = xcalloc(MAX(hosts, 1), sizeof(int));
	for (int h = 0; h < hosts; h++)
		map->node_of_host[h] = -1;
	for (int i = 0; i < node_record_count; i++)
		map->host_of_node[i] = -1;
	map->nodes_changed = false;
	map->totals_pending = false;
	for (int i = 0; (node_ptr = next_node(&i)); i++) {
		int host = ff_engine_host(ctx->engine, node_ptr->name);
		map->host_of_node[i] = host;
		map->mapped_name[i] = xstrdup(node_ptr->name);
		if (host >= 0) {
			map->node_of_host[host] = i;
			map->host_total[host] = MAX(ffg_node_gpus(node_ptr), 0);
			if (!map->host_total[host])
				map->totals_pending = true;
		}
	}
	_report_mismatch(ctx);
}
