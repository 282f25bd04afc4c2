/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology/fabricfit, the part that is the same in every Slurm release it supports: thin
 * glue that translates between Slurm's structures and fabricfit's C API (fabricfit_api.h)
 * and holds no logic of its own. The symbols slurmctld looks up are in one small file per
 * release (topology_exports_<release>.c, chosen by configure), each a mechanical call into
 * the functions here. Any failure logs one clear line and leaves Slurm's default selection
 * in charge.
 */

#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/bitstring.h"
#include "src/common/hostlist.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/pack.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/interfaces/gres.h"
#include "src/interfaces/select.h"
#include "src/interfaces/topology.h"
#include "src/slurmctld/slurmctld.h"

#include "src/plugins/topology/common/common_topo.h"

#include "fabricfit_api.h"
#include "topology_glue.h"

const char plugin_name[] = "topology fabricfit plugin";
const char plugin_type[] = "topology/fabricfit";
/* Slurm's own topology plugins use 100-104. */
const uint32_t plugin_id = 190;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

static ff_settings_t settings;
static char *conf_path = NULL;
static char conf_status[512] = "not read";

/* slurmctld only: the placement engine over the loaded snapshot. */
static ff_engine_t *engine = NULL;
static struct timespec snapshot_mtime; /* of the snapshot file last tried */
static bool snapshot_seen = false;
static char engine_status[FF_PATH_MAX + 1024] = "not loaded";
static int *host_of_node = NULL; /* Slurm node index -> fabric host, -1 if unknown */
static int *node_of_host = NULL; /* fabric host -> Slurm node index, -1 if none */
static int mapped_node_count = -1;
static bool nodes_changed = false; /* a node was added or removed since the last map */
static int mapped_live_nodes = -1; /* node records in use when the map was made */
static char *mismatch_note = NULL; /* Slurm nodes and fabric hosts without a counterpart */
static unsigned char *host_allowed = NULL;
static int *host_free = NULL, *host_total = NULL, *host_chosen = NULL;

#define SPANK_PATTERN_KEY "_SLURM_SPANK_OPTION_fabricfit_comm_pattern="

/*
 * Reads fabricfit.conf. A bad file never replaces good settings: slurmctld keeps a copy
 * of the last good file in StateSaveLocation, which survives the re-exec that
 * `scontrol reconfigure` does.
 */
static void _load_settings(void)
{
	char err[512] = "";
	char *last_good = NULL;

	if (!conf_path)
		conf_path = get_extra_conf_path("fabricfit.conf");
	if (running_in_slurmctld() && slurm_conf.state_save_location)
		xstrfmtcat(last_good, "%s/fabricfit.conf.last-good",
			   slurm_conf.state_save_location);
	if (ff_settings_load(conf_path, last_good, &settings, err, sizeof(err)) == FF_OK) {
		snprintf(conf_status, sizeof(conf_status), "ok");
	} else {
		snprintf(conf_status, sizeof(conf_status), "error: %s", err);
		if (running_in_slurmctld())
			error("fabricfit: %s; using %s", err,
			      !strcmp(settings.source, "last-good")
				  ? "the last good copy of the file"
				  : "built-in defaults");
	}
	xfree(last_good);
}

/*
 * Names, once per snapshot or node table, the Slurm nodes the fabric does not have (jobs
 * offered any of them go to Slurm's selection) and the fabric hosts Slurm does not have.
 */
