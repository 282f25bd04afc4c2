/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A job's topology data (Slurm 25.11+): the node list of each --segment of a job fabricfit
 * placed, for switch/nvidia_imex, which gives each segment an IMEX channel of its own when
 * the job asks --network=unique-channel-per-segment (topology/block records the same, and
 * only then). slurmctld keeps it in the job's saved state (pack/unpack) across restarts.
 *
 * topology_g_eval_nodes frees a job's data before each evaluation, so the last one leaves
 * it: as with topology/block, a later pass of cons_tres's job test that fails (a lower
 * partition tier with OverSubscribe) drops the list of an allocation an earlier pass made,
 * and the job gets one channel. Which hosts make a segment is the core's (ff_engine_segments).
 *
 * Saved format (the job's state file): a uint16 format version (1), a uint32 count, that
 * many packstr node lists. A fabricfit older than this file cannot read it back: going back
 * to one while such jobs are in the saved state makes slurmctld refuse the state (docs).
 */

#include "config.h"

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/pack.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/interfaces/topology.h"
#include "src/slurmctld/slurmctld.h"

#include "fabricfit_api.h"
#include "node_map.h"
#include "topology_glue.h"
#include "topology_jobinfo.h"

/* More segments than a job could have nodes: a garbled record, not a job. */
#define FFG_MAX_SEGMENTS (1u << 20)
#define FFG_JOBINFO_VERSION 1

typedef struct {
	list_t *segment_list; /* char *: one node list per segment, in segment order */
} ffg_jobinfo_t;

extern void ffg_jobinfo_free(void *data)
{
	ffg_jobinfo_t *ji = data;

	if (!ji)
		return;
	FREE_NULL_LIST(ji->segment_list);
	xfree(ji);
}

extern void ffg_jobinfo_pack(void *data, buf_t *buffer, uint16_t protocol_version)
{
	ffg_jobinfo_t *ji = data;
	list_itr_t *it;
	char *nodes;

	pack16(FFG_JOBINFO_VERSION, buffer);
	pack32(ji && ji->segment_list ? list_count(ji->segment_list) : 0, buffer);
	if (!ji || !ji->segment_list)
		return;
	it = list_iterator_create(ji->segment_list);
	while ((nodes = list_next(it)))
		packstr(nodes, buffer);
	list_iterator_destroy(it);
}

extern int ffg_jobinfo_unpack(void **data, buf_t *buffer, uint16_t protocol_version)
{
	ffg_jobinfo_t *ji = xmalloc(sizeof(*ji));
	uint32_t count = 0;
	uint16_t version = 0;
	char *nodes = NULL;

	ji->segment_list = list_create(xfree_ptr);
	safe_unpack16(&version, buffer);
	if (version != FFG_JOBINFO_VERSION)
		goto unpack_error;
	safe_unpack32(&count, buffer);
	if (count > FFG_MAX_SEGMENTS)
		goto unpack_error;
	for (uint32_t k = 0; k < count; k++) {
		safe_unpackstr(&nodes, buffer);
		list_append(ji->segment_list, nodes);
		nodes = NULL;
	}
	*data = ji;
	return SLURM_SUCCESS;

unpack_error:
	error("fabricfit: a job's saved segment list does not read (format %u, %u segments)",
	      version, count);
	xfree(nodes);
	ffg_jobinfo_free(ji);
	*data = NULL;
	return SLURM_ERROR;
}

extern int ffg_jobinfo_get(topology_jobinfo_type_t type, void *data, void *out)
{
	ffg_jobinfo_t *ji = data;

	if (!ji || type != TOPO_JOBINFO_SEGMENT_LIST)
		return SLURM_ERROR;
	*(list_t **)out = ji->segment_list;
	return SLURM_SUCCESS;
}

/*
 * The job's nodes (node-table order) and each one's segment: the number of segments, or -1
 * when its nodes are not whole segments of NVLink domains.
 */
static int _segments(ffg_ctx_t *ctx, bitstr_t *node_map, unsigned segment, int **nodes,
		     int **segment_of, unsigned *n)
{
	int hosts = ff_engine_host_count(ctx->engine), count;
	int *host_list = xcalloc(MAX(hosts, 1), sizeof(int));

	*n = 0;
	*nodes = xcalloc(MAX(hosts, 1), sizeof(int));
	*segment_of = xcalloc(MAX(hosts, 1), sizeof(int));
	for (int i = 0; (i = bit_ffs_from_bit(node_map, i)) >= 0; i++) {
		int h = ffg_host_of(ctx, i);
		if (h < 0 || *n >= (unsigned)hosts) {
			*n = 0;
			break;
		}
		(*nodes)[*n] = i;
		host_list[(*n)++] = h;
	}
	count = *n ? ff_engine_segments(ctx->engine, host_list, *n, segment, *segment_of) : -1;
	xfree(host_list);
	return count;
}

extern void ffg_jobinfo_note(ffg_ctx_t *ctx, topology_eval_t *topo_eval)
{
	job_record_t *job_ptr = topo_eval->job_ptr;
	unsigned segment = job_ptr->details ? job_ptr->details->segment_size : 0, n = 0;
	int *nodes = NULL, *segment_of = NULL, count;
	ffg_jobinfo_t *ji;
	char *text = NULL;

	if (!segment || !xstrstr(job_ptr->network, "unique-channel-per-segment") || !ctx->engine ||
	    !ffg_map_current(ctx))
		return;
	count = _segments(ctx, topo_eval->node_map, segment, &nodes, &segment_of, &n);
	if (count <= 0) {
		info("fabricfit: %pJ: its nodes are not whole --segment=%u segments of NVLink "
		     "domains: one IMEX channel for the job",
		     job_ptr, segment);
		goto done;
	}
	ji = xmalloc(sizeof(*ji));
	ji->segment_list = list_create(xfree_ptr);
	for (int s = 0; s < count; s++) {
		bitstr_t *one = bit_alloc(bit_size(topo_eval->node_map));
		char *names;

		for (unsigned k = 0; k < n; k++)
			if (segment_of[k] == s)
				bit_set(one, nodes[k]);
		names = bitmap2node_name(one);
		xstrfmtcat(text, "%s%s", s ? " " : "", names);
		list_append(ji->segment_list, names);
		FREE_NULL_BITMAP(one);
	}
	if (job_ptr->topo_jobinfo) /* not ours to keep: topology_g_eval_nodes resets it */
		topology_g_jobinfo_free(job_ptr->topo_jobinfo);
	job_ptr->topo_jobinfo = xmalloc(sizeof(*job_ptr->topo_jobinfo));
	job_ptr->topo_jobinfo->plugin_id = plugin_id;
	job_ptr->topo_jobinfo->data = ji;
	info("fabricfit: %pJ segments=%s (an IMEX channel each: unique-channel-per-segment)",
	     job_ptr, text);
done:
	xfree(text);
	xfree(nodes);
	xfree(segment_of);
}
