/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Save and restore of what common_topo_choose_nodes() consumes (topology_eval_state.h).
 * Its eval_nodes() lowers avail_res_array[i]->avail_cpus and avail_res_cnt, clears cores
 * in avail_core, and trims each sock_gres's counts (_reduce_res_cores, the GRES filter);
 * common_topo_choose_nodes() only restores node_map and avail_core for its own retries.
 *
 * Only the nodes of the narrowed pass are saved: in 24.11, 25.11 and 26.05 the evaluator
 * writes per-node state only for nodes in the node_map it is given (each variant walks
 * that map, or a node-weight list built from it; consec walks every node but selects
 * cores only on mapped ones), so the other offered nodes come back untouched. The GRES
 * filter sorts each node's sock_gres list, so its entries are matched by address.
 *
 * The copy is made for every evaluation fabricfit places, under the scheduler's locks, and
 * is rarely used: its buffers are kept from one evaluation to the next and only grown, so
 * that a steady cluster saves without allocating (per offered node, a fresh copy was a
 * core bitmap, a GRES array, its per-socket counts and a list iterator: hundreds of
 * malloc/free pairs per evaluation). slurmctld's job and node write locks, held by every
 * caller of eval_nodes, make one evaluation at a time, so the plugin's one is enough.
 */

#include "config.h"

#include <string.h>

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/interfaces/gres.h"
#include "src/interfaces/select.h"

#include "topology_eval_state.h"

typedef struct {
	const sock_gres_t *sg; /* the entry saved (the list's order may change) */
	uint64_t total_cnt, total_cnt_before_filter, cnt_any_sock, max_node_gres;
	uint64_t *cnt_by_sock;
	int sock_cnt, sock_slots; /* counts saved; room in cnt_by_sock */
} saved_sock_gres_t;

typedef struct {
	bool saved;	    /* filled by the last save */
	avail_res_t counts; /* scalar fields only; the pointers are not owned */
	uint16_t *cores_per_sock;
	int cores_slots;
	saved_sock_gres_t *gres;
	int gres_cnt, gres_slots;
} saved_node_t;

struct ffg_eval_state {
	bool in_use;
	bitstr_t *node_map;    /* every node offered: the second pass's map */
	bitstr_t *narrowed;    /* the nodes of the first pass: the only ones saved */
	bitstr_t **avail_core; /* by node index, for narrowed nodes; NULL where it had none */
	int core_cnt, core_slots;
	uint16_t avail_cpus;
	uint32_t min_nodes, max_nodes, req_nodes;
	bool first_pass, gres_per_job;
	int node_slots;
	saved_node_t *nodes; /* by node index; only narrowed nodes are saved */
};

/*
 * *buf holds at least `want` elements of `size` bytes (*slots: how many it holds); grown
 * entries are zeroed (xrealloc), so a new entry owns no buffer.
 */
static void _room(void **buf, int *slots, int want, size_t size)
{
	if (want <= *slots)
		return;
	xrealloc(*buf, want * size);
	*slots = want;
}

/* *dst becomes a copy of src, in its own bitmap while the sizes match. */
static void _copy_bits(bitstr_t **dst, bitstr_t *src)
{
	if (!src) {
		FREE_NULL_BITMAP(*dst);
	} else if (*dst && bit_size(*dst) == bit_size(src)) {
		bit_copybits(*dst, src);
	} else {
		FREE_NULL_BITMAP(*dst);
		*dst = bit_copy(src);
	}
}

static void _save_node(saved_node_t *out, const avail_res_t *res)
{
	list_itr_t *it;
	sock_gres_t *sg;
	int k = 0, cnt;

	out->saved = true;
	out->counts = *res;
	out->counts.sock_cnt = 0;
	if (res->avail_cores_per_sock && res->sock_cnt) {
		_room((void **)&out->cores_per_sock, &out->cores_slots, res->sock_cnt,
		      sizeof(uint16_t));
		memcpy(out->cores_per_sock, res->avail_cores_per_sock,
		       res->sock_cnt * sizeof(uint16_t));
		out->counts.sock_cnt = res->sock_cnt;
	}
	out->gres_cnt = 0;
	if (!res->sock_gres_list || !(cnt = list_count(res->sock_gres_list)))
		return;
	_room((void **)&out->gres, &out->gres_slots, cnt, sizeof(*out->gres));
	it = list_iterator_create(res->sock_gres_list);
	while ((sg = list_next(it)) && k < cnt) {
		saved_sock_gres_t *s = &out->gres[k++];
		s->sg = sg;
		s->total_cnt = sg->total_cnt;
		s->total_cnt_before_filter = sg->total_cnt_before_filter;
		s->cnt_any_sock = sg->cnt_any_sock;
		s->max_node_gres = sg->max_node_gres;
		s->sock_cnt = sg->cnt_by_sock ? sg->sock_cnt : 0;
		if (s->sock_cnt) {
			_room((void **)&s->cnt_by_sock, &s->sock_slots, s->sock_cnt,
			      sizeof(uint64_t));
			memcpy(s->cnt_by_sock, sg->cnt_by_sock, s->sock_cnt * sizeof(uint64_t));
		}
	}
	list_iterator_destroy(it);
	out->gres_cnt = k;
}

