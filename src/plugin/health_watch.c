/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The health file watcher (health_watch.h), run by the housekeeper thread. */

#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/xmalloc.h"

#include "file_stamp.h"
#include "health_watch.h"

struct ffg_health_watch {
	pthread_mutex_t lock;
	/* Under lock: */
	char path[FF_PATH_MAX]; /* "": not watching */
	long max_age_s;
	ffg_file_stamp_t tried;
	ff_health_t *current; /* the newest file read; NULL: none (all healthy) */
	/*
	 * The last one an engine took (may be current). A file that reads but does not fit the
	 * fabric (another fabric's) is only known bad when applied: current goes back to this,
	 * so staleness and the next engine go by the good file, not the refused one.
	 */
	ff_health_t *good;
	bool stale; /* current is older than max_age_s: not applied */
	bool noted_missing;
	bool noted_unreadable; /* stat failed for another reason than absence */
	unsigned version;      /* counts the changes of what is to be applied */
	char state[FF_PATH_MAX + 512];
	/* The glue's (slurmctld's locks held): what the engine has. */
	unsigned applied_version, applied_generation;
	char applied_desc[256]; /* logged when it changes */
	/* Read without the lock on the hot path: set under it. */
	volatile int news;
};

/* Forget both files (lock held). */
static void _drop_files(ffg_health_watch_t *w)
{
	if (w->good != w->current)
		ff_health_free(w->good);
	ff_health_free(w->current);
	w->good = w->current = NULL;
}

/* Something to apply changed (lock held). */
static void _changed(ffg_health_watch_t *w)
{
	w->version++;
	__atomic_store_n(&w->news, 1, __ATOMIC_RELEASE);
}

extern ffg_health_watch_t *ffg_health_watch_new(void)
{
	ffg_health_watch_t *w = xmalloc(sizeof(*w));

	slurm_mutex_init(&w->lock);
	w->applied_version = (unsigned)-1;
	snprintf(w->state, sizeof(w->state), "not read");
	return w;
}

extern void ffg_health_watch_free(ffg_health_watch_t *w)
{
	if (!w)
		return;
	_drop_files(w);
	slurm_mutex_destroy(&w->lock);
	xfree(w);
}

/* Staleness of the file in use, now (lock held): logged once when it becomes stale. */
static void _check_stale(ffg_health_watch_t *w, time_t now)
{
	bool stale = w->current && ff_health_stale(w->current, (long)now, w->max_age_s);

	if (stale == w->stale)
		return;
	w->stale = stale;
	if (stale) {
		long age = (long)now - ff_health_sweep_time(w->current);
		info("fabricfit: health file %s is stale (last sweep %lds ago, HealthMaxAge=%ld): "
		     "ignored, placing as if every link is healthy",
		     w->path, age, w->max_age_s);
		snprintf(w->state, sizeof(w->state), "stale (last sweep %lds ago): ignored", age);
	} else {
		snprintf(w->state, sizeof(w->state), "in use (last sweep at %ld)",
			 ff_health_sweep_time(w->current));
	}
	_changed(w);
}

extern void ffg_health_poll(ffg_health_watch_t *w)
{
	char file[FF_PATH_MAX], err[FF_PATH_MAX + 512];
	ffg_file_stamp_t now = {0};
	ff_health_t *fresh = NULL;
	int rc;

	if (!w)
		return;
	slurm_mutex_lock(&w->lock);
	if (!w->path[0]) {
		slurm_mutex_unlock(&w->lock);
		return;
	}
	snprintf(file, sizeof(file), "%s", w->path);
	slurm_mutex_unlock(&w->lock);

	/* Off every lock: stat, and the read when the file changed. */
	if (!ffg_file_stamp(file, &now) && errno != ENOENT && errno != ENOTDIR) {
		/* Unreadable is not absent (EACCES, EIO, a stale NFS handle): keep what we have. */
		int e = errno;

		slurm_mutex_lock(&w->lock);
		if (!strcmp(file, w->path) && !w->noted_unreadable) {
			w->noted_unreadable = true;
			error("fabricfit: health file %s: cannot stat: %s; keeping the view in use",
			      file, strerror(e));
		}
		slurm_mutex_unlock(&w->lock);
		return;
	} else if (!now.seen) {
		slurm_mutex_lock(&w->lock);
		if (!strcmp(file, w->path) && !w->noted_missing) {
			w->noted_missing = true;
			w->tried.seen = false; /* its return is a new version */
			info("fabricfit: no health file at %s: placing as if every link is healthy",
			     file);
			snprintf(w->state, sizeof(w->state),
				 "missing: every link taken as healthy");
			_drop_files(w);
			w->stale = false;
			_changed(w);
		}
		slurm_mutex_unlock(&w->lock);
		return;
	}
	slurm_mutex_lock(&w->lock);
	w->noted_unreadable = false;
	if (ffg_file_stamp_same(&now, &w->tried) || strcmp(file, w->path)) {
		_check_stale(w, time(NULL));
		slurm_mutex_unlock(&w->lock);
		return;
	}
	w->tried = now;
	slurm_mutex_unlock(&w->lock);

	err[0] = '\0';
	rc = ff_health_load(file, &fresh, err, sizeof(err));

	slurm_mutex_lock(&w->lock);
	if (strcmp(file, w->path)) { /* reconfigured meanwhile */
		slurm_mutex_unlock(&w->lock);
		ff_health_free(fresh);
		return;
	}
	w->noted_missing = false;
	if (rc != FF_OK) {
		/* Once per version of the file: the next poll sees the same stamp. */
		error("fabricfit: health file %s not read: %s; keeping the last good one", file,
		      err);
		snprintf(w->state, sizeof(w->state), "bad file (%s): %s", err,
			 w->current ? "keeping the last good one" : "every link taken as healthy");
	} else {
		debug("fabricfit: health file %s read (last sweep at %ld)", file,
		      ff_health_sweep_time(fresh));
		if (w->current != w->good)
			ff_health_free(w->current);
		w->current = fresh;
		w->stale = false;
		snprintf(w->state, sizeof(w->state), "in use (last sweep at %ld)",
			 ff_health_sweep_time(fresh));
		_changed(w);
		_check_stale(w, time(NULL));
	}
	slurm_mutex_unlock(&w->lock);
}