static void _report_mismatch(int hosts)
{
	hostlist_t *unknown = hostlist_create(NULL), *unused = hostlist_create(NULL);
	node_record_t *node_ptr;
	char *a, *b;

	for (int i = 0; (node_ptr = next_node(&i)); i++)
		if (host_of_node[i] < 0)
			hostlist_push_host(unknown, node_ptr->name);
	for (int h = 0; h < hosts; h++)
		if (node_of_host[h] < 0 && ff_engine_host_name(engine, h))
			hostlist_push_host(unused, ff_engine_host_name(engine, h));
	hostlist_sort(unknown);
	hostlist_sort(unused);
	a = hostlist_ranged_string_xmalloc(unknown);
	b = hostlist_ranged_string_xmalloc(unused);
	xfree(mismatch_note);
	if (hostlist_count(unknown) || hostlist_count(unused)) {
		xstrfmtcat(mismatch_note, "NotInFabric=%s NotInSlurm=%s", a[0] ? a : "(none)",
			   b[0] ? b : "(none)");
		if (hostlist_count(unknown))
			warning("fabricfit: %d Slurm node(s) are not in the fabric: %s; jobs "
				"offered them use Slurm's selection",
				hostlist_count(unknown), a);
		if (hostlist_count(unused))
			warning("fabricfit: %d fabric host(s) are not Slurm nodes: %s",
				hostlist_count(unused), b);
	}
	xfree(a);
	xfree(b);
	hostlist_destroy(unknown);
	hostlist_destroy(unused);
}

/*
 * Node records in use. Dynamic nodes fill and free slots of a table that does not change
 * size (MaxNodeCount), and only removal reaches add_rm_node: this catches both.
 */
static int _live_nodes(void)
{
	int n = 0;

	for (int i = 0; next_node(&i); i++)
		n++;
	return n;
}

static bool _map_stale(void)
{
	return mapped_node_count != node_record_count || nodes_changed ||
	       mapped_live_nodes != _live_nodes();
}

/* Maps Slurm's node table onto the fabric's hosts (node indices change on reconfigure). */
static void _map_nodes(void)
{
	int hosts = ff_engine_host_count(engine);
	node_record_t *node_ptr;

	xfree(host_of_node);
	xfree(node_of_host);
	xfree(host_allowed);
	xfree(host_free);
	xfree(host_total);
	xfree(host_chosen);
	mapped_node_count = node_record_count;
	host_of_node = xcalloc(MAX(node_record_count, 1), sizeof(int));
	node_of_host = xcalloc(MAX(hosts, 1), sizeof(int));
	host_allowed = xcalloc(MAX(hosts, 1), sizeof(unsigned char));
	host_free = xcalloc(MAX(hosts, 1), sizeof(int));
	host_total = xcalloc(MAX(hosts, 1), sizeof(int));
	host_chosen = xcalloc(MAX(hosts, 1), sizeof(int));
	for (int h = 0; h < hosts; h++)
		node_of_host[h] = -1;
	for (int i = 0; i < node_record_count; i++)
		host_of_node[i] = -1;
	nodes_changed = false;
	mapped_live_nodes = _live_nodes();
	for (int i = 0; (node_ptr = next_node(&i)); i++) {
		int host = ff_engine_host(engine, node_ptr->name);
		host_of_node[i] = host;
		if (host >= 0) {
			node_of_host[host] = i;
			host_total[host] = (int)gres_node_config_cnt(node_ptr->gres_list, "gpu");
		}
	}
	_report_mismatch(hosts);
}

/*
 * Loads the snapshot when it is new or changed. A snapshot that fails to load never
 * replaces one that works; without any, Slurm's default selection runs.
 */