static void _restore_node(const saved_node_t *in, avail_res_t *res)
{
	list_itr_t *it;
	sock_gres_t *sg;

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
	if (in->counts.sock_cnt && res->avail_cores_per_sock)
		memcpy(res->avail_cores_per_sock, in->cores_per_sock,
		       in->counts.sock_cnt * sizeof(uint16_t));
	if (!in->gres_cnt || !res->sock_gres_list)
		return;
	it = list_iterator_create(res->sock_gres_list);
	while ((sg = list_next(it))) {
		const saved_sock_gres_t *s = NULL;
		for (int k = 0; k < in->gres_cnt && !s; k++)
			if (in->gres[k].sg == sg)
				s = &in->gres[k];
		if (!s)
			continue; /* not in the list when it was saved */
		sg->total_cnt = s->total_cnt;
		sg->total_cnt_before_filter = s->total_cnt_before_filter;
		sg->cnt_any_sock = s->cnt_any_sock;
		sg->max_node_gres = s->max_node_gres;
		if (s->sock_cnt && sg->cnt_by_sock && sg->sock_cnt == s->sock_cnt)
			memcpy(sg->cnt_by_sock, s->cnt_by_sock, s->sock_cnt * sizeof(uint64_t));
	}
	list_iterator_destroy(it);
}

extern ffg_eval_state_t *ffg_eval_state_new(void)
{
	return xmalloc(sizeof(ffg_eval_state_t));
}

extern ffg_eval_state_t *ffg_eval_state_save(ffg_eval_state_t *state,
					     const topology_eval_t *topo_eval, bitstr_t *offered)
{
	if (!state)
		return NULL;
	if (state->in_use)
		return NULL; /* not reentrant: the caller falls back to no second pass */
	state->in_use = true;
	_copy_bits(&state->node_map, offered);
	_copy_bits(&state->narrowed, topo_eval->node_map);
	/* A core array has an entry per node in Slurm's table (copy_core_array). */
	state->core_cnt = topo_eval->avail_core ? node_record_count : 0;
	_room((void **)&state->avail_core, &state->core_slots, state->core_cnt,
	      sizeof(*state->avail_core));
	state->avail_cpus = topo_eval->avail_cpus;
	state->min_nodes = topo_eval->min_nodes;
	state->max_nodes = topo_eval->max_nodes;
	state->req_nodes = topo_eval->req_nodes;
	state->first_pass = topo_eval->first_pass;
	state->gres_per_job = topo_eval->gres_per_job;
	_room((void **)&state->nodes, &state->node_slots, bit_size(state->narrowed),
	      sizeof(*state->nodes));
	for (int i = 0; (i = bit_ffs_from_bit(state->narrowed, i)) >= 0; i++) {
		if (i < state->core_cnt)
			_copy_bits(&state->avail_core[i], topo_eval->avail_core[i]);
		state->nodes[i].saved = topo_eval->avail_res_array && topo_eval->avail_res_array[i];
		if (state->nodes[i].saved)
			_save_node(&state->nodes[i], topo_eval->avail_res_array[i]);
	}
	return state;
}

extern void ffg_eval_state_restore(const ffg_eval_state_t *saved, topology_eval_t *topo_eval)
{
	bit_copybits(topo_eval->node_map, saved->node_map);
	topo_eval->avail_cpus = saved->avail_cpus;
	topo_eval->min_nodes = saved->min_nodes;
	topo_eval->max_nodes = saved->max_nodes;
	topo_eval->req_nodes = saved->req_nodes;
	topo_eval->first_pass = saved->first_pass;
	topo_eval->gres_per_job = saved->gres_per_job;
	for (int i = 0; (i = bit_ffs_from_bit(saved->narrowed, i)) >= 0; i++) {
		/* Cores the first pass gave up are set again; none it kept is added. */
		if (i < saved->core_cnt && topo_eval->avail_core) {
			if (!saved->avail_core[i])
				FREE_NULL_BITMAP(topo_eval->avail_core[i]);
			else if (!topo_eval->avail_core[i])
				topo_eval->avail_core[i] = bit_copy(saved->avail_core[i]);
			else
				bit_copybits(topo_eval->avail_core[i], saved->avail_core[i]);
		}
		if (topo_eval->avail_res_array && topo_eval->avail_res_array[i] &&
		    saved->nodes[i].saved)
			_restore_node(&saved->nodes[i], topo_eval->avail_res_array[i]);
	}
}

extern void ffg_eval_state_free(ffg_eval_state_t *saved)
{
	if (saved)
		saved->in_use = false; /* its buffers stay for the next evaluation */
}

extern void ffg_eval_state_destroy(ffg_eval_state_t *state)
{
	if (!state)
		return;
	for (int i = 0; i < state->node_slots; i++) {
		saved_node_t *n = &state->nodes[i];
		xfree(n->cores_per_sock);
		for (int k = 0; k < n->gres_slots; k++)
			xfree(n->gres[k].cnt_by_sock);
		xfree(n->gres);
	}
	xfree(state->nodes);
	for (int i = 0; i < state->core_slots; i++)
		FREE_NULL_BITMAP(state->avail_core[i]);
	xfree(state->avail_core);
	FREE_NULL_BITMAP(state->node_map);
	FREE_NULL_BITMAP(state->narrowed);
	xfree(state);
}
