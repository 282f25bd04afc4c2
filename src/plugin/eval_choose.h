/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fabricfit's choice within topology_p_eval_nodes (eval_choose.c). */
#ifndef FABRICFIT_EVAL_CHOOSE_H
#define FABRICFIT_EVAL_CHOOSE_H

#include <stdbool.h>
#include <stddef.h>

#include "src/interfaces/topology.h"

#include "plugin_ctx.h"

#pragma GCC visibility push(hidden)

/* The reason a job was left to Slurm, for the note and the placement record. */
extern void ffg_fall_back(char *note, size_t note_len, char *reason, size_t reason_len, bool quote,
			  const char *why);

/*
 * Runs the placement engine over the nodes Slurm offers. Returns true with the chosen
 * hosts in ctx->map.host_chosen[0..*nchosen) when fabricfit places the job; `note` says
 * what happened either way, `reason` why it fell back, `out` what it placed. *read says
 * whether fabricfit read a request it can place (out->pattern is then the job's pattern,
 * whether or not it fits). *health_waits: only placements across a failing link fit now
 * (not in a trial, `test_only`, which falls back to Slurm's pick): the job stays pending.
 * node_map is left as it is.
 */
extern bool ffg_choose(ffg_ctx_t *ctx, topology_eval_t *topo_eval, bool test_only,
		       unsigned *nchosen, char *note, size_t note_len, ff_request_t *out,
		       bool *read, bool *health_waits, char *reason, size_t reason_len);

#pragma GCC visibility pop

#endif
