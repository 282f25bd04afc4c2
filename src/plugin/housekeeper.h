/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slurmctld's one fabricfit thread (housekeeper.c), out of the scheduling cycle: four
 * rounds a second it writes the placement records of the decisions that became
 * allocations; once a second it looks for a new snapshot, asks slurmctld to schedule when
 * a locality wait ended, forgets the running jobs that ended and counts new ones; every
 * 10 s it saves what the run-time history learnt.
 */
#ifndef FABRICFIT_HOUSEKEEPER_H
#define FABRICFIT_HOUSEKEEPER_H

#include "plugin_ctx.h"

#pragma GCC visibility push(hidden)

/* slurmctld: starts the thread (once); notes are taken from then on. */
extern void ffg_housekeeper_start(ffg_ctx_t *ctx);
/* Only at slurmctld's end (fini), when no thread holds slurmctld's locks. */
extern void ffg_housekeeper_stop(ffg_ctx_t *ctx);

#pragma GCC visibility pop

#endif