static void _refresh_engine(void)
{
	struct stat st;
	ff_engine_t *fresh = NULL;
	char err[FF_PATH_MAX + 512] = "", desc[256] = "";

	if (!running_in_slurmctld())
		return;
	if (stat(settings.snapshot_file, &st) != 0) {
		if (!engine)
			snprintf(engine_status, sizeof(engine_status),
				 "no snapshot at %s: Slurm's default selection",
				 settings.snapshot_file);
		return;
	}
	/* Each version of the file is tried once: a bad one is logged once, not per pass. */
	if (snapshot_seen && st.st_mtim.tv_sec == snapshot_mtime.tv_sec &&
	    st.st_mtim.tv_nsec == snapshot_mtime.tv_nsec) {
		if (engine && _map_stale())
			_map_nodes();
		return;
	}
	snapshot_seen = true;
	snapshot_mtime = st.st_mtim;
	if (ff_engine_load(settings.snapshot_file, &fresh, err, sizeof(err)) != FF_OK) {
		error("fabricfit: %s; %s", err,
		      engine ? "keeping the snapshot already loaded"
			     : "using Slurm's default selection");
		snprintf(engine_status, sizeof(engine_status), "bad snapshot: %s%s", err,
			 engine ? " (keeping the one already loaded)" : "");
		return;
	}
	ff_engine_free(engine);
	engine = fresh;
	_map_nodes();
	ff_engine_describe(engine, desc, sizeof(desc));
	snprintf(engine_status, sizeof(engine_status), "loaded %s (%s)", settings.snapshot_file,
		 desc);
	info("fabricfit: snapshot %s loaded: %s", settings.snapshot_file, desc);
}

static void _free_engine(void)
{
	ff_engine_free(engine);
	engine = NULL;
	snapshot_seen = false;
	xfree(mismatch_note);
	xfree(host_of_node);
	xfree(node_of_host);
	xfree(host_allowed);
	xfree(host_free);
	xfree(host_total);
	xfree(host_chosen);
	mapped_node_count = -1;
}

extern int ffg_init(void)
{
	_load_settings();
	if (running_in_slurmctld())
		info("fabricfit: %s loaded (%s for Slurm %s, config %s: %s)", plugin_type,
		     ff_version(), SLURM_VERSION_STRING, conf_path, conf_status);
	return SLURM_SUCCESS;
}

extern void ffg_fini(void)
{
	_free_engine();
	xfree(conf_path);
}

extern int ffg_build_config(void)
{
	_load_settings();
	_refresh_engine();
	return SLURM_SUCCESS;
}

extern int ffg_destroy_config(void)
{
	_free_engine();
	return SLURM_SUCCESS;
}

/* A node was added or removed at run time (scontrol create/delete node): map again. */
extern int ffg_add_rm_node(node_record_t *node_ptr)
{
	nodes_changed = true;
	if (engine)
		info("fabricfit: node %s added or removed: mapping Slurm's nodes onto the fabric "
		     "again",
		     node_ptr ? node_ptr->name : "(unknown)");
	return SLURM_SUCCESS;
}

/* The job's --comm-pattern as the SPANK plugin recorded it, or NULL. */
static const char *_job_pattern(job_record_t *job_ptr)
{
	size_t len = strlen(SPANK_PATTERN_KEY);

	if (!job_ptr || !job_ptr->spank_job_env)
		return NULL;
	for (uint32_t i = 0; i < job_ptr->spank_job_env_size; i++) {
		const char *entry = job_ptr->spank_job_env[i];
		if (entry && !strncmp(entry, SPANK_PATTERN_KEY, len))
			return entry + len;
	}
	return NULL;
}

/*
 * Runs the placement engine over the nodes Slurm offers and narrows node_map to its
 * choice. Returns true when it did; `note` says what happened either way.
 */
