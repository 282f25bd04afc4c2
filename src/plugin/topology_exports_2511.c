/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology/fabricfit for Slurm 25.11: the symbols src/interfaces/topology.c of 25.11 looks
 * up (its syms[]), each passing straight to topology_glue.c. Nothing else belongs here.
 * fabricfit reads no topology.yaml section: the topology context arguments go unused.
 */

#include "config.h"

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/interfaces/topology.h"
#include "src/plugins/topology/common/common_topo.h"

#include "topology_glue.h"
#include "topology_jobinfo.h"

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(25, 11, 0) ||                                         \
    SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 12, 0)
#error "topology_exports_2511.c is for Slurm 25.11: configure chose the wrong file"
#endif

/* --exclusive=topo holds whole NVLink domains (topology_p_whole_topo). */
const bool supports_exclusive_topo = true;

extern int init(void)
{
	return ffg_init(ffg_ctx());
}

extern void fini(void)
{
	ffg_fini(ffg_ctx());
}

extern int topology_p_add_rm_node(node_record_t *node_ptr, char *unit, topology_ctx_t *tctx)
{
	return ffg_add_rm_node(ffg_ctx(), node_ptr);
}

extern int topology_p_build_config(topology_ctx_t *tctx)
{
	return ffg_build_config(ffg_ctx());
}

extern int topology_p_destroy_config(topology_ctx_t *tctx)
{
	return ffg_destroy_config(ffg_ctx());
}

extern int topology_p_eval_nodes(topology_eval_t *topo_eval)
{
	return ffg_eval(ffg_ctx(), topo_eval);
}

extern int topology_p_whole_topo(bitstr_t *node_mask, void *tctx)
{
	return ffg_whole_topo(ffg_ctx(), node_mask);
}

extern bitstr_t *topology_p_get_bitmap(char *name, void *tctx)
{
	return NULL;
}

extern bool topology_p_generate_node_ranking(topology_ctx_t *tctx)
{
	return ffg_generate_node_ranking(ffg_ctx());
}

extern int topology_p_get_node_addr(char *node_name, char **paddr, char **ppattern, void *tctx)
{
	return common_topo_get_node_addr(node_name, paddr, ppattern);
}

extern int topology_p_split_hostlist(hostlist_t *hl, hostlist_t ***sp_hl, int *count,
				     uint16_t tree_width, void *tctx)
{
	return common_topo_split_hostlist_treewidth(hl, sp_hl, count, tree_width);
}

extern int topology_p_get(topology_data_t type, void *data, void *tctx)
{
	return ffg_get(ffg_ctx(), type, data);
}

extern int topology_p_topoinfo_free(void *topoinfo_ptr)
{
	return ffg_topoinfo_free(topoinfo_ptr);
}

extern int topology_p_topoinfo_pack(void *topoinfo_ptr, buf_t *buffer, uint16_t protocol_version)
{
	return ffg_topoinfo_pack(topoinfo_ptr, buffer, protocol_version);
}

extern int topology_p_topoinfo_print(void *topoinfo_ptr, char *nodes_list, char *unit, char **out)
{
	return ffg_topoinfo_print(topoinfo_ptr, nodes_list, out);
}

extern int topology_p_topoinfo_unpack(void **topoinfo_pptr, buf_t *buffer,
				      uint16_t protocol_version)
{
	return ffg_topoinfo_unpack(topoinfo_pptr, buffer, protocol_version);
}

/* A job's --segment node lists, for switch/nvidia_imex (topology_jobinfo.c). */
extern void topology_p_jobinfo_free(void *topo_jobinfo)
{
	ffg_jobinfo_free(topo_jobinfo);
}

extern void topology_p_jobinfo_pack(void *topo_jobinfo, buf_t *buffer, uint16_t protocol_version)
{
	ffg_jobinfo_pack(topo_jobinfo, buffer, protocol_version);
}

extern int topology_p_jobinfo_unpack(void **topo_jobinfo, buf_t *buffer, uint16_t protocol_version)
{
	return ffg_jobinfo_unpack(topo_jobinfo, buffer, protocol_version);
}

extern int topology_p_jobinfo_get(topology_jobinfo_type_t type, void *topo_jobinfo, void *data)
{
	return ffg_jobinfo_get(type, topo_jobinfo, data);
}

extern uint32_t topology_p_get_fragmentation(bitstr_t *node_mask, void *tctx)
{
	return ffg_get_fragmentation(ffg_ctx(), node_mask);
}

/* Nodes carry no Topology= of fabricfit's: the fabric snapshot says where they are. */
extern void topology_p_get_topology_str(node_record_t *node_ptr, char **topology_str_ptr,
					topology_ctx_t *tctx)
{
}
