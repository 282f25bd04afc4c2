/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology/fabricfit's topology_p_eval_nodes: the job's request read from its record and
 * handed to fabricfit's C API (ff_job_request decides what fabricfit places), the node
 * map narrowed to the engine's choice, Slurm's common evaluator run within it, and run
 * again from the saved state on everything Slurm offered when it refuses.
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/bitstring.h"
#include "src/common/hostlist.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/interfaces/gres.h"
#include "src/interfaces/select.h"
#include "src/interfaces/topology.h"
#include "src/slurmctld/slurmctld.h"

#include "src/plugins/topology/common/common_topo.h"

#include "engine_slot.h"
#include "eval_choose.h"
#include "fabricfit_api.h"
#include "node_map.h"
#include "placement_record.h"
#include "topology_eval.h"
#include "topology_eval_state.h"
#include "topology_wait.h"
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0)
#include "topology_jobinfo.h"
#endif

/*
 * Moves the word starting " KEY" (to the next space) from `from` to the end of `to`: the
 * engine's words the allocation's info line carries too (both lines get `to`).
 */
static void _move_word(char *from, const char *key, char *to, size_t to_len)
{
	char *at = strstr(from, key), *end;
	size_t len = strlen(to);

	if (!at || len + 1 >= to_len)
		return;
	end = strchr(at + 1, ' ');
	if (!end)
		end = at + strlen(at);
	snprintf(to + len, to_len - len, "%.*s", (int)(end - at), at);
	memmove(at, end, strlen(end) + 1);
}

/* Leaf groups the nodes in node_map span (a node outside the fabric counts as its own). */
static unsigned _leaf_groups_of(ffg_ctx_t *ctx, bitstr_t *node_map)
{
	unsigned n = 0, outside = 0;
	int hosts = ff_engine_host_count(ctx->engine), *host_chosen = ctx->map.host_chosen;

	for (int i = 0; (i = bit_ffs_from_bit(node_map, i)) >= 0; i++) {
		int host = ffg_host_of(ctx, i);
		if (host < 0 || host >= hosts)
			outside++;
		else
			host_chosen[n++] = host;
	}
	return ff_engine_leaf_groups_of(ctx->engine, host_chosen, n) + outside;
}

/*
 * --switches=N@T, as topology/tree has it: an allocation over more than N leaf groups
 * waits (best_switch false: cons_tres does not start it) until the job has waited T.
 */
static void _apply_switches(ffg_ctx_t *ctx, topology_eval_t *topo_eval, char *note, size_t note_len)
{
	job_record_t *job_ptr = topo_eval->job_ptr;
	time_t now = time(NULL);
	unsigned groups;
	size_t len = strlen(note);

	if (!job_ptr->req_switch || !ctx->engine)
		return;
	if (!job_ptr->wait4switch_start)
		job_ptr->wait4switch_start = now;
	groups = _leaf_groups_of(ctx, topo_eval->node_map);
	job_ptr->best_switch =
	    ff_switches_allow(job_ptr->req_switch, groups, (long)(now - job_ptr->wait4switch_start),
			      (long)job_ptr->wait4switch);
	snprintf(note + len, note_len - len, " switches=%u/%u%s", groups, job_ptr->req_switch,
		 job_ptr->best_switch ? "" : " waiting-for-switches");
}

/* Slurm evaluates with every GPU counted as free (a submit-time test), not the usage now. */
static bool _test_only(const topology_eval_t *topo_eval)
{
	int i = bit_ffs(topo_eval->node_map);
	avail_res_t *res;
	sock_gres_t *sg;

	if (topo_eval->job_ptr->bit_flags & BACKFILL_TEST)
		return true;
	if (i < 0 || !topo_eval->avail_res_array || !(res = topo_eval->avail_res_array[i]) ||
	    !res->sock_gres_list || !(sg = list_peek(res->sock_gres_list)))
		return false;
	return sg->use_total_gres;
}

/* Refusals are logged once per job (or array task): a slot per hash of the two. */
#define LOGGED_SLOTS 4096

/* True the first time for a job (or array task); later calls for it return false. */
static bool _first_log(ffg_ctx_t *ctx, job_record_t *job_ptr)
{
	uint32_t slot = (job_ptr->job_id ^ (job_ptr->array_task_id * 2654435761u)) % LOGGED_SLOTS;

	if (!ctx->logged)
		ctx->logged = xcalloc(LOGGED_SLOTS, sizeof(*ctx->logged));
	/* A pending array's tasks share the meta record's job_id. */
	if (ctx->logged[slot][0] == job_ptr->job_id &&
	    ctx->logged[slot][1] == job_ptr->array_task_id)
		return false;
	ctx->logged[slot][0] = job_ptr->job_id;
	ctx->logged[slot][1] = job_ptr->array_task_id;
	return true;
}