static bool _fabricfit_choose(topology_eval_t *topo_eval, const char *pattern, char *note,
			      size_t note_len)
{
	job_record_t *job_ptr = topo_eval->job_ptr;
	ff_request_t request = {0};
	char summary[512] = "", err[512] = "";
	unsigned nchosen = 0;
	int hosts, rc;

	if (!engine) {
		snprintf(note, note_len, "placement=slurm reason=\"%s\"", engine_status);
		return false;
	}
	request.gpus_per_node = ff_tres_gpus(job_ptr->tres_per_node);
	request.total_gpus = ff_tres_gpus(job_ptr->tres_per_job);
	if (!request.gpus_per_node && !request.total_gpus) {
		snprintf(note, note_len, "placement=slurm reason=no-gpus");
		return false;
	}
	if (job_ptr->details && job_ptr->details->req_node_bitmap) {
		snprintf(note, note_len, "placement=slurm reason=required-nodes");
		return false;
	}
	hosts = ff_engine_host_count(engine);
	memset(host_allowed, 0, hosts * sizeof(*host_allowed));
	memset(host_free, 0, hosts * sizeof(*host_free));
	for (int i = 0; (i = bit_ffs_from_bit(topo_eval->node_map, i)) >= 0; i++) {
		int host = host_of_node[i];
		if (host < 0) {
			snprintf(note, note_len,
				 "placement=slurm reason=\"node %s is not in the fabric\"",
				 node_record_table_ptr[i]->name);
			return false;
		}
		/*
		 * GRES counts can be unknown or stale when the map is made (before slurmds
		 * register, after a restart on saved state): read them at each decision.
		 */
		host_total[host] =
		    (int)gres_node_config_cnt(node_record_table_ptr[i]->gres_list, "gpu");
		host_allowed[host] = 1;
		host_free[host] = topo_eval->avail_res_array && topo_eval->avail_res_array[i]
				      ? topo_eval->avail_res_array[i]->avail_gpus
				      : host_total[host];
	}
	request.min_nodes = topo_eval->min_nodes;
	request.max_nodes = MAX(topo_eval->req_nodes, topo_eval->min_nodes);
	request.exclusive =
	    job_ptr->details && (job_ptr->details->whole_node & WHOLE_NODE_REQUIRED);
	request.pattern = pattern;

	rc = ff_engine_place(engine, &request, host_allowed, host_free, host_total, host_chosen,
			     &nchosen, summary, sizeof(summary), err, sizeof(err));
	if (rc == FF_ENOFIT) {
		snprintf(note, note_len, "placement=slurm reason=no-fit");
		return false;
	} else if (rc != FF_OK) {
		snprintf(note, note_len, "placement=slurm reason=\"%s\"", err);
		return false;
	}
	bit_clear_all(topo_eval->node_map);
	for (unsigned k = 0; k < nchosen; k++)
		bit_set(topo_eval->node_map, node_of_host[host_chosen[k]]);
	snprintf(note, note_len, "placement=fabricfit %s", summary);
	return true;
}

extern int ffg_eval_nodes(topology_eval_t *topo_eval)
{
	char *candidates = bitmap2node_name(topo_eval->node_map);
	char pattern[FF_PATTERN_MAX] = "", err[256] = "", note[FF_PATH_MAX + 2048] = "";
	bitstr_t *offered = NULL;
	char *chosen;
	int rc;

	if (ff_effective_pattern(_job_pattern(topo_eval->job_ptr), topo_eval->max_nodes, &settings,
				 pattern, sizeof(pattern), err, sizeof(err)) != FF_OK)
		snprintf(pattern, sizeof(pattern), "ring");

	_refresh_engine();
	offered = bit_copy(topo_eval->node_map);
	if (!_fabricfit_choose(topo_eval, pattern, note, sizeof(note)))
		FREE_NULL_BITMAP(offered);

	/* Slurm's common evaluator makes the final core/GPU pick within the nodes given. */
	rc = common_topo_choose_nodes(topo_eval);
	if (rc != SLURM_SUCCESS && offered) {
		bit_copybits(topo_eval->node_map, offered);
		rc = common_topo_choose_nodes(topo_eval);
		snprintf(
		    note, sizeof(note),
		    "placement=slurm reason=\"Slurm's evaluator refused the fabricfit choice\"");
	}
	FREE_NULL_BITMAP(offered);
	chosen = (rc == SLURM_SUCCESS) ? bitmap2node_name(topo_eval->node_map) : xstrdup("(none)");
	info("fabricfit: eval_nodes %pJ pattern=%s candidates=%s chosen=%s rc=%d %s",
	     topo_eval->job_ptr, pattern, candidates, chosen, rc, note);
	xfree(candidates);
	xfree(chosen);
	return rc;
}

