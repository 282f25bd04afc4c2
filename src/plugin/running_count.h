/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The housekeeper's count of running multi-host jobs (running_count.c): once a second,
 * without slurmctld's locks, it forgets the jobs that ended and, when a scan is due (a new
 * engine, or every 10 s), counts those the engine has not seen: jobs Slurm placed, and
 * those placed before a restart, reconfigure or new snapshot. The same scan teaches the
 * run-time history the jobs that finished.
 */
#ifndef FABRICFIT_RUNNING_COUNT_H
#define FABRICFIT_RUNNING_COUNT_H

#include "plugin_ctx.h"

#pragma GCC visibility push(hidden)

/* Takes slurmctld's job and node read locks; nothing once a shutdown has begun. */
extern void ffg_running_recount(ffg_ctx_t *ctx);

#pragma GCC visibility pop

#endif
