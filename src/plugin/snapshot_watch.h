/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fabric snapshot, loaded off slurmctld's locks: a background thread notices a new
 * version of the file (a timer and a stat(), once a second, never per evaluation), loads
 * it, keeps a copy of every snapshot that loads in StateSaveLocation, and hands the new
 * engine over; the glue swaps it in under the locks it already holds. A version that does
 * not load is logged once and never replaces the one in use.
 */
#ifndef FABRICFIT_SNAPSHOT_WATCH_H
#define FABRICFIT_SNAPSHOT_WATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "fabricfit_api.h"

/*
 * Loads `path` now unless this version of it was tried already (build_config: startup,
 * reconfigure). `nodes` are the cluster's Slurm node names (copied): a snapshot with none
 * of them as hosts, another fabric's, is refused, here and by the watcher. On success returns the
 * engine and keeps a copy at `last_good`. When it does not load: with `have_engine`, NULL (the
 * caller keeps its own); without, the engine of the copy at `last_good` when there is one, else
 * NULL. `status` says what happened.
 */
extern ff_engine_t *ffg_snapshot_load_now(const char *path, const char *last_good, char **nodes,
					  int node_count, bool have_engine, char *status,
					  size_t status_len);

/* Starts the watcher (once; later calls only change the file it watches). */
extern void ffg_snapshot_watch_start(void);
extern void ffg_snapshot_watch_stop(void);

/*
 * The engine the watcher loaded since the last call, or NULL; cheap when there is none.
 * `status` is set when something changed (a new engine, or a version that was refused).
 */
extern ff_engine_t *ffg_snapshot_take(char *status, size_t status_len, bool *status_changed);

/* The watcher's newest status not yet taken by ffg_snapshot_take (scontrol show topology). */
extern bool ffg_snapshot_peek_status(char *status, size_t status_len);

#endif
