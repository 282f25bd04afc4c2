/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology/fabricfit's `scontrol show topology` data, the same for every Slurm release:
 * the texts ffg_describe() makes in slurmctld (the plugin's state, the fabric), packed,
 * shipped to the client and printed there. A node list given to scontrol reaches only the
 * client (topology_p_topology_print in 24.11, topology_p_topoinfo_print from 25.05), so
 * the client keeps the fabric lines of those nodes' leaf groups (ff_topology_filter).
 */

#include "config.h"

#include <string.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/pack.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/interfaces/topology.h"

#include "fabricfit_api.h"
#include "topology_glue.h"

typedef struct {
	char *text;   /* the plugin's state */
	char *fabric; /* leaf groups, pods, degraded links; NULL without a snapshot */
} fabricfit_topoinfo_t;

extern int ffg_topoinfo_free(void *topoinfo_ptr)
{
	fabricfit_topoinfo_t *topoinfo = topoinfo_ptr;

	if (topoinfo) {
		xfree(topoinfo->text);
		xfree(topoinfo->fabric);
		xfree(topoinfo);
	}
	return SLURM_SUCCESS;
}

extern int ffg_get(ffg_ctx_t *ctx, topology_data_t type, void *data)
{
	switch (type) {
	case TOPO_DATA_TOPOLOGY_PTR: {
		dynamic_plugin_data_t **topoinfo_pptr = data;
		fabricfit_topoinfo_t *topoinfo = xmalloc(sizeof(*topoinfo));

		topoinfo->text = ffg_describe(ctx, &topoinfo->fabric);
		*topoinfo_pptr = xmalloc(sizeof(dynamic_plugin_data_t));
		(*topoinfo_pptr)->data = topoinfo;
		(*topoinfo_pptr)->plugin_id = plugin_id;
		return SLURM_SUCCESS;
	}
	case TOPO_DATA_REC_CNT:
		*(int *)data = 0;
		return SLURM_SUCCESS;
	case TOPO_DATA_EXCLUSIVE_TOPO:
		/* --exclusive=topo holds whole NVLink domains (topology_whole_topo.c). */
		*(int *)data = 1;
		return SLURM_SUCCESS;
	default:
		error("fabricfit: unsupported topology data type %d", type);
		return SLURM_ERROR;
	}
}

extern int ffg_topoinfo_pack(void *topoinfo_ptr, buf_t *buffer, uint16_t protocol_version)
{
	fabricfit_topoinfo_t *topoinfo = topoinfo_ptr;
	packstr(topoinfo->text, buffer);
	packstr(topoinfo->fabric, buffer);
	return SLURM_SUCCESS;
}

extern int ffg_topoinfo_print(void *topoinfo_ptr, char *nodes_list, char **out)
{
	fabricfit_topoinfo_t *topoinfo = topoinfo_ptr;

	char err[256] = "", *fabric = NULL;
	size_t len;

	*out = xstrdup(topoinfo && topoinfo->text ? topoinfo->text
						  : "fabricfit: no topology information\n");
	if (!topoinfo || !topoinfo->fabric)
		return SLURM_SUCCESS;
	/* The lines of the node list's leaf groups: never longer than the whole text. */
	len = strlen(topoinfo->fabric) + 1;
	fabric = xmalloc(len);
	if (ff_topology_filter(topoinfo->fabric, nodes_list, fabric, len, err, sizeof(err)) ==
	    FF_OK)
		xstrcat(*out, fabric);
	else
		xstrfmtcat(*out, "fabricfit: %s\n", err);
	xfree(fabric);
	return SLURM_SUCCESS;
}

extern int ffg_topoinfo_unpack(void **topoinfo_pptr, buf_t *buffer, uint16_t protocol_version)
{
	fabricfit_topoinfo_t *topoinfo = xmalloc(sizeof(*topoinfo));

	*topoinfo_pptr = topoinfo;
	safe_unpackstr(&topoinfo->text, buffer);
	safe_unpackstr(&topoinfo->fabric, buffer);
	return SLURM_SUCCESS;

unpack_error:
	ffg_topoinfo_free(topoinfo);
	*topoinfo_pptr = NULL;
	return SLURM_ERROR;
}
