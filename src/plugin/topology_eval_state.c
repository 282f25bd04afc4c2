/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Save and restore of what common_topo_choose_nodes() consumes (topology_eval_state.h).
 * Its eval_nodes() lowers avail_res_array[i]->avail_cpus and avail_res_cnt, clears cores
 * in avail_core, and trims each sock_gres's counts (_reduce_res_cores, the GRES filter);
 * common_topo_choose_nodes() only restores node_map and avail_core for its own retries.
 */

#include "config.h"

#include <string.h>

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/core_array.h"
#include "src/common/list.h"
#include "src/common/xmalloc.h"
#include "src/interfaces/gres.h"
#include "src/interfaces/select.h"

#include "topology_eval_state.h"

typedef struct {
	uint64_t total_cnt, total_cnt_before_filter, cnt_any_sock, max_node_gres;
	uint64_t *cnt_by_sock;
	int sock_cnt;
} saved_sock_gres_t;

typedef struct {
	avail_res_t counts; /* scalar fields only; the pointers are not owned */
	uint16_t *cores_per_sock;
	saved_sock_gres_t *gres;
	int gres_cnt;
} saved_node_t;

struct ffg_eval_state {
	bitstr_t *node_map;
	bitstr_t **avail_core;
	uint16_t avail_cpus;
	uint32_t min_nodes, max_nodes, req_nodes;
	bool first_pass, gres_per_job;
	int node_cnt;
	saved_node_t *nodes; /* by node index; only offered nodes are filled */
};

static void _save_node(saved_node_t *out, const avail_res_t *res)
{
	list_itr_t *it;
	sock_gres_t *sg;
	int k = 0;

	out->counts = *res;
	if (res->avail_cores_per_sock && res->sock_cnt) {
		out->cores_per_sock = xcalloc(res->sock_cnt, sizeof(uint16_t));
		memcpy(out->cores_per_sock, res->avail_cores_per_sock,
		       res->sock_cnt * sizeof(uint16_t));
	}
	if (!res->sock_gres_list || !(out->gres_cnt = list_count(res->sock_gres_list)))
		return;
	out->gres = xcalloc(out->gres_cnt, sizeof(*out->gres));
	it = list_iterator_create(res->sock_gres_list);
	while ((sg = list_next(it)) && k < out->gres_cnt) {
		saved_sock_gres_t *s = &out->gres[k++];
		s->total_cnt = sg->total_cnt;
		s->total_cnt_before_filter = sg->total_cnt_before_filter;
		s->cnt_any_sock = sg->cnt_any_sock;
		s->max_node_gres = sg->max_node_gres;
		s->sock_cnt = sg->cnt_by_sock ? sg->sock_cnt : 0;
		if (s->sock_cnt) {
			s->cnt_by_sock = xcalloc(s->sock_cnt, sizeof(uint64_t));
			memcpy(s->cnt_by_sock, sg->cnt_by_sock, s->sock_cnt * sizeof(uint64_t));
		}
	}
	list_iterator_destroy(it);
}

static void _restore_node(const saved_node_t *in, avail_res_t *res)
{
	list_itr_t *it;
	sock_gres_t *sg;
	int k = 0;

	res->avail_cpus = in->counts.avail_cpus;
	res->avail_gpus = in->counts.avail_gpus;
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 5, 0)
	res->avail_res_prod = in->counts.avail_res_prod; /* avail_res_cnt until 24.11 */
#else
	res->avail_res_cnt = in->counts.avail_res_cnt;
