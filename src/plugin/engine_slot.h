/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engine slurmctld places with (engine_slot.c): read at startup and reconfigure, taken
 * over from the snapshot watcher between evaluations, freed at shutdown. An engine is put
 * in place under slurmctld's locks (nothing evaluates then) and engine_lock for writing
 * (scontrol show topology and the housekeeper read under it).
 */
#ifndef FABRICFIT_ENGINE_SLOT_H
#define FABRICFIT_ENGINE_SLOT_H

#include "plugin_ctx.h"

#pragma GCC visibility push(hidden)

/* Takes over a snapshot the watcher loaded (cheap when none). */
extern void ffg_refresh_engine(ffg_ctx_t *ctx);
/* Reads the snapshot now (startup, reconfigure), falling back to the last good copy. */
extern void ffg_load_engine_now(ffg_ctx_t *ctx);
extern void ffg_free_engine(ffg_ctx_t *ctx);

#pragma GCC visibility pop

#endif
