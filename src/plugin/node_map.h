/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Slurm's node table mapped onto the fabric's hosts (topology_node_map.c). Slurm's node
 * indices change on reconfigure and slots are reused by scontrol create/delete node, so the
 * map is checked and made again when they do; GPU counts are taken from a source that is
 * valid when read.
 */
#ifndef FABRICFIT_NODE_MAP_H
#define FABRICFIT_NODE_MAP_H

#include "src/common/node_conf.h"

#include "plugin_ctx.h"

#pragma GCC visibility push(hidden)

/* The map matches Slurm's node table now: same size, no node added or removed. */
extern bool ffg_map_current(const ffg_ctx_t *ctx);
/* Slot i of the node table holds the node it held when mapped. */
extern bool ffg_slot_current(const ffg_ctx_t *ctx, int i);
/* The fabric host of Slurm node i as mapped, or -1 (outside the fabric, or a stale slot). */
extern int ffg_host_of(const ffg_ctx_t *ctx, int i);
/* Maps Slurm's node table onto the engine's hosts (engine set). */
extern void ffg_map_nodes(ffg_ctx_t *ctx);
extern void ffg_map_free(ffg_ctx_t *ctx);
/* "NotInFabric=... NotInSlurm=..." for the table now (NULL when they agree); logged when `log`. */
extern char *ffg_mismatch_text(const ffg_ctx_t *ctx, bool log);
/* A node's GPUs from a count valid now, -1 when unknown. */
extern int ffg_node_gpus(node_record_t *node_ptr);
/* A node's GPUs in use now (read-only: scontrol show topology). */
extern int ffg_node_gpus_used(node_record_t *node_ptr);
/* Reads again the GPU counts that were not known when mapped. */
extern void ffg_refresh_totals(ffg_ctx_t *ctx);

#pragma GCC visibility pop

#endif
