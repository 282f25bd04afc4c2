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

#include "plugin_ctx.h"
#include "topology_eval.h"

extern const char plugin_name[];
extern const char plugin_type[];
extern const uint32_t plugin_id;
extern const uint32_t plugin_version;

/* The plugin's one context (plugin_ctx.h): the exports pass it to every call below. */
extern ffg_ctx_t *ffg_ctx(void);

extern int ffg_init(ffg_ctx_t *ctx);
extern void ffg_fini(ffg_ctx_t *ctx);
/* slurm.conf and the node table were (re)read: fabricfit.conf and the snapshot too. */
extern int ffg_build_config(ffg_ctx_t *ctx);
/* slurmctld shuts down (25.05+; fini does the same on 24.11). */
extern int ffg_destroy_config(ffg_ctx_t *ctx);
extern int ffg_add_rm_node(ffg_ctx_t *ctx, node_record_t *node_ptr);
extern bool ffg_generate_node_ranking(ffg_ctx_t *ctx);
extern uint32_t ffg_get_fragmentation(ffg_ctx_t *ctx, bitstr_t *node_mask);
/* topology_whole_topo.c: widens node_mask to whole NVLink domains (--exclusive=topo). */
extern int ffg_whole_topo(ffg_ctx_t *ctx, bitstr_t *node_mask);
/* topology_describe.c: the plugin's state; *fabric the fabric text, or NULL (slurmctld with
 * a snapshot only). */
extern char *ffg_describe(ffg_ctx_t *ctx, char **fabric);
/* topology_topoinfo.c: */
extern int ffg_get(ffg_ctx_t *ctx, topology_data_t type, void *data);
extern int ffg_topoinfo_free(void *topoinfo_ptr);
extern int ffg_topoinfo_pack(void *topoinfo_ptr, buf_t *buffer, uint16_t protocol_version);
extern int ffg_topoinfo_print(void *topoinfo_ptr, char *nodes_list, char **out);
extern int ffg_topoinfo_unpack(void **topoinfo_pptr, buf_t *buffer, uint16_t protocol_version);

#endif
