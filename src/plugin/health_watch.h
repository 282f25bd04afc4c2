/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fabric's health file, read off slurmctld's locks (health_watch.c): once a second the
 * housekeeper stats it (HealthFile, else the file beside the snapshot) and reads a new
 * version; the view of it goes into the engine under slurmctld's node write lock (which
 * decisions hold) and engine_lock for writing: at a decision, at a new engine, and by the
 * housekeeper when a new version was read. A file that does not read keeps the
 * last good one; a missing file is all healthy; a stale one (HealthMaxAge) is ignored.
 * Each is logged once. No evaluation reads the disk.
 */
#ifndef FABRICFIT_HEALTH_WATCH_H
#define FABRICFIT_HEALTH_WATCH_H

#include <stdbool.h>

#include "plugin_ctx.h"

#pragma GCC visibility push(hidden)

extern ffg_health_watch_t *ffg_health_watch_new(void);
extern void ffg_health_watch_free(ffg_health_watch_t *watch);

/* Watches `path` with `max_age_s` (HealthMaxAge) and reads it now (startup, reconfigure). */
extern void ffg_health_watch_set(ffg_health_watch_t *watch, const char *path, long max_age_s);

/* The housekeeper's, once a second: reads the file if it changed (off every lock). */
extern void ffg_health_poll(ffg_health_watch_t *watch);

/* Whether a poll read something ffg_health_apply has not put in the engine yet. */
extern bool ffg_health_news(ffg_health_watch_t *watch);

/*
 * Puts the health view in the engine when the file, its staleness or the engine changed
 * since the last call (cheap otherwise). Under slurmctld's locks; takes engine_lock for
 * writing unless `engine_locked` (the caller holds it).
 */
extern void ffg_health_apply(ffg_ctx_t *ctx, bool engine_locked);

/* "HealthFile=PATH State=\"...\"" for scontrol show topology. */
extern void ffg_health_status(ffg_health_watch_t *watch, char *out, size_t out_len);

#pragma GCC visibility pop

#endif