#endif
	res->gres_min_cpus = in->counts.gres_min_cpus;
	res->gres_max_tasks = in->counts.gres_max_tasks;
	res->max_cpus = in->counts.max_cpus;
	res->min_cpus = in->counts.min_cpus;
	if (in->cores_per_sock && res->avail_cores_per_sock)
		memcpy(res->avail_cores_per_sock, in->cores_per_sock,
		       in->counts.sock_cnt * sizeof(uint16_t));
	if (!in->gres || !res->sock_gres_list)
		return;
	it = list_iterator_create(res->sock_gres_list);
	while ((sg = list_next(it)) && k < in->gres_cnt) {
		const saved_sock_gres_t *s = &in->gres[k++];
		sg->total_cnt = s->total_cnt;
		sg->total_cnt_before_filter = s->total_cnt_before_filter;
		sg->cnt_any_sock = s->cnt_any_sock;
		sg->max_node_gres = s->max_node_gres;
		if (s->cnt_by_sock && sg->cnt_by_sock && sg->sock_cnt == s->sock_cnt)
			memcpy(sg->cnt_by_sock, s->cnt_by_sock, s->sock_cnt * sizeof(uint64_t));
	}
	list_iterator_destroy(it);
}

extern ffg_eval_state_t *ffg_eval_state_save(const topology_eval_t *topo_eval)
{
	ffg_eval_state_t *state = xmalloc(sizeof(*state));

	state->node_map = bit_copy(topo_eval->node_map);
	state->avail_core = topo_eval->avail_core ? copy_core_array(topo_eval->avail_core) : NULL;
	state->avail_cpus = topo_eval->avail_cpus;
	state->min_nodes = topo_eval->min_nodes;
	state->max_nodes = topo_eval->max_nodes;
	state->req_nodes = topo_eval->req_nodes;
	state->first_pass = topo_eval->first_pass;
	state->gres_per_job = topo_eval->gres_per_job;
	state->node_cnt = bit_size(topo_eval->node_map);
	state->nodes = xcalloc(MAX(state->node_cnt, 1), sizeof(*state->nodes));
	if (topo_eval->avail_res_array)
		for (int i = 0; (i = bit_ffs_from_bit(topo_eval->node_map, i)) >= 0; i++)
			if (topo_eval->avail_res_array[i])
				_save_node(&state->nodes[i], topo_eval->avail_res_array[i]);
	return state;
}

extern void ffg_eval_state_restore(const ffg_eval_state_t *state, topology_eval_t *topo_eval)
{
	bit_copybits(topo_eval->node_map, state->node_map);
	if (state->avail_core && topo_eval->avail_core) {
		/* Cores the first pass gave up are set again; none it kept is added. */
		for (int i = 0; i < state->node_cnt; i++) {
			if (!state->avail_core[i]) {
				FREE_NULL_BITMAP(topo_eval->avail_core[i]);
			} else if (!topo_eval->avail_core[i]) {
				topo_eval->avail_core[i] = bit_copy(state->avail_core[i]);
			} else {
				bit_copybits(topo_eval->avail_core[i], state->avail_core[i]);
			}
		}
	}
	topo_eval->avail_cpus = state->avail_cpus;
	topo_eval->min_nodes = state->min_nodes;
	topo_eval->max_nodes = state->max_nodes;
	topo_eval->req_nodes = state->req_nodes;
	topo_eval->first_pass = state->first_pass;
	topo_eval->gres_per_job = state->gres_per_job;
	if (topo_eval->avail_res_array)
		for (int i = 0; (i = bit_ffs_from_bit(state->node_map, i)) >= 0; i++)
			if (topo_eval->avail_res_array[i])
				_restore_node(&state->nodes[i], topo_eval->avail_res_array[i]);
}

extern void ffg_eval_state_free(ffg_eval_state_t *state)
{
	if (!state)
		return;
	for (int i = 0; i < state->node_cnt; i++) {
		xfree(state->nodes[i].cores_per_sock);
		for (int k = 0; k < state->nodes[i].gres_cnt; k++)
			xfree(state->nodes[i].gres[k].cnt_by_sock);
		xfree(state->nodes[i].gres);
	}
	xfree(state->nodes);
	FREE_NULL_BITMAP(state->node_map);
	if (state->avail_core)
		free_core_array(&state->avail_core);
	xfree(state);
}
