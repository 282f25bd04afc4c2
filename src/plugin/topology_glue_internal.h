/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * State the files of topology/fabricfit's glue share (hidden: never visible to
 * slurmctld), and the node map's functions (topology_node_map.c).
 */
#ifndef FABRICFIT_TOPOLOGY_GLUE_INTERNAL_H
#define FABRICFIT_TOPOLOGY_GLUE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>

#include "src/common/node_conf.h"

#include "fabricfit_api.h"

#pragma GCC visibility push(hidden)

extern ff_settings_t settings; /* fabricfit.conf as read (topology_glue.c) */

/* slurmctld only: the placement engine over the loaded snapshot (topology_node_map.c). */
extern ff_engine_t *engine;
/*
 * Held for writing while `engine` is replaced or freed, for reading by scontrol show
 * topology, which runs under a node read lock only (evaluations hold the node write lock).
 */
extern pthread_rwlock_t engine_lock;
/* Counts the engines put in place (under engine_lock for writing); 0: none yet. */
extern unsigned engine_generation;
extern char engine_status[FF_PATH_MAX + 1024];
extern int *host_of_node;     /* Slurm node index -> fabric host, -1 if unknown */
extern int *node_of_host;     /* fabric host -> Slurm node index, -1 if none */
extern int mapped_node_count; /* node_record_count when mapped; -1: not mapped */
extern char **mapped_name;    /* Slurm node name per slot when mapped */
extern bool totals_pending;   /* some host's GPU count was not known when read */
extern bool nodes_changed;    /* a node was added or removed since the last map */
extern char *ffg_mismatch_text(bool log);
extern char *mismatch_note; /* Slurm nodes and fabric hosts without a counterpart */
extern unsigned char *host_allowed;
extern int *host_free, *host_total, *host_chosen; /* per fabric host, scratch and counts */

/* The map matches Slurm's node table now: same size, no node added or removed. */
extern bool ffg_map_current(void);
/* Slot i of the node table holds the node it held when mapped. */
extern bool ffg_slot_current(int i);
extern void ffg_map_nodes(void);
/* A node's GPUs from a count valid now, -1 when unknown. */
extern int ffg_node_gpus(node_record_t *node_ptr);
/* A node's GPUs in use now (read-only: scontrol show topology). */
extern int ffg_node_gpus_used(node_record_t *node_ptr);
/* Reads again the GPU counts that were not known when mapped. */
extern void ffg_refresh_totals(void);
/* Takes over a snapshot the watcher loaded (cheap when none). */
extern void ffg_refresh_engine(void);
/* Reads the snapshot now (startup, reconfigure), falling back to the last good copy. */
extern void ffg_load_engine_now(void);
extern void ffg_free_engine(void);

#pragma GCC visibility pop

#endif
