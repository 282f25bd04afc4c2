/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The run-time history of the locality wait (wait_history.h). */

#include "config.h"

#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "src/common/slurm_xlator.h"

#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "job_facts.h"
#include "wait_history.h"

#define HISTORY_FILE "fabricfit.runtime-history"

extern void ffg_history_save(ffg_history_t *h)
{
	char err[512] = "";
	int written = 0;

	if (!h->predictor || !h->path)
		return;
	if (ff_predictor_save(h->predictor, h->path, &written, err, sizeof(err)) != FF_OK) {
		if (!h->save_failed)
			error(
			    "fabricfit: cannot save the run-time history: %s; a restart learns it "
			    "again from the jobs slurmctld holds",
			    err);
		h->save_failed = true;
	} else if (written) {
		if (h->save_failed)
			info("fabricfit: the run-time history is saved again in %s", h->path);
		h->save_failed = false;
	}
}

extern void ffg_history_free(ffg_history_t *h)
{
	ffg_history_save(h);
	xfree(h->path);
	h->save_failed = false;
	ff_predictor_free(h->predictor);
	h->predictor = NULL;
}

extern void ffg_history_init(ffg_history_t *h)
{
	char err[512] = "";
	unsigned jobs = 0;

	if (h->predictor)
		return;
	/* Taken now: the housekeeper saves without reading slurm_conf, which a reconfigure
	 * replaces. */
	if (slurm_conf.state_save_location)
		xstrfmtcat(h->path, "%s/%s", slurm_conf.state_save_location, HISTORY_FILE);
	if (!(h->predictor = ff_predictor_new())) {
		error(
		    "fabricfit: no memory for the run-time predictor: LocalityWaitEstimate=history "
		    "takes time limits");
		return;
	}
	if (!h->path || (access(h->path, F_OK) && errno == ENOENT))
		return; /* nothing saved yet */
	if (ff_predictor_load(h->predictor, h->path, &jobs, err, sizeof(err)) == FF_OK)
		info("fabricfit: run-time history: %u finished jobs read from %s", jobs, h->path);
	else
		error(
		    "fabricfit: the run-time history is not read: %s; it is learnt again from the "
		    "jobs slurmctld holds, and the file is replaced once a job is learnt",
		    err);
}

extern void ffg_history_learn(ffg_history_t *h, job_record_t *job)
{
	if (!h->predictor || !(IS_JOB_COMPLETE(job) || IS_JOB_TIMEOUT(job)) || !job->start_time ||
	    job->end_time < job->start_time)
		return;
	ff_predictor_observe(h->predictor, job->user_id, job->job_id, ffg_job_limit_s(job),
			     difftime(job->end_time, job->start_time) - job->tot_sus_time,
			     (double)job->end_time);
}