extern void ffg_health_watch_set(ffg_health_watch_t *w, const char *path, long max_age_s)
{
	slurm_mutex_lock(&w->lock);
	if (strcmp(path, w->path)) {
		snprintf(w->path, sizeof(w->path), "%s", path);
		w->tried.seen = false;
		w->noted_missing = false;
		_drop_files(w);
		w->stale = false;
		_changed(w);
	}
	if (max_age_s != w->max_age_s) {
		w->max_age_s = max_age_s;
		_changed(w);
	}
	slurm_mutex_unlock(&w->lock);
	ffg_health_poll(w);
}

extern bool ffg_health_news(ffg_health_watch_t *w)
{
	return w && __atomic_load_n(&w->news, __ATOMIC_ACQUIRE);
}

extern void ffg_health_apply(ffg_ctx_t *ctx, bool engine_locked)
{
	ffg_health_watch_t *w = ctx->health;
	char err[FF_PATH_MAX + 512] = "", desc[256] = "";

	if (!w)
		return;
	if (!ctx->engine) {
		/* Nothing to put it in (no snapshot loaded): a new engine applies it anyway. */
		slurm_mutex_lock(&w->lock);
		w->news = 0;
		slurm_mutex_unlock(&w->lock);
		return;
	}
	if (!__atomic_load_n(&w->news, __ATOMIC_ACQUIRE) &&
	    w->applied_generation == ctx->engine_generation)
		return;
	/* Lock order: engine_lock, then the watcher's (as in a new engine's adoption). */
	if (!engine_locked)
		pthread_rwlock_wrlock(&ctx->engine_lock);
	slurm_mutex_lock(&w->lock);
	/* The housekeeper's call may come after ffg_free_engine. */
	if (!ctx->engine) {
		w->news = 0;
		slurm_mutex_unlock(&w->lock);
		if (!engine_locked)
			pthread_rwlock_unlock(&ctx->engine_lock);
		return;
	}
	w->news = 0;
	if (w->applied_version != w->version || w->applied_generation != ctx->engine_generation) {
		/* In memory: the view over the engine's fabric (no file is read here). */
		int rc = ff_engine_use_health(ctx->engine, w->stale ? NULL : w->current, err,
					      sizeof(err));

		if (rc != FF_OK) {
			/*
			 * A file that reads but does not fit this fabric: back to the last file an
			 * engine took, if this was a newer one, so its sweep time judges staleness
			 * and the next engine gets it; else none. This version's stamp is tried
			 * already: the next sweep's file is read anew.
			 */
			bool had_good = w->good && w->good != w->current;

			error("fabricfit: health file %s not used: %s; %s", w->path, err,
			      had_good ? "keeping the last good one"
				       : "every link taken as healthy");
			snprintf(w->state, sizeof(w->state), "not used: %s; %s", err,
				 had_good ? "keeping the last good one"
					  : "every link taken as healthy");
			if (had_good) {
				ff_health_free(w->current);
				w->current = w->good;
				_check_stale(w, time(NULL));
				rc = ff_engine_use_health(ctx->engine, w->stale ? NULL : w->current,
							  err, sizeof(err));
			}
			if (rc != FF_OK || !had_good) {
				_drop_files(w);
				w->stale = false;
				(void)ff_engine_use_health(ctx->engine, NULL, err, sizeof(err));
				w->applied_desc[0] = '\0';
			}
		} else {
			if (w->current && !w->stale && w->good != w->current) {
				ff_health_free(w->good);
				w->good = w->current;
			}
			ff_engine_health_describe(ctx->engine, desc, sizeof(desc));
			/* A refusal said "not used"; this version is in use. */
			if (w->current && !w->stale)
				snprintf(w->state, sizeof(w->state), "in use (last sweep at %ld)",
					 ff_health_sweep_time(w->current));
			if (w->current && !w->stale && strcmp(desc, w->applied_desc))
				info("fabricfit: placing with health file %s: %s", w->path,
				     !strcmp(desc, "none") ? "every link healthy" : desc);
			snprintf(w->applied_desc, sizeof(w->applied_desc), "%s",
				 w->current && !w->stale ? desc : "");
		}
		w->applied_version = w->version;
		w->applied_generation = ctx->engine_generation;
	}
	slurm_mutex_unlock(&w->lock);
	if (!engine_locked)
		pthread_rwlock_unlock(&ctx->engine_lock);
}

extern void ffg_health_status(ffg_health_watch_t *w, char *out, size_t out_len)
{
	if (!w) {
		snprintf(out, out_len, "none");
		return;
	}
	slurm_mutex_lock(&w->lock);
	snprintf(out, out_len, "HealthFile=%s State=\"%s\"", w->path[0] ? w->path : "(none)",
		 w->state);
	slurm_mutex_unlock(&w->lock);
}
