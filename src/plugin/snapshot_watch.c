/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The snapshot watcher (snapshot_watch.h), run by the housekeeper thread. */

#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "file_stamp.h"
#include "snapshot_watch.h"

struct ffg_watch {
	pthread_mutex_t lock;
	/* Under lock: */
	char path[FF_PATH_MAX], last_good[FF_PATH_MAX]; /* path "": not watching */
	ffg_file_stamp_t tried;
	ff_engine_t *pending;
	char pending_status[FF_PATH_MAX + 1024];
	bool status_pending;
	bool have_engine;
	char **nodes; /* the cluster's Slurm node names: a snapshot must have one */
	int node_count;
	/* Read without the lock on the hot path: set under it. */
	volatile int news;
	/* Counts the stops and direct loads: a poll's load started before one is stale. */
	unsigned epoch;
};

/* Loads `file`; on failure logs once (the caller tries each version once). */
static ff_engine_t *_load(const char *file, const char *keep, char **names, int names_cnt,
			  bool fall_back, char *status, size_t status_len)
{
	ff_engine_t *fresh = NULL;
	char err[FF_PATH_MAX + 512] = "", desc[256] = "";
	int from_last_good = 0;

	if (ff_engine_load_keeping_last_good(file, keep, (const char *const *)names, names_cnt,
					     &fresh, &from_last_good, err, sizeof(err)) == FF_OK) {
		ff_engine_describe(fresh, desc, sizeof(desc));
		snprintf(status, status_len, "loaded %s (%s)", file, desc);
		info("fabricfit: snapshot %s loaded: %s", file, desc);
		return fresh;
	}
	if (fall_back && fresh) {
		ff_engine_describe(fresh, desc, sizeof(desc));
		error("fabricfit: %s; using the last good snapshot %s (%s)", err, keep, desc);
		snprintf(status, status_len, "bad snapshot: %s (using the last good copy %s: %s)",
			 err, keep, desc);
		return fresh;
	}
	ff_engine_free(fresh);
	if (fall_back) {
		error("fabricfit: %s; using Slurm's default selection", err);
		snprintf(status, status_len, "bad snapshot: %s", err);
	} else {
		error("fabricfit: %s; keeping the snapshot already loaded", err);
		snprintf(status, status_len, "bad snapshot: %s (keeping the one already loaded)",
			 err);
	}
	return NULL;
}

static char **_copy_names(char **src, int n)
{
	char **out = xcalloc(MAX(n, 1), sizeof(char *));

	for (int i = 0; i < n; i++)
		out[i] = xstrdup(src[i]);
	return out;
}

static void _free_names(char **names, int n)
{
	for (int i = 0; names && i < n; i++)
		xfree(names[i]);
	xfree(names);
}

extern ffg_watch_t *ffg_snapshot_watch_new(void)
{
	ffg_watch_t *watch = xmalloc(sizeof(*watch));

	slurm_mutex_init(&watch->lock);
	return watch;
}

extern void ffg_snapshot_watch_free(ffg_watch_t *watch)
{
	if (!watch)
		return;
	ffg_snapshot_watch_stop(watch);
	slurm_mutex_destroy(&watch->lock);
	xfree(watch);
}

extern ff_engine_t *ffg_snapshot_load_now(ffg_watch_t *w, const char *file, const char *keep,
					  char **names, int names_cnt, bool loaded, char *status,
					  size_t status_len)
{
	ffg_file_stamp_t now = {0};
	ff_engine_t *fresh = NULL;
	bool exists = ffg_file_stamp(file, &now);

	slurm_mutex_lock(&w->lock);
	_free_names(w->nodes, w->node_count);
	w->nodes = _copy_names(names, names_cnt);
	w->node_count = names_cnt;
	snprintf(w->path, sizeof(w->path), "%s", file);
	snprintf(w->last_good, sizeof(w->last_good), "%s", keep ? keep : "");
	if (loaded && exists && ffg_file_stamp_same(&now, &w->tried)) {
		w->have_engine = true;
		slurm_mutex_unlock(&w->lock);
		return NULL; /* this version is the one in use, or was refused already */
	}
	w->tried = now;
	/* What the watcher had pending, or is loading, is older than what is read now (a load
	 * of this same version under way stays valid: returned above). */
	w->epoch++;
	ff_engine_free(w->pending);
	w->pending = NULL;
	w->news = 0;
	slurm_mutex_unlock(&w->lock);

	if (exists) {
		fresh = _load(file, keep, names, names_cnt, !loaded, status, status_len);
	} else if (!loaded && keep && keep[0]) {
		char err[64];
		int from_last_good = 0;
		if (ff_engine_load_keeping_last_good(keep, NULL, (const char *const *)names,
						     names_cnt, &fresh, &from_last_good, err,
						     sizeof(err)) == FF_OK) {
			error("fabricfit: no snapshot at %s; using the last good snapshot %s", file,
			      keep);
			snprintf(status, status_len,
				 "no snapshot at %s (using the last good copy %s)", file, keep);
		}
	}
	if (!exists && !fresh && !loaded)
		snprintf(status, status_len, "no snapshot at %s: Slurm's default selection", file);
	slurm_mutex_lock(&w->lock);
	w->have_engine = loaded || fresh;
	slurm_mutex_unlock(&w->lock);
	return fresh;
}

