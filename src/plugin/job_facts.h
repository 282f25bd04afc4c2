/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What fabricfit reads of a job's record, for the core to decide on (job_facts.c). */
#ifndef FABRICFIT_JOB_FACTS_H
#define FABRICFIT_JOB_FACTS_H

#include "src/slurmctld/slurmctld.h"

#include "fabricfit_api.h"

#pragma GCC visibility push(hidden)

/*
 * What a job asks for on a node count, its --comm-pattern as the SPANK plugin recorded it
 * among them (ff_job_request decides what fabricfit places, and the job's pattern).
 */
extern void ffg_job_facts(job_record_t *job_ptr, uint32_t min_nodes, uint32_t max_nodes,
			  uint32_t req_nodes, ff_job_facts_t *facts);
/* Its time limit in seconds; 0 when it has none. */
extern double ffg_job_limit_s(const job_record_t *job);

#pragma GCC visibility pop

#endif
