/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The C edge of fabricfit's core, for the Slurm glue. Every function returns a status
 * code and fills `err` with a message on failure; no C++ exception crosses it.
 */
#ifndef FABRICFIT_API_H
#define FABRICFIT_API_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
	FF_OK = 0,
	FF_EINVAL = 1,	  /* bad input: the message says what and where */
	FF_EINTERNAL = 2, /* anything else: the caller falls back to Slurm's defaults */
};

#define FF_PATTERN_MAX 64
#define FF_PATH_MAX 4096

typedef struct ff_settings {
	char snapshot_file[FF_PATH_MAX];
	char default_pattern[FF_PATTERN_MAX]; /* canonical spelling */
	char source[16]; /* "file", "last-good" or "defaults": where these came from */
} ff_settings_t;

/* Checks a --comm-pattern value; on success writes its canonical spelling. */
int ff_pattern_check(const char *text, char *canonical, size_t canonical_len, char *err,
		     size_t err_len);

/*
 * Loads fabricfit.conf into `out`. A missing file gives the defaults. On a bad file,
 * returns FF_EINVAL with the reason in `err`, and `out` holds the last good copy kept at
 * `last_good` (NULL: keep none) or else the defaults, never a half-read file.
 */
int ff_settings_load(const char *path, const char *last_good, ff_settings_t *out, char *err,
		     size_t err_len);

/*
 * The pattern a job runs with: `requested` (a --comm-pattern value, or NULL/empty when
 * none was given), else `none` for a job of at most one node, else the site default.
 */
int ff_effective_pattern(const char *requested, unsigned max_nodes, const ff_settings_t *settings,
			 char *out, size_t out_len, char *err, size_t err_len);

/* "fabricfit 0.1.0" */
const char *ff_version(void);

#ifdef __cplusplus
}
#endif

#endif
