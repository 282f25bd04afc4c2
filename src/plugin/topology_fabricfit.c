/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology/fabricfit: Slurm 24.11 topology plugin. Thin glue: it translates between
 * Slurm's structures and fabricfit's C API (fabricfit_api.h) and holds no logic of its
 * own. Any failure logs one clear line and leaves Slurm's default selection in charge.
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/bitstring.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/pack.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/interfaces/topology.h"
#include "src/slurmctld/slurmctld.h"

#include "src/plugins/topology/common/common_topo.h"

#include "fabricfit_api.h"

const char plugin_name[] = "topology fabricfit plugin";
const char plugin_type[] = "topology/fabricfit";
/* Slurm's own topology plugins use 100-104. */
const uint32_t plugin_id = 190;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* What `scontrol show topology` prints: made in slurmctld, shipped to the client. */
typedef struct {
	char *text;
} fabricfit_topoinfo_t;

static ff_settings_t settings;
static char *conf_path = NULL;
static char conf_status[512] = "not read";

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
			      !strcmp(settings.source, "last-good") ?
				      "the last good copy of the file" :
				      "built-in defaults");
	}
	xfree(last_good);
}

extern int init(void)
{
	_load_settings();
	if (running_in_slurmctld())
		info("fabricfit: %s loaded (%s, config %s: %s)", plugin_type, ff_version(),
		     conf_path, conf_status);
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	xfree(conf_path);
	return SLURM_SUCCESS;
}

extern int topology_p_build_config(void)
{
	_load_settings();
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

extern int topology_p_eval_nodes(topology_eval_t *topo_eval)
{
	char *candidates = bitmap2node_name(topo_eval->node_map);
	char pattern[FF_PATTERN_MAX] = "", err[256] = "";
	char *chosen;
	int rc;

	if (ff_effective_pattern(_job_pattern(topo_eval->job_ptr), topo_eval->max_nodes, &settings,
				 pattern, sizeof(pattern), err, sizeof(err)) != FF_OK)
		snprintf(pattern, sizeof(pattern), "invalid");

	rc = common_topo_choose_nodes(topo_eval);
	chosen = (rc == SLURM_SUCCESS) ? bitmap2node_name(topo_eval->node_map) : xstrdup("(none)");
	info("fabricfit: eval_nodes %pJ pattern=%s candidates=%s chosen=%s rc=%d",
	     topo_eval->job_ptr, pattern, candidates, chosen, rc);
	xfree(candidates);
	xfree(chosen);
	return rc;
}

extern int topology_p_whole_topo(bitstr_t *node_mask)
{
	return SLURM_SUCCESS;
}

extern bitstr_t *topology_p_get_bitmap(char *name)
{
	return NULL;
}

extern bool topology_p_generate_node_ranking(void)
{
	return false;
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
	fabricfit_topoinfo_t *topoinfo = topoinfo_ptr;

	if (topoinfo) {
		xfree(topoinfo->text);
		xfree(topoinfo);
	}
	return SLURM_SUCCESS;
}

static char *_describe(void)
{
	char *out = NULL;

	xstrfmtcat(out, "Plugin=%s Version=\"%s\"\n", plugin_type, ff_version());
	xstrfmtcat(out, "Config=%s Status=\"%s\" Using=%s\n", conf_path ? conf_path : "(none)",
		   conf_status, settings.source);
	xstrfmtcat(out, "SnapshotFile=%s DefaultPattern=%s\n", settings.snapshot_file,
		   settings.default_pattern);
	xstrfmtcat(out, "Placement=slurm-default Reason=\"fabric-aware placement not enabled in "
			"this build\"\n");
	return out;
}

extern int topology_p_get(topology_data_t type, void *data)
{
	switch (type) {
	case TOPO_DATA_TOPOLOGY_PTR: {
		dynamic_plugin_data_t **topoinfo_pptr = data;
		fabricfit_topoinfo_t *topoinfo = xmalloc(sizeof(*topoinfo));

		topoinfo->text = _describe();
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

extern int topology_p_topology_pack(void *topoinfo_ptr, buf_t *buffer, uint16_t protocol_version)
{
	fabricfit_topoinfo_t *topoinfo = topoinfo_ptr;
	char *text = topoinfo->text;

	packstr(text, buffer);
	return SLURM_SUCCESS;
}

extern int topology_p_topology_print(void *topoinfo_ptr, char *nodes_list, char **out)
{
	fabricfit_topoinfo_t *topoinfo = topoinfo_ptr;

	*out = xstrdup(topoinfo && topoinfo->text ? topoinfo->text
						  : "fabricfit: no topology information\n");
	return SLURM_SUCCESS;
}

extern int topology_p_topology_unpack(void **topoinfo_pptr, buf_t *buffer,
				      uint16_t protocol_version)
{
	fabricfit_topoinfo_t *topoinfo = xmalloc(sizeof(*topoinfo));

	*topoinfo_pptr = topoinfo;
	safe_unpackstr(&topoinfo->text, buffer);
	return SLURM_SUCCESS;

unpack_error:
	topology_p_topology_free(topoinfo);
	*topoinfo_pptr = NULL;
	return SLURM_ERROR;
}

extern uint32_t topology_p_get_fragmentation(bitstr_t *node_mask)
{
	return 0;
}
