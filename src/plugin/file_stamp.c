/* SPDX-License-Identifier: GPL-2.0-or-later */
/* File stamps for the watchers (file_stamp.h). */

#include "config.h"

#include <sys/stat.h>

#include "file_stamp.h"

extern bool ffg_file_stamp(const char *file, ffg_file_stamp_t *out)
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

extern bool ffg_file_stamp_same(const ffg_file_stamp_t *a, const ffg_file_stamp_t *b)
{
	return a->seen && b->seen && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec;
}
