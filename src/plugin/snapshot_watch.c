/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The snapshot watcher thread (snapshot_watch.h). */

#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "snapshot_watch.h"

/* Which version of the file was tried last: a new one has another of these. */
typedef struct {
	bool seen;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
} stamp_t;

static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_cond = PTHREAD_COND_INITIALIZER;
static pthread_t watch_thread;
static bool running = false, stopping = false;
/* Under watch_lock: */
static char path[FF_PATH_MAX] = "", last_good[FF_PATH_MAX] = "";
static stamp_t tried;
static ff_engine_t *pending = NULL;
static char pending_status[FF_PATH_MAX + 1024] = "";
static bool status_pending = false;
static bool have_engine = false;
static char **nodes = NULL; /* the cluster's Slurm node names: a snapshot must have one */
static int node_count = 0;
/* Read without the lock on the hot path: set under it. */
static volatile int news = 0;

static bool _stamp(const char *file, stamp_t *out)
{
	struct stat st;

	if (stat(file, &st) != 0)
		return false;
	out->seen = true;
	out->dev = st.st_dev;
	out->ino = st.st_ino;
	out->size = st.st_size;
	out->mtime = st.st_mtim;
	return true;
}

static bool _same(const stamp_t *a, const stamp_t *b)
{
	return a->seen && b->seen && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec;
}

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

extern ff_engine_t *ffg_snapshot_load_now(const char *file, const char *keep, char **names,
					  int names_cnt, bool loaded, char *status,
					  size_t status_len)
{
	stamp_t now = {0};
	ff_engine_t *fresh = NULL;
	bool exists = _stamp(file, &now);

	slurm_mutex_lock(&watch_lock);
	_free_names(nodes, node_count);
	nodes = _copy_names(names, names_cnt);
	node_count = names_cnt;
	snprintf(path, sizeof(path), "%s", file);
	snprintf(last_good, sizeof(last_good), "%s", keep ? keep : "");
	if (loaded && exists && _same(&now, &tried)) {
		have_engine = true;
		slurm_mutex_unlock(&watch_lock);
		return NULL; /* this version is the one in use, or was refused already */
	}
	tried = now;
	/* What the watcher had pending is older than what is read now. */
	ff_engine_free(pending);
	pending = NULL;
	news = 0;
	slurm_mutex_unlock(&watch_lock);

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
	slurm_mutex_lock(&watch_lock);
	have_engine = loaded || fresh;
	slurm_mutex_unlock(&watch_lock);
	return fresh;
}

static void *_watch(void *arg)
{
	char file[FF_PATH_MAX], keep[FF_PATH_MAX], status[FF_PATH_MAX + 1024];
	char **names;
	int names_cnt;

	(void)arg;
	slurm_mutex_lock(&watch_lock);
	while (!stopping) {
		struct timespec until;
		stamp_t now = {0};
		ff_engine_t *fresh;
		bool loaded;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&watch_cond, &watch_lock, &until);
		if (stopping || !path[0])
			continue;
		snprintf(file, sizeof(file), "%s", path);
		snprintf(keep, sizeof(keep), "%s", last_good);
		loaded = have_engine;
		slurm_mutex_unlock(&watch_lock);

		/* Off every lock: stat, and the load when the file changed. */
		if (!_stamp(file, &now)) {
			slurm_mutex_lock(&watch_lock);
			continue;
		}
		slurm_mutex_lock(&watch_lock);
		if (_same(&now, &tried) || strcmp(file, path))
			continue;
		tried = now;
		names = _copy_names(nodes, node_count);
		names_cnt = node_count;
		slurm_mutex_unlock(&watch_lock);
		status[0] = '\0';
		fresh = _load(file, keep, names, names_cnt, !loaded, status, sizeof(status));
		_free_names(names, names_cnt);
		slurm_mutex_lock(&watch_lock);
		if (strcmp(file, path)) { /* reconfigured meanwhile: stale */
			ff_engine_free(fresh);
			continue;
		}
		if (fresh) {
			ff_engine_free(pending);
			pending = fresh;
			have_engine = true;
		}
		snprintf(pending_status, sizeof(pending_status), "%s", status);
		status_pending = true;
		news = 1;
	}
	slurm_mutex_unlock(&watch_lock);
	return NULL;
}

extern void ffg_snapshot_watch_start(void)
{
	slurm_mutex_lock(&watch_lock);
	if (!running) {
		stopping = false;
		if (pthread_create(&watch_thread, NULL, _watch, NULL) == 0)
			running = true;
		else
			error("fabricfit: cannot start the snapshot watcher: new snapshots are "
			      "read on reconfigure only");
	}
	slurm_mutex_unlock(&watch_lock);
}

extern void ffg_snapshot_watch_stop(void)
{
	bool join;

	slurm_mutex_lock(&watch_lock);
	join = running;
	stopping = true;
	pthread_cond_broadcast(&watch_cond);
	slurm_mutex_unlock(&watch_lock);
	if (join)
		pthread_join(watch_thread, NULL);
	slurm_mutex_lock(&watch_lock);
	running = false;
	ff_engine_free(pending);
	pending = NULL;
	news = 0;
	tried.seen = false;
	have_engine = false;
	_free_names(nodes, node_count);
	nodes = NULL;
	node_count = 0;
	slurm_mutex_unlock(&watch_lock);
}

extern ff_engine_t *ffg_snapshot_take(char *status, size_t status_len, bool *status_changed)
{
	ff_engine_t *fresh;

	*status_changed = false;
	if (!__atomic_load_n(&news, __ATOMIC_ACQUIRE))
		return NULL;
	slurm_mutex_lock(&watch_lock);
	fresh = pending;
	pending = NULL;
	if (status_pending) {
		snprintf(status, status_len, "%s", pending_status);
		*status_changed = true;
		status_pending = false;
	}
	news = 0;
	slurm_mutex_unlock(&watch_lock);
	return fresh;
}

extern bool ffg_snapshot_peek_status(char *status, size_t status_len)
{
	bool have;

	slurm_mutex_lock(&watch_lock);
	have = status_pending;
	if (have)
		snprintf(status, status_len, "%s", pending_status);
	slurm_mutex_unlock(&watch_lock);
	return have;
}
