/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --exclusive=topo (and a partition's ExclusiveTopo=YES, and the blockwith{NODE} node-list
 * function): slurmctld asks the topology to widen a node mask to the whole units a job
 * holds, and cons_tres and node_mgr keep the rest of a unit away from other jobs. fabricfit's
 * unit is the NVLink domain (ff_engine_mark_whole_domains); a host in no domain is its own.
 *
 * Callers (cons_tres's job tests, backfill, node_mgr_make_node_blocked, reservations, node
 * list parsing) hold at least slurmctld's node read lock, under which the node map does not
 * change; engine_lock for reading keeps the engine. Nothing here changes the plugin's state:
 * when the map is behind the node table (a reconfigure or a new node, until the next
 * evaluation maps again), hosts are found by name instead.
 */

#include "config.h"

#include <pthread.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/bitstring.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"

#include "fabricfit_api.h"
#include "node_map.h"
#include "topology_glue.h"

static int _host_now(const ffg_ctx_t *ctx, bool mapped, int i)
{
	node_record_t *node_ptr;

	if (mapped)
		return ffg_host_of(ctx, i);
	node_ptr = node_record_table_ptr[i];
	return node_ptr ? ff_engine_host(ctx->engine, node_ptr->name) : -1;
}

extern int ffg_whole_topo(ffg_ctx_t *ctx, bitstr_t *node_mask)
{
	unsigned char *hosts;
	int nodes, count, marked;
	bool mapped;

	if (!node_mask)
		return SLURM_SUCCESS;
	pthread_rwlock_rdlock(&ctx->engine_lock);
	if (!ctx->engine || (count = ff_engine_host_count(ctx->engine)) <= 0) {
		pthread_rwlock_unlock(&ctx->engine_lock);
		return SLURM_SUCCESS;
	}
	mapped = ffg_map_current(ctx);
	nodes = MIN(bit_size(node_mask), node_record_count);
	hosts = xcalloc(count, 1);
	for (int i = 0; i < nodes; i++) {
		int h = bit_test(node_mask, i) ? _host_now(ctx, mapped, i) : -1;
		if (h >= 0 && h < count)
			hosts[h] = 1;
	}
	marked = ff_engine_mark_whole_domains(ctx->engine, hosts, count);
	if (marked < 0)
		error(
		    "fabricfit: whole_topo: could not widen the node mask to whole NVLink domains");
	for (int i = 0; marked > 0 && i < nodes; i++) {
		int h = _host_now(ctx, mapped, i);
		if (h >= 0 && h < count && hosts[h])
			bit_set(node_mask, i);
	}
	pthread_rwlock_unlock(&ctx->engine_lock);
	xfree(hosts);
	return SLURM_SUCCESS;
}
