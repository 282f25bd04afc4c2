/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology/fabricfit's topology_p_eval_nodes (topology_eval.c): fabricfit's choice narrows
 * the node map, Slurm's common evaluator runs within it, and again from the saved state on
 * everything Slurm offered when it refuses.
 */
#ifndef FABRICFIT_TOPOLOGY_EVAL_H
#define FABRICFIT_TOPOLOGY_EVAL_H

#include "src/interfaces/topology.h"

#include "plugin_ctx.h"

#pragma GCC visibility push(hidden)

extern int ffg_eval(ffg_ctx_t *ctx, topology_eval_t *topo_eval);

#pragma GCC visibility pop

#endif
