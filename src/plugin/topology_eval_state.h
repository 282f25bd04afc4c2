/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Everything Slurm's common evaluator (common_topo_choose_nodes) consumes from a
 * topology_eval_t, saved before fabricfit's narrowed pass and put back before Slurm's own,
 * so that the second pass starts from the state the first one had.
 */
#ifndef FABRICFIT_TOPOLOGY_EVAL_STATE_H
#define FABRICFIT_TOPOLOGY_EVAL_STATE_H

#include "src/interfaces/topology.h"

#include "plugin_ctx.h"

#pragma GCC visibility push(hidden)

/* Storage for the copies below, kept from one evaluation to the next. */
extern ffg_eval_state_t *ffg_eval_state_new(void);

/* A copy of what the evaluator changes, taken once topo_eval->node_map is narrowed to
 * the nodes of the first pass: `offered` (every node Slurm offered) as the node_map to
 * put back, the topo_eval counters and, per node of the narrowed map, its avail_core,
 * avail_res_array's counts and per-socket GRES counts. One at a time: NULL while the last
 * one is not freed. */
extern ffg_eval_state_t *ffg_eval_state_save(ffg_eval_state_t *state,
					     const topology_eval_t *topo_eval, bitstr_t *offered);
/* Puts the copy back into topo_eval (the same evaluation it was saved from). */
extern void ffg_eval_state_restore(const ffg_eval_state_t *state, topology_eval_t *topo_eval);
/* Done with the copy (its buffers are kept for the next save). */
extern void ffg_eval_state_free(ffg_eval_state_t *state);
/* Frees the storage and its buffers (plugin fini). */
extern void ffg_eval_state_destroy(ffg_eval_state_t *state);

#pragma GCC visibility pop

#endif
