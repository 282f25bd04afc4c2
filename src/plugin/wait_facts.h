/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Slurm's facts for the locality wait's advice (wait_facts.c), in the per-host scratch of
 * ctx->waits, sized by the engine in place (job write lock held).
 */
#ifndef FABRICFIT_WAIT_FACTS_H
#define FABRICFIT_WAIT_FACTS_H

#include <time.h>

#include "src/common/bitstring.h"
#include "src/slurmctld/slurmctld.h"

#include "plugin_ctx.h"

#pragma GCC visibility push(hidden)

/* The fabric hosts of node_map into ctx->waits.placed: their count, or -1 for a node
 * outside the fabric (or no engine). */
extern int ffg_wait_placed(ffg_ctx_t *ctx, bitstr_t *node_map);
/*
 * After ffg_wait_placed: ctx->waits.free_at, when each host's running jobs reach their
 * limits (or, with LocalityWaitEstimate=history, as predicted from their users' last jobs),
 * and ctx->waits.usable, the hosts the job may ever run on (its partition's, available,
 * not excluded).
 */
extern void ffg_wait_fill(ffg_ctx_t *ctx, job_record_t *job_ptr, time_t now);

#pragma GCC visibility pop

#endif
