/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Node ranks for a job's task layout (Slurm 26.05+, topology_p_get_rank): cons_tres asks
 * for them right after the evaluation that allocated the job, under the same locks, and
 * Slurm then numbers the job's tasks in rank order (block distribution) and picks nodes for
 * steps smaller than the job in that order. fabricfit gives the order of its own decision:
 * the leaf groups in the order the engine put them (for tp/pp/dp, the groups holding whole
 * pipeline stages first), hosts ascending inside each. A node set that no decision of
 * fabricfit's made (Slurm's own selection) is ranked by leaf group and host order.
 */

#include "config.h"

#include <string.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/bitstring.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"

#include "engine_slot.h"
#include "fabricfit_api.h"
#include "node_map.h"
#include "topology_eval.h"
#include "topology_rank.h"

static void _forget_decision(ffg_decision_order_t *order)
{
	order->count = 0;
	order->engine = NULL;
}

/*
 * Keeps the order of the decision that produced node_map. ffg_eval_nodes leaves the
 * engine's choice in host_chosen[] (rank order), or Slurm's own nodes there when it
 * counts leaf groups for --switches; only when those hosts are exactly node_map is it an
 * order for this allocation.
 */
static void _note_decision(ffg_ctx_t *ctx, bitstr_t *node_map)
{
	ffg_decision_order_t *order = &ctx->order;
	const ffg_node_map_t *map = &ctx->map;
	int hosts, count;
	bitstr_t *seen = NULL;

	_forget_decision(order);
	if (!ctx->engine || !node_map || !map->host_chosen || !ffg_map_current(ctx))
		return;
	hosts = ff_engine_host_count(ctx->engine);
	count = bit_set_count(node_map);
	if (count < 2 || count > hosts)
		return;
	seen = bit_alloc(bit_size(node_map));
	for (int k = 0; k < count; k++) {
		int h = map->host_chosen[k], i = (h >= 0 && h < hosts) ? map->node_of_host[h] : -1;
		if (i < 0 || i >= bit_size(node_map) || !bit_test(node_map, i) ||
		    bit_test(seen, i)) {
			FREE_NULL_BITMAP(seen);
			return;
		}
		bit_set(seen, i);
	}
	FREE_NULL_BITMAP(seen);
	xrecalloc(order->nodes, count, sizeof(*order->nodes));
	for (int k = 0; k < count; k++)
		order->nodes[k] = map->node_of_host[map->host_chosen[k]];
	order->count = count;
	order->engine = ctx->engine;
}

extern int ffg_rank_eval(ffg_ctx_t *ctx, topology_eval_t *topo_eval)
{
	int rc = ffg_eval(ctx, topo_eval);

	if (rc == SLURM_SUCCESS)
		_note_decision(ctx, topo_eval->node_map);
	else
		_forget_decision(&ctx->order);
	return rc;
}

extern void ffg_rank_free(ffg_ctx_t *ctx)
{
	xfree(ctx->order.nodes);
	_forget_decision(&ctx->order);
}

/* The decision's order applies to node_bitmap when it is the same set of nodes. */
static bool _decision_matches(const ffg_ctx_t *ctx, bitstr_t *node_bitmap, uint32_t count)
{
	const ffg_decision_order_t *order = &ctx->order;

	if (!order->count || order->count != count || order->engine != ctx->engine ||
	    !ffg_map_current(ctx))
		return false;
	for (uint32_t k = 0; k < order->count; k++)
		if (order->nodes[k] >= bit_size(node_bitmap) ||
		    !bit_test(node_bitmap, order->nodes[k]))
			return false;
	return true;
}

/*
 * Ranks in the decision's order: the leaf group's place among the job's groups in the
 * unit bits (above unit_shift), the node's place in the decision below them.
 */
static void _rank_by_decision(const ffg_ctx_t *ctx, bitstr_t *node_bitmap, uint32_t *node_rank,
			      int unit_shift)
{
	const ffg_decision_order_t *order = &ctx->order;
	const ff_engine_t *engine = ctx->engine;
	const int *host_of_node = ctx->map.host_of_node;
	int hosts = ff_engine_host_count(engine);
	int *unit_of_group = xcalloc(MAX(hosts, 1), sizeof(int));
	int *pos_of_node = xcalloc(bit_size(node_bitmap), sizeof(int));
	uint32_t units = 0, pos = 0;

	for (uint32_t k = 0; k < order->count; k++) {
		int group = ff_engine_host_leaf_group(engine, host_of_node[order->nodes[k]]);
		pos_of_node[order->nodes[k]] = k;
		/* unit_of_group holds unit + 1 (0: not seen yet); groups index below hosts. */
		if (group >= 0 && group < hosts && !unit_of_group[group])
			unit_of_group[group] = ++units;
	}
	for (int i = 0; next_node_bitmap(node_bitmap, &i); i++, pos++) {
		int group = ff_engine_host_leaf_group(engine, host_of_node[i]);
		uint32_t unit = (group >= 0 && group < hosts) ? unit_of_group[group] - 1 : units;
		node_rank[pos] = unit << unit_shift | (uint32_t)pos_of_node[i];
	}
	xfree(unit_of_group);
	xfree(pos_of_node);
}

/*
 * Each node's rank: by fabricfit's decision when it made this allocation, else the leaf
 * group fabricfit knows the node in, then its place in fabricfit's host order, so that a
 * job's tasks fill one leaf group before the next. Without a snapshot Slurm keeps its own
 * order (no ranks).
 */
extern int ffg_rank_get(ffg_ctx_t *ctx, bitstr_t *node_bitmap, uint32_t **node_rank, uint32_t *size,
			int unit_shift)
{
	const int *host_of_node;
	uint32_t count, pos = 0;
	const uint32_t low_mask = (1u << unit_shift) - 1, no_unit = UINT32_MAX >> unit_shift;

	*node_rank = NULL;
	*size = 0;
	if (!node_bitmap || !(count = bit_set_count(node_bitmap)))
		return SLURM_SUCCESS;
	ffg_refresh_engine(ctx);
	if (!ctx->engine || ctx->map.mapped_node_count != node_record_count ||
	    ctx->map.nodes_changed)
		return SLURM_SUCCESS;
	host_of_node = ctx->map.host_of_node;
	*node_rank = xcalloc(count, sizeof(**node_rank));
	*size = count;
	if (_decision_matches(ctx, node_bitmap, count)) {
		_rank_by_decision(ctx, node_bitmap, *node_rank, unit_shift);
		return SLURM_SUCCESS;
	}
	for (int i = 0; next_node_bitmap(node_bitmap, &i); i++, pos++) {
		int host = host_of_node[i];
		int group = (host >= 0) ? ff_engine_host_leaf_group(ctx->engine, host) : -1;
		int rank = (host >= 0) ? ff_engine_host_rank(ctx->engine, host) : i;

		(*node_rank)[pos] = ((group >= 0) ? (uint32_t)group : no_unit) << unit_shift |
				    ((uint32_t)rank & low_mask);
	}
	return SLURM_SUCCESS;
}
