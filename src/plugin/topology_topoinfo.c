/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology/fabricfit's `scontrol show topology` data, the same for every Slurm release:
 * the text ffg_describe() makes in slurmctld, packed, shipped to the client and printed.
 */

#include "config.h"

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/log.h"
#include "src/common/pack.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/interfaces/topology.h"

#include "topology_glue.h"

typedef struct {
	char *text;
} fabricfit_topoinfo_t;

extern int ffg_topoinfo_free(void *topoinfo_ptr)
{
	fabricfit_topoinfo_t *topoinfo = topoinfo_ptr;

	if (topoinfo) {
		xfree(topoinfo->text);
		xfree(topoinfo);
	}
	return SLURM_SUCCESS;
}

extern int ffg_get(topology_data_t type, void *data)
{
	switch (type) {
	case TOPO_DATA_TOPOLOGY_PTR: {
		dynamic_plugin_data_t **topoinfo_pptr = data;
		fabricfit_topoinfo_t *topoinfo = xmalloc(sizeof(*topoinfo));

		topoinfo->text = ffg_describe();
		*topoinfo_pptr = xmalloc(sizeof(dynamic_plugin_data_t));
		(*topoinfo_pptr)->data = topoinfo;
		(*topoinfo_pptr)->plugin_id = plugin_id;
		return SLURM_SUCCESS;
	}
	case TOPO_DATA_REC_CNT:
		*(int *)data = 0;
		return SLURM_SUCCESS;
	case TOPO_DATA_EXCLUSIVE_TOPO:
		*(int *)data = 0;
		return SLURM_SUCCESS;
	default:
		error("fabricfit: unsupported topology data type %d", type);
		return SLURM_ERROR;
	}
}

extern int ffg_topoinfo_pack(void *topoinfo_ptr, buf_t *buffer, uint16_t protocol_version)
{
	fabricfit_topoinfo_t *topoinfo = topoinfo_ptr;
	char *text = topoinfo->text;

	packstr(text, buffer);
	return SLURM_SUCCESS;
}

extern int ffg_topoinfo_print(void *topoinfo_ptr, char *nodes_list, char **out)
{
	fabricfit_topoinfo_t *topoinfo = topoinfo_ptr;

	*out = xstrdup(topoinfo && topoinfo->text ? topoinfo->text
						  : "fabricfit: no topology information\n");
	return SLURM_SUCCESS;
}

extern int ffg_topoinfo_unpack(void **topoinfo_pptr, buf_t *buffer, uint16_t protocol_version)
{
	fabricfit_topoinfo_t *topoinfo = xmalloc(sizeof(*topoinfo));

	*topoinfo_pptr = topoinfo;
	safe_unpackstr(&topoinfo->text, buffer);
	return SLURM_SUCCESS;

unpack_error:
	ffg_topoinfo_free(topoinfo);
	*topoinfo_pptr = NULL;
	return SLURM_ERROR;
}