/* Every decision at debug level with DebugFlags=Placement (tests and trials too). */
static void _log_decision(ffg_ctx_t *ctx, topology_eval_t *topo_eval, bitstr_t *candidates,
			  const ff_pattern_t *p, int rc, const char *note)
{
	char *cand, *chosen, pattern[FF_PATTERN_MAX];

	if (!(ctx->settings.debug_placement && get_log_level() >= LOG_LEVEL_DEBUG))
		return;
	ff_pattern_name(p, pattern, sizeof(pattern));
	cand = bitmap2node_name(candidates);
	chosen = rc == SLURM_SUCCESS ? bitmap2node_name(topo_eval->node_map) : xstrdup("(none)");
	debug("fabricfit: Placement: eval_nodes %pJ pattern=%s candidates=%s chosen=%s rc=%d %s",
	      topo_eval->job_ptr, pattern, cand, chosen, rc, note);
	xfree(cand);
	xfree(chosen);
}

/*
 * The placement record of an evaluation that may allocate the job (not a submit test or
 * a backfill trial), in admin units: record_writer.c makes and writes it, with the
 * controller's info line, outside the cycle, once slurmctld has settled whether this
 * evaluation made the allocation. Takes over *candidates.
 */
static void _note_allocation(ffg_ctx_t *ctx, topology_eval_t *topo_eval, bitstr_t **candidates,
			     const ff_request_t *request, bool placed, const ff_pattern_t *pattern,
			     const char *reason, const char *extra)
{
	ffg_decision_t decision = {.extra = extra, .pattern = pattern, .reason = reason};
	unsigned n = 0;
	int *got = NULL;

	if (!topo_eval->job_ptr->best_switch || _test_only(topo_eval))
		return;
	if (placed) {
		/* Not host_chosen: on 26.05 get_rank reads the decision's order from it. */
		int hosts = ff_engine_host_count(ctx->engine);
		got = xcalloc(MAX(hosts, 1), sizeof(int));
		for (int i = 0; (i = bit_ffs_from_bit(topo_eval->node_map, i)) >= 0; i++) {
			int host = ffg_host_of(ctx, i);
			if (host >= 0 && host < hosts && n < (unsigned)hosts)
				got[n++] = host;
		}
		decision.request = request;
		decision.hosts = got;
		decision.nhosts = n;
		decision.free_gpus = ctx->map.host_free;
		decision.total_gpus = ctx->map.host_total;
		decision.host_count = hosts;
	}
	decision.chosen = bit_copy(topo_eval->node_map);
	decision.candidates = *candidates;
	*candidates = NULL;
	ffg_record_note(ctx, topo_eval->job_ptr, &decision);
	FREE_NULL_BITMAP(decision.chosen); /* when no note took them */
	FREE_NULL_BITMAP(decision.candidates);
	xfree(got);
}

/*
 * Slurm 24.11's common evaluator dereferences a NULL task count in _eval_nodes_spread()
 * for a --spread-job job with GRES (fixed in later releases): slurmctld would die of
 * SIGSEGV at submission. Such a job is refused instead, with the reason logged.
 */
static bool _evaluator_would_crash(job_record_t *job_ptr)
{
#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(25, 5, 0)
	return (job_ptr->bit_flags & SPREAD_JOB) && job_ptr->gres_list_req;
#else
	return false;
#endif
}

static void _log_refusal(ffg_ctx_t *ctx, topology_eval_t *topo_eval)
{
	if (!_first_log(ctx, topo_eval->job_ptr))
		return;
	error("fabricfit: eval_nodes %pJ rc=%d placement=none reason=\"--spread-job with GRES: "
	      "Slurm %s's evaluator would crash on it (_eval_nodes_spread); refused\"",
	      topo_eval->job_ptr, SLURM_ERROR, SLURM_VERSION_STRING);
}

