/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fabric snapshot, loaded off slurmctld's locks: once a second the housekeeper asks the
 * watcher to notice a new version of the file (a stat(), never per evaluation); it loads it,
 * keeps a copy of every snapshot that loads in StateSaveLocation, and hands the new engine
 * over; the glue swaps it in under the locks it already holds. A version that does not load
 * is logged once and never replaces the one in use.
 */
#ifndef FABRICFIT_SNAPSHOT_WATCH_H
#define FABRICFIT_SNAPSHOT_WATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "plugin_ctx.h"

#pragma GCC visibility push(hidden)

extern ffg_watch_t *ffg_snapshot_watch_new(void);
extern void ffg_snapshot_watch_free(ffg_watch_t *watch);

/*
 * Loads `path` now unless this version of it was tried already (build_config: startup,
 * reconfigure), and watches it from then on. `nodes` are the cluster's Slurm node names
 * (copied): a snapshot with none of them as hosts, another fabric's, is refused, here and by
 * the watcher. On success returns the engine and keeps a copy at `last_good`. When it does
 * not load: with `have_engine`, NULL (the caller keeps its own); without, the engine of the
 * copy at `last_good` when there is one, else NULL. `status` says what happened.
 */
extern ff_engine_t *ffg_snapshot_load_now(ffg_watch_t *watch, const char *path,
					  const char *last_good, char **nodes, int node_count,
					  bool have_engine, char *status, size_t status_len);

/* The housekeeper's, once a second: loads the watched file if it changed (off every lock). */
extern void ffg_snapshot_poll(ffg_watch_t *watch);

/* Stops watching: a load under way is dropped when it ends. */
extern void ffg_snapshot_watch_stop(ffg_watch_t *watch);

/*
 * The engine the watcher loaded since the last call, or NULL; cheap when there is none.
 * `status` is set when something changed (a new engine, or a version that was refused).
 */
extern ff_engine_t *ffg_snapshot_take(ffg_watch_t *watch, char *status, size_t status_len,
				      bool *status_changed);

/* The watcher's newest status not yet taken by ffg_snapshot_take (scontrol show topology). */
extern bool ffg_snapshot_peek_status(ffg_watch_t *watch, char *status, size_t status_len);

#pragma GCC visibility pop

#endif