/*
 * The watched file went away: said once (each node's slurmstepd then uses its own last
 * good copy, logging it only at debug level), not once a second; the engine in use stays.
 */
static void _note_missing(ffg_watch_t *w, const char *file, bool loaded)
{
	slurm_mutex_lock(&w->lock);
	if (!w->tried.seen || strcmp(file, w->path)) {
		slurm_mutex_unlock(&w->lock);
		return;
	}
	w->tried.seen = false; /* its return is a new version */
	if (loaded) {
		error("fabricfit: no snapshot at %s; keeping the snapshot already loaded", file);
		snprintf(w->pending_status, sizeof(w->pending_status),
			 "no snapshot at %s (keeping the one already loaded)", file);
	} else {
		error("fabricfit: no snapshot at %s; using Slurm's default selection", file);
		snprintf(w->pending_status, sizeof(w->pending_status),
			 "no snapshot at %s: Slurm's default selection", file);
	}
	w->status_pending = true;
	w->news = 1;
	slurm_mutex_unlock(&w->lock);
}

extern void ffg_snapshot_poll(ffg_watch_t *w)
{
	char file[FF_PATH_MAX], keep[FF_PATH_MAX], status[FF_PATH_MAX + 1024];
	ffg_file_stamp_t now = {0};
	ff_engine_t *fresh;
	char **names;
	int names_cnt;
	unsigned epoch;
	bool loaded;

	slurm_mutex_lock(&w->lock);
	if (!w->path[0]) {
		slurm_mutex_unlock(&w->lock);
		return;
	}
	snprintf(file, sizeof(file), "%s", w->path);
	snprintf(keep, sizeof(keep), "%s", w->last_good);
	loaded = w->have_engine;
	slurm_mutex_unlock(&w->lock);

	/* Off every lock: stat, and the load when the file changed. */
	if (!ffg_file_stamp(file, &now)) {
		_note_missing(w, file, loaded);
		return;
	}
	slurm_mutex_lock(&w->lock);
	if (ffg_file_stamp_same(&now, &w->tried) || strcmp(file, w->path)) {
		slurm_mutex_unlock(&w->lock);
		return;
	}
	w->tried = now;
	epoch = w->epoch;
	names = _copy_names(w->nodes, w->node_count);
	names_cnt = w->node_count;
	slurm_mutex_unlock(&w->lock);
	status[0] = '\0';
	fresh = _load(file, keep, names, names_cnt, !loaded, status, sizeof(status));
	_free_names(names, names_cnt);
	slurm_mutex_lock(&w->lock);
	/* Stopped, reconfigured or read directly meanwhile: stale. */
	if (epoch != w->epoch || strcmp(file, w->path)) {
		slurm_mutex_unlock(&w->lock);
		ff_engine_free(fresh);
		return;
	}
	if (fresh) {
		ff_engine_free(w->pending);
		w->pending = fresh;
		w->have_engine = true;
	}
	snprintf(w->pending_status, sizeof(w->pending_status), "%s", status);
	w->status_pending = true;
	w->news = 1;
	slurm_mutex_unlock(&w->lock);
}

extern void ffg_snapshot_watch_stop(ffg_watch_t *w)
{
	slurm_mutex_lock(&w->lock);
	w->epoch++;
	w->path[0] = w->last_good[0] = '\0';
	ff_engine_free(w->pending);
	w->pending = NULL;
	w->news = 0;
	w->tried.seen = false;
	w->have_engine = false;
	_free_names(w->nodes, w->node_count);
	w->nodes = NULL;
	w->node_count = 0;
	slurm_mutex_unlock(&w->lock);
}

extern ff_engine_t *ffg_snapshot_take(ffg_watch_t *w, char *status, size_t status_len,
				      bool *status_changed)
{
	ff_engine_t *fresh;

	*status_changed = false;
	if (!__atomic_load_n(&w->news, __ATOMIC_ACQUIRE))
		return NULL;
	slurm_mutex_lock(&w->lock);
	fresh = w->pending;
	w->pending = NULL;
	if (w->status_pending) {
		snprintf(status, status_len, "%s", w->pending_status);
		*status_changed = true;
		w->status_pending = false;
	}
	w->news = 0;
	slurm_mutex_unlock(&w->lock);
	return fresh;
}

extern bool ffg_snapshot_peek_status(ffg_watch_t *w, char *status, size_t status_len)
{
	bool have;

	slurm_mutex_lock(&w->lock);
	have = w->status_pending;
	if (have)
		snprintf(status, status_len, "%s", w->pending_status);
	slurm_mutex_unlock(&w->lock);
	return have;
}