/* Ranks nodes so that each leaf group's nodes are contiguous (known hosts first). */
extern bool ffg_generate_node_ranking(void)
{
	node_record_t *node_ptr;
	int hosts;

	if (!running_in_slurmctld())
		return false;
	if (!conf_path)
		_load_settings();
	_refresh_engine();
	if (!engine)
		return false;
	hosts = ff_engine_host_count(engine);
	for (int i = 0; (node_ptr = next_node(&i)); i++) {
		int host = ff_engine_host(engine, node_ptr->name);
		node_ptr->node_rank = (host >= 0) ? ff_engine_host_rank(engine, host) : hosts + i;
	}
	/* Node indices change once Slurm sorts by rank: map again on next use. */
	mapped_node_count = -1;
	return true;
}

/* What `scontrol show topology` prints: the plugin's settings and snapshot state. */
extern char *ffg_describe(void)
{
	char *out = NULL;

	xstrfmtcat(out, "Plugin=%s Version=\"%s\"\n", plugin_type, ff_version());
	xstrfmtcat(out, "Config=%s Status=\"%s\" Using=%s\n", conf_path ? conf_path : "(none)",
		   conf_status, settings.source);
	xstrfmtcat(out, "SnapshotFile=%s DefaultPattern=%s\n", settings.snapshot_file,
		   settings.default_pattern);
	xstrfmtcat(out, "Placement=%s Snapshot=\"%s\"\n", engine ? "fabricfit" : "slurm-default",
		   engine_status);
	if (engine && mismatch_note)
		xstrfmtcat(out, "%s\n", mismatch_note);
	return out;
}

/*
 * Backfill compares this across candidate start times (lower is better): the free GPUs
 * that the workload's job sizes could not use if the nodes in node_mask were the free ones.
 */
extern uint32_t ffg_get_fragmentation(bitstr_t *node_mask)
{
	double share = 0, unusable = 0;
	char err[256] = "";
	int hosts;

	if (!engine || _map_stale())
		return 0;
	hosts = ff_engine_host_count(engine);
	for (int h = 0; h < hosts; h++) {
		int i = node_of_host[h];
		host_free[h] = (i >= 0 && bit_test(node_mask, i)) ? host_total[h] : 0;
	}
	if (ff_engine_fragmentation(engine, host_free, host_total, &share, &unusable, err,
				    sizeof(err)) != FF_OK)
		return 0;
	return (uint32_t)(unusable + 0.5);
}

/*
 * Each node's rank for the task layout (Slurm 26.05+): the leaf group fabricfit knows it
 * in, shifted by unit_shift, then its place in fabricfit's host order, so that a job's
 * tasks fill one leaf group before the next. Without a snapshot Slurm keeps its own order.
 */
extern int ffg_get_rank(bitstr_t *node_bitmap, uint32_t **node_rank, uint32_t *size, int unit_shift)
{
	uint32_t count, pos = 0;
	const uint32_t low_mask = (1u << unit_shift) - 1, no_unit = UINT32_MAX >> unit_shift;

	*node_rank = NULL;
	*size = 0;
	if (!node_bitmap || !(count = bit_set_count(node_bitmap)))
		return SLURM_SUCCESS;
	_refresh_engine();
	if (!engine || _map_stale())
		return SLURM_SUCCESS;
	*node_rank = xcalloc(count, sizeof(**node_rank));
	*size = count;
	for (int i = 0; next_node_bitmap(node_bitmap, &i); i++, pos++) {
		int host = host_of_node[i];
		int group = (host >= 0) ? ff_engine_host_leaf_group(engine, host) : -1;
		int rank = (host >= 0) ? ff_engine_host_rank(engine, host) : i;

		(*node_rank)[pos] = ((group >= 0) ? (uint32_t)group : no_unit) << unit_shift |
				    ((uint32_t)rank & low_mask);
	}
	return SLURM_SUCCESS;
}
