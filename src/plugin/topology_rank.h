/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Node ranks for a job's task layout (topology_rank.c; Slurm 26.05+, topology_p_get_rank). */
#ifndef FABRICFIT_TOPOLOGY_RANK_H
#define FABRICFIT_TOPOLOGY_RANK_H

#include <stdint.h>

#include "src/common/bitstring.h"
#include "src/interfaces/topology.h"

#include "plugin_ctx.h"

#pragma GCC visibility push(hidden)

/* eval_nodes that keeps its decision's order for get_rank. */
extern int ffg_rank_eval(ffg_ctx_t *ctx, topology_eval_t *topo_eval);
extern int ffg_rank_get(ffg_ctx_t *ctx, bitstr_t *node_bitmap, uint32_t **node_rank, uint32_t *size,
			int unit_shift);
extern void ffg_rank_free(ffg_ctx_t *ctx);

#pragma GCC visibility pop

#endif
