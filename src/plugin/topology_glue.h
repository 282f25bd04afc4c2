/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What topology/fabricfit does, independent of the Slurm release: topology_glue.c. The
 * per-release files topology_exports_<release>.c give slurmctld the symbols its release
 * looks up and call these; they hold nothing else.
 */
#ifndef FABRICFIT_TOPOLOGY_GLUE_H
#define FABRICFIT_TOPOLOGY_GLUE_H

#include <stdbool.h>
#include <stdint.h>

#include "src/common/bitstring.h"
#include "src/common/node_conf.h"
#include "src/common/pack.h"
#include "src/interfaces/topology.h"

extern const char plugin_name[];
extern const char plugin_type[];
extern const uint32_t plugin_id;
extern const uint32_t plugin_version;

extern int ffg_init(void);
extern void ffg_fini(void);
/* slurm.conf and the node table were (re)read: fabricfit.conf and the snapshot too. */
extern int ffg_build_config(void);
/* slurmctld shuts down (25.05+; fini does the same on 24.11). */
extern int ffg_destroy_config(void);
extern int ffg_add_rm_node(node_record_t *node_ptr);
extern int ffg_eval_nodes(topology_eval_t *topo_eval);
extern bool ffg_generate_node_ranking(void);
/* topology_topoinfo.c: */
/* The plugin's state; *fabric the fabric text, or NULL (slurmctld with a snapshot only). */
extern char *ffg_describe(char **fabric);
extern int ffg_get(topology_data_t type, void *data);
extern int ffg_topoinfo_free(void *topoinfo_ptr);
extern int ffg_topoinfo_pack(void *topoinfo_ptr, buf_t *buffer, uint16_t protocol_version);
extern int ffg_topoinfo_print(void *topoinfo_ptr, char *nodes_list, char **out);
extern int ffg_topoinfo_unpack(void **topoinfo_pptr, buf_t *buffer, uint16_t protocol_version);
/* topology_glue.c: */
extern uint32_t ffg_get_fragmentation(bitstr_t *node_mask);
/* topology_rank.c (26.05+): eval_nodes that keeps its decision's order for get_rank. */
extern int ffg_eval_nodes_ranked(topology_eval_t *topo_eval);
extern int ffg_get_rank(bitstr_t *node_bitmap, uint32_t **node_rank, uint32_t *size,
			int unit_shift);

#endif