extern int ffg_eval(ffg_ctx_t *ctx, topology_eval_t *topo_eval)
{
	/* About 10 KB per evaluation: terminated, not zero-filled (the = "" of C). */
	char note[FF_PATH_MAX + 2048];
	char reason[FF_PATH_MAX + 1024], switches[1024];
	ff_request_t request = {0};
	ffg_eval_state_t *saved = NULL;
	bitstr_t *candidates = NULL;
	unsigned nchosen = 0;
	bool test_only = _test_only(topo_eval), read = false, health_waits = false;
	int rc;

	note[0] = reason[0] = switches[0] = '\0';
	ffg_refresh_engine(ctx);
	ffg_record_count_started(ctx);
	if (!ffg_wait_begin(ctx, topo_eval, test_only))
		return SLURM_ERROR; /* it needs a host reserved for a waiting job */
	candidates = bit_copy(topo_eval->node_map);
	if (_evaluator_would_crash(topo_eval->job_ptr)) {
		_log_refusal(ctx, topo_eval);
		FREE_NULL_BITMAP(candidates);
		return SLURM_ERROR;
	}
	if (ffg_choose(ctx, topo_eval, test_only, &nchosen, note, sizeof(note), &request, &read,
		       &health_waits, reason, sizeof(reason))) {
		bit_clear_all(topo_eval->node_map);
		for (unsigned k = 0; k < nchosen; k++)
			bit_set(topo_eval->node_map,
				ctx->map.node_of_host[ctx->map.host_chosen[k]]);
		/* All the evaluator may consume, so that Slurm's own pass can start afresh. */
		if (!(saved = ffg_eval_state_save(ctx->eval_state, topo_eval, candidates))) {
			bit_copybits(topo_eval->node_map, candidates);
			ffg_fall_back(note, sizeof(note), reason, sizeof(reason), true,
				      "an evaluation within an evaluation");
		}
	}
	if (health_waits) {
		/* No nodes now: the job stays pending until a placement off failing links fits. */
		_log_decision(ctx, topo_eval, candidates, read ? &request.pattern : NULL,
			      SLURM_ERROR, note);
		/* Its reason, shown again by the next evaluations (select_nodes() resets it). */
		if (!test_only && ctx->waits.book &&
		    ff_wait_book_note(
			ctx->waits.book, topo_eval->job_ptr->job_id,
			strstr(note, "domain=waits")
			    ? "Waiting for an NVLink domain with room (fabricfit domain=waits)"
			    : "Waiting for hosts off failing links or NVLink (fabricfit "
			      "health=waits)") != FF_OK)
			error("fabricfit: %pJ: no memory to note why it waits", topo_eval->job_ptr);
		if (!_first_log(ctx, topo_eval->job_ptr))
			;
		else if (strstr(note, "domain=waits"))
			info("fabricfit: %pJ waits: no NVLink domain holds it now (domain=waits)",
			     topo_eval->job_ptr);
		else
			info("fabricfit: %pJ waits: only placements across a failing link fit now "
			     "(health=waits)",
			     topo_eval->job_ptr);
		FREE_NULL_BITMAP(candidates);
		return SLURM_ERROR;
	}
	/* Slurm's common evaluator makes the final core/GPU pick within the nodes given. */
	rc = common_topo_choose_nodes(topo_eval);
	if (rc != SLURM_SUCCESS && saved) {
		ffg_eval_state_restore(saved, topo_eval);
		rc = common_topo_choose_nodes(topo_eval);
		ffg_fall_back(note, sizeof(note), reason, sizeof(reason), true,
			      "Slurm's evaluator refused the fabricfit choice");
	}
	if (rc == SLURM_SUCCESS) {
		/* The share kept beside running jobs, --switches and the locality wait's
		 * verdict: in both log lines. */
		if (!reason[0]) {
			_move_word(note, " uplink_share=", switches, sizeof(switches));
			/* Kept off or took an unhealthy link: in the placement record too. */
			/* Both words when it kept off a failing part and took a degraded one. */
			for (int i = 0; i < 2 && strstr(note, " health="); i++)
				_move_word(note, " health=", switches, sizeof(switches));
		}
		_apply_switches(ctx, topo_eval, switches, sizeof(switches));
		ffg_wait_end(ctx, topo_eval, saved ? &request : NULL, test_only, switches,
			     sizeof(switches));
		strncat(note, switches, sizeof(note) - strlen(note) - 1);
	}
	_log_decision(ctx, topo_eval, candidates, read ? &request.pattern : NULL, rc, note);
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0)
	/* Only fabricfit's own choice has segments of its rule. */
	if (rc == SLURM_SUCCESS && saved && !reason[0] && !test_only)
		ffg_jobinfo_note(ctx, topo_eval);
#endif
	if (rc == SLURM_SUCCESS)
		_note_allocation(ctx, topo_eval, &candidates, &request, !reason[0],
				 read ? &request.pattern : NULL, reason, switches);
	FREE_NULL_BITMAP(candidates);
	ffg_eval_state_free(saved);
	return rc;
}
