/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What fabricfit reads of a job's record (job_facts.h). */

#include "config.h"

#include <string.h>

#include "src/common/slurm_xlator.h"

#include "src/slurmctld/slurmctld.h"

#include "job_facts.h"

#define SPANK_PATTERN_KEY "_SLURM_SPANK_OPTION_fabricfit_comm_pattern="

static const char *_job_pattern(job_record_t *job_ptr)
{
	size_t len = strlen(SPANK_PATTERN_KEY);

	if (!job_ptr || !job_ptr->spank_job_env)
		return NULL;
	for (uint32_t i = 0; i < job_ptr->spank_job_env_size; i++) {
		const char *entry = job_ptr->spank_job_env[i];
		if (entry && !strncmp(entry, SPANK_PATTERN_KEY, len))
			return entry + len;
	}
	return NULL;
}

extern void ffg_job_facts(job_record_t *job_ptr, uint32_t min_nodes, uint32_t max_nodes,
			  uint32_t req_nodes, ff_job_facts_t *facts)
{
	job_details_t *details = job_ptr->details;

	memset(facts, 0, sizeof(*facts));
	facts->tres_per_node = job_ptr->tres_per_node;
	facts->tres_per_job = job_ptr->tres_per_job;
	facts->tres_per_task = job_ptr->tres_per_task;
	facts->tres_per_socket = job_ptr->tres_per_socket;
	facts->min_nodes = min_nodes;
	facts->max_nodes = max_nodes;
	facts->req_nodes = req_nodes;
	facts->spread_job = (job_ptr->bit_flags & SPREAD_JOB) != 0;
	facts->comm_pattern = _job_pattern(job_ptr);
	if (!details)
		return;
	facts->num_tasks = details->num_tasks;
	facts->ntasks_per_node = details->ntasks_per_node;
	facts->whole_node = (details->whole_node & WHOLE_NODE_REQUIRED) != 0;
	/* --exclusive=topo, or a partition's ExclusiveTopo=YES. */
	facts->exclusive_topo = IS_JOB_WHOLE_TOPO(job_ptr);
	facts->segment_size = details->segment_size;
	facts->required_nodes = details->req_node_bitmap != NULL;
	facts->contiguous = details->contiguous != 0;
}

extern double ffg_job_limit_s(const job_record_t *job)
{
	if (job->time_limit == NO_VAL || job->time_limit == INFINITE || !job->time_limit)
		return 0;
	return job->time_limit * 60.0;
}
