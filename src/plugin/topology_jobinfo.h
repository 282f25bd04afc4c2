/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A job's topology data on Slurm 25.11+ (topology_jobinfo.c): its --segment node lists, for
 * switch/nvidia_imex's --network=unique-channel-per-segment.
 */
#ifndef FABRICFIT_TOPOLOGY_JOBINFO_H
#define FABRICFIT_TOPOLOGY_JOBINFO_H

#include "src/common/pack.h"
#include "src/interfaces/topology.h"

#include "plugin_ctx.h"

#pragma GCC visibility push(hidden)

extern void ffg_jobinfo_free(void *data);
extern void ffg_jobinfo_pack(void *data, buf_t *buffer, uint16_t protocol_version);
extern int ffg_jobinfo_unpack(void **data, buf_t *buffer, uint16_t protocol_version);
extern int ffg_jobinfo_get(topology_jobinfo_type_t type, void *data, void *out);
/* After an evaluation that allocated fabricfit's choice (the caller knows): the job's
 * segments, when it asks for an IMEX channel per segment. */
extern void ffg_jobinfo_note(ffg_ctx_t *ctx, topology_eval_t *topo_eval);

#pragma GCC visibility pop

#endif
