/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology/fabricfit for Slurm 24.11: the symbols src/interfaces/topology.c of 24.11 looks
 * up (its syms[]), each passing straight to topology_glue.c. Nothing else belongs here.
 */

#include "config.h"

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/interfaces/topology.h"
#include "src/plugins/topology/common/common_topo.h"

#include "topology_glue.h"

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 11, 0) ||                                         \
    SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 12, 0)
#error "topology_exports_2411.c is for Slurm 24.11: configure chose the wrong file"
#endif

extern int init(void)
{
	return ffg_init(ffg_ctx());
}

extern int fini(void)
{
	ffg_fini(ffg_ctx());
	return SLURM_SUCCESS;
}

extern int topology_p_build_config(void)
{
	return ffg_build_config(ffg_ctx());
}

extern int topology_p_eval_nodes(topology_eval_t *topo_eval)
{
	return ffg_eval(ffg_ctx(), topo_eval);
}

/* --exclusive=topo: TOPO_DATA_EXCLUSIVE_TOPO answers 1 (topology_topoinfo.c). */
extern int topology_p_whole_topo(bitstr_t *node_mask)
{
	return ffg_whole_topo(ffg_ctx(), node_mask);
}

extern bitstr_t *topology_p_get_bitmap(char *name)
{
	return NULL;
}

extern bool topology_p_generate_node_ranking(void)
{
	return ffg_generate_node_ranking(ffg_ctx());
}

extern int topology_p_get_node_addr(char *node_name, char **paddr, char **ppattern)
{
	return common_topo_get_node_addr(node_name, paddr, ppattern);
}

extern int topology_p_split_hostlist(hostlist_t *hl, hostlist_t ***sp_hl, int *count,
				     uint16_t tree_width)
{
	return common_topo_split_hostlist_treewidth(hl, sp_hl, count, tree_width);
}

extern int topology_p_topology_free(void *topoinfo_ptr)
{
	return ffg_topoinfo_free(topoinfo_ptr);
}

extern int topology_p_get(topology_data_t type, void *data)
{
	return ffg_get(ffg_ctx(), type, data);
}

extern int topology_p_topology_pack(void *topoinfo_ptr, buf_t *buffer, uint16_t protocol_version)
{
	return ffg_topoinfo_pack(topoinfo_ptr, buffer, protocol_version);
}

extern int topology_p_topology_print(void *topoinfo_ptr, char *nodes_list, char **out)
{
	return ffg_topoinfo_print(topoinfo_ptr, nodes_list, out);
}

extern int topology_p_topology_unpack(void **topoinfo_pptr, buf_t *buffer,
				      uint16_t protocol_version)
{
	return ffg_topoinfo_unpack(topoinfo_pptr, buffer, protocol_version);
}

extern uint32_t topology_p_get_fragmentation(bitstr_t *node_mask)
{
	return ffg_get_fragmentation(ffg_ctx(), node_mask);
}
