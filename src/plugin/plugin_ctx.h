/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology/fabricfit's state, all of it, in one context: slurmctld loads the plugin once and
 * topology_glue.c owns the one instance, passing it to every function (as Slurm's plugins
 * pass their plugin_ctx); no file keeps state of its own. Each part is changed by the file
 * named beside it, under the lock named there; parts that are a file's own business are
 * opaque here. The rules over the state (waits, scans, patterns) are the core's, behind
 * fabricfit_api.h: these files read Slurm's records and apply the core's verdicts.
 */
#ifndef FABRICFIT_PLUGIN_CTX_H
#define FABRICFIT_PLUGIN_CTX_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "fabricfit_api.h"

typedef struct ffg_records ffg_records_t;	    /* record_notes.h */
typedef struct ffg_watch ffg_watch_t;		    /* snapshot_watch.c */
typedef struct ffg_health_watch ffg_health_watch_t; /* health_watch.c */
typedef struct ffg_eval_state ffg_eval_state_t;	    /* topology_eval_state.c */

/*
 * Slurm's node table mapped onto the fabric's hosts (topology_node_map.c), made again when
 * the engine or the table changes; per-host scratch arrays for the evaluations sized by it.
 * Changed under slurmctld's node write lock (evaluations) and engine_lock for writing.
 */
typedef struct {
	int *host_of_node;     /* Slurm node index -> fabric host, -1 if unknown */
	int *node_of_host;     /* fabric host -> Slurm node index, -1 if none */
	int mapped_node_count; /* node_record_count when mapped; -1: not mapped */
	char **mapped_name;    /* Slurm node name per slot when mapped (slots are reused) */
	bool totals_pending;   /* some host's GPU count was not known when read */
	bool nodes_changed;    /* a node was added or removed since the last map */
	char *mismatch_note;   /* Slurm nodes and fabric hosts without a counterpart */
	unsigned char *host_allowed;
	int *host_free, *host_total, *host_chosen; /* per fabric host */
} ffg_node_map_t;

/* The locality wait's scratch per fabric host (topology_wait.c, job write lock). */
typedef struct {
	ff_wait_book_t *book; /* the waits (the core's) */
	double *free_at;      /* when each host's jobs are expected to end */
	int *placed, *expected;
	unsigned char *usable;
	int scratch_hosts;
} ffg_waits_t;

/* The run-time history (wait_history.c): learnt by the housekeeper, read by evaluations. */
typedef struct {
	ff_predictor_t *predictor; /* locks itself */
	char *path;		   /* StateSaveLocation/fabricfit.runtime-history, or NULL */
	bool save_failed;	   /* the last save failed (logged once) */
} ffg_history_t;

/* The order of the last allocation fabricfit decided (topology_rank.c, 26.05+). */
typedef struct {
	int *nodes; /* Slurm node indices in the decision's order */
	uint32_t count;
	const ff_engine_t *engine;
} ffg_decision_order_t;

/* The one background thread (housekeeper.c). */
typedef struct {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool running, stopping;
} ffg_keeper_t;

typedef struct ffg_ctx {
	/* fabricfit.conf as read (topology_glue.c: init, build_config) */
	ff_settings_t settings;
	char *conf_path;
	char conf_status[512];

	/*
	 * slurmctld only: the placement engine over the loaded snapshot (engine_slot.c). Held
	 * for writing while it is replaced or freed, for reading by scontrol show topology
	 * (node read lock only) and the housekeeper; evaluations hold the node write lock.
	 */
	ff_engine_t *engine;
	pthread_rwlock_t engine_lock;
	unsigned engine_generation; /* engines put in place; 0: none yet */
	char engine_status[FF_PATH_MAX + 1024];

	ffg_node_map_t map;
	ffg_waits_t waits;
	ffg_history_t history;
	ffg_records_t *records;
	ff_running_scan_t *scan; /* the housekeeper's scans of the job list (running_count.c) */
	ffg_watch_t *watch;
	ffg_health_watch_t *health; /* the health file (health_watch.c) */
	ffg_eval_state_t *eval_state;
	ffg_decision_order_t order;
	ffg_keeper_t keeper;
	/* Refusals logged once per job (topology_eval.c): job id and array task per slot. */
	uint32_t (*logged)[2];
} ffg_ctx_t;

#endif
