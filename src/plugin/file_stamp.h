/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which version of a file a watcher (snapshot, health file) tried last: a file replaced by
 * rename, rewritten in place or touched has another stamp. The housekeeper compares them
 * once a second, so no decision reads the disk.
 */
#ifndef FABRICFIT_PLUGIN_FILE_STAMP_H
#define FABRICFIT_PLUGIN_FILE_STAMP_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#pragma GCC visibility push(hidden)

typedef struct {
	bool seen;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
} ffg_file_stamp_t;

/* Stamps `file`; false (and `out` untouched) when it cannot be stat'ed. */
extern bool ffg_file_stamp(const char *file, ffg_file_stamp_t *out);

/* Both seen and of the same version. */
extern bool ffg_file_stamp_same(const ffg_file_stamp_t *a, const ffg_file_stamp_t *b);

#pragma GCC visibility pop

#endif
