/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fabricfit's choice within an evaluation (eval_choose.h): the job's request read from its
 * record and handed to the C API (ff_job_request decides what fabricfit places), the
 * nodes Slurm offers translated into fabric hosts with their free GPUs, and the engine's
 * choice handed back.
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/node_conf.h"
#include "src/interfaces/select.h"
#include "src/interfaces/topology.h"
#include "src/slurmctld/slurmctld.h"

#include "eval_choose.h"
#include "job_facts.h"
#include "node_map.h"

/* What the job asks for, from its record and this evaluation (ff_job_request decides). */
static void _job_facts(const topology_eval_t *topo_eval, ff_job_facts_t *facts)
{
	ffg_job_facts(topo_eval->job_ptr, topo_eval->min_nodes, topo_eval->max_nodes,
		      topo_eval->req_nodes, facts);
}

/* The reason a job was left to Slurm, for the note and the placement record. */
extern void ffg_fall_back(char *note, size_t note_len, char *reason, size_t reason_len, bool quote,
			  const char *why)
{
	snprintf(reason, reason_len, "%s", why);
	snprintf(note, note_len, "placement=slurm reason=%s%s%s", quote ? "\"" : "", why,
		 quote ? "\"" : "");
}

extern bool ffg_choose(ffg_ctx_t *ctx, topology_eval_t *topo_eval, bool test_only,
		       unsigned *nchosen, char *note, size_t note_len, ff_request_t *out,
		       bool *read, bool *health_waits, char *reason, size_t reason_len)
{
	ffg_node_map_t *map = &ctx->map;
	ff_engine_t *engine = ctx->engine;
	ff_job_facts_t facts;
	ff_request_t request = {0};
	char summary[512], err[512];
	bool remapped = false;
	int hosts, rc;

	summary[0] = err[0] = '\0';
	*read = false;
	*health_waits = false;
	if (!engine) {
		ffg_fall_back(note, note_len, reason, reason_len, true, ctx->engine_status);
		return false;
	}
	_job_facts(topo_eval, &facts);
	rc = ff_job_request(&facts, &ctx->settings, &request, err, sizeof(err));
	*out = request;
	*read = rc == FF_OK;
	if (rc != FF_OK) {
		ffg_fall_back(note, note_len, reason, reason_len, rc != FF_EDECLINE, err);
		return false;
	}
	if (!ffg_map_current(ctx))
		ffg_map_nodes(ctx);
again:
	hosts = ff_engine_host_count(engine);
	memset(map->host_allowed, 0, hosts * sizeof(*map->host_allowed));
	memset(map->host_free, 0, hosts * sizeof(*map->host_free));
	for (int i = 0; (i = bit_ffs_from_bit(topo_eval->node_map, i)) >= 0; i++) {
		int host;
		if (i >= map->mapped_node_count || !ffg_slot_current(ctx, i)) {
			/* A node was created or deleted since the map was made. */
			if (remapped) {
				ffg_fall_back(note, note_len, reason, reason_len, true,
					      "node table changing");
				return false;
			}
			ffg_map_nodes(ctx);
			remapped = true;
			goto again;
		}
		if ((host = map->host_of_node[i]) < 0) {
			snprintf(err, sizeof(err), "node %s is not in the fabric",
				 node_record_table_ptr[i]->name);
			ffg_fall_back(note, note_len, reason, reason_len, true, err);
			return false;
		}
		if (map->host_total[host] <= 0)
			map->host_total[host] = MAX(ffg_node_gpus(node_record_table_ptr[i]), 0);
		map->host_allowed[host] = 1;
		map->host_free[host] = topo_eval->avail_res_array && topo_eval->avail_res_array[i]
					   ? topo_eval->avail_res_array[i]->avail_gpus
					   : map->host_total[host];
	}

	/* Settings and engine each reload on their own: the engine learns the routing here. */
	if (ff_engine_use_routing(engine, ctx->settings.locality_wait_static_routing, err,
				  sizeof(err)) != FF_OK) {
		ffg_fall_back(note, note_len, reason, reason_len, true, err);
		return false;
	}
	rc = ff_engine_place(engine, &request, map->host_allowed, map->host_free, map->host_total,
			     map->host_chosen, nchosen, summary, sizeof(summary), err, sizeof(err));
	if (rc == FF_ENOFIT) {
		ffg_fall_back(note, note_len, reason, reason_len, false, "no-fit");
		return false;
	} else if ((rc == FF_EHEALTH || rc == FF_EDOMAIN) && test_only) {
		/* A backfill trial: Slurm's own pick tells when it could start, not never. */
		ffg_fall_back(note, note_len, reason, reason_len, false,
			      rc == FF_EHEALTH ? "health-waits-trial" : "domain-waits-trial");
		return false;
	} else if (rc == FF_EHEALTH || rc == FF_EDOMAIN) {
		*health_waits = true;
		snprintf(note, note_len, "placement=none %s", summary);
		return false;
	} else if (rc != FF_OK) {
		ffg_fall_back(note, note_len, reason, reason_len, true, err);
		return false;
	}
	snprintf(note, note_len, "placement=fabricfit %s", summary);
	return true;
}
