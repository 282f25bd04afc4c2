/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SPANK plugin fabricfit.so (plugstack.conf). Adds --comm-pattern to sbatch, srun and
 * salloc, refuses a malformed value at submission, and in every task sets the NCCL and
 * FABRICFIT_* variables that ff_job_env computes for this node (docs/plugins.md). Thin
 * glue over fabricfit_api.h.
 *
 * plugstack.conf arguments: conf=PATH (fabricfit.conf; without it, built-in defaults),
 * last_good=PATH (optional: where slurmstepd keeps the last good copy of it),
 * snapshot_last_good=PATH (optional: where it keeps this node's last good copy of the
 * snapshot; default fabricfit.snapshot.last-good beside last_good=, none without it; empty:
 * none).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/spank.h>

#include "fabricfit_api.h"

SPANK_PLUGIN(fabricfit, 1);

static ff_pattern_t asked; /* --comm-pattern, parsed once: when asked_given */
static bool asked_given = false;
static ff_settings_t settings;
static ff_site_t *site = NULL; /* remote context only */

static int _comm_pattern_cb(int val, const char *optarg, int remote)
{
	char err[256] = "";

	asked_given = false;
	if (ff_pattern_parse(optarg, &asked, err, sizeof(err)) != FF_OK) {
		slurm_error("fabricfit: invalid --comm-pattern=%s: %s", optarg ? optarg : "", err);
		return -1;
	}
	asked_given = true;
	return 0;
}

static struct spank_option comm_pattern_option = {
    "comm-pattern",
    "PATTERN",
    "Collective pattern of the job, used to place it on the InfiniBand fabric: "
    "ring, tree, alltoall, none or tp=T,pp=P,dp=D (fabricfit)",
    1,
    0,
    _comm_pattern_cb,
};

/* The value of `key=` among the plugstack.conf arguments, or NULL. */
static const char *_arg(int ac, char **av, const char *key)
{
	size_t len = strlen(key);

	for (int i = 0; i < ac; i++) {
		if (!strncmp(av[i], key, len) && av[i][len] == '=')
			return av[i] + len + 1;
	}
	return NULL;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	char err[512] = "";

	for (int i = 0; i < ac; i++) {
		if (strncmp(av[i], "conf=", 5) && strncmp(av[i], "last_good=", 10) &&
		    strncmp(av[i], "snapshot_last_good=", 19)) {
			slurm_error(
			    "fabricfit: unknown plugstack.conf argument '%s' "
			    "(expected conf=PATH, last_good=PATH or snapshot_last_good=PATH)",
			    av[i]);
			return -1;
		}
	}
	/*
	 * Only slurmstepd needs the settings: users never see an admin's config error, it
	 * goes to the slurmd log. Same rule as slurmctld: a bad file means the last good
	 * copy (last_good=), else the defaults.
	 */
	if (spank_context() == S_CTX_REMOTE) {
		int rc = ff_site_load(_arg(ac, av, "conf"), _arg(ac, av, "last_good"), &site, err,
				      sizeof(err));
		if (rc != FF_OK)
			slurm_error("fabricfit: %s", err);
		ff_site_keep_snapshot(site, _arg(ac, av, "snapshot_last_good"));
		ff_site_settings(site, &settings);
		if (rc != FF_OK)
			slurm_error("fabricfit: using %s settings", settings.source);
		/* Here, as root: user_init runs as the job's user, who may not write the node's
		 * copy of the snapshot. An error is ff_job_env's to report, in user_init. */
		if (site)
			(void)ff_site_read_snapshot(site, err, sizeof(err));
	}

	/*
	 * slurmd's start (spank_slurmd_init; not reconfigure): keep the node's copy of the
	 * snapshot now, so that a node that has run no step yet still has one when the shared
	 * file goes bad. Nothing is held: slurmd would carry the fabric for its whole life.
	 */
	if (spank_context() == S_CTX_SLURMD) {
		ff_site_t *start = NULL;

		if (ff_site_load(_arg(ac, av, "conf"), _arg(ac, av, "last_good"), &start, err,
				 sizeof(err)) != FF_OK)
			slurm_error("fabricfit: %s", err);
		ff_site_keep_snapshot(start, _arg(ac, av, "snapshot_last_good"));
		if (start && ff_site_read_snapshot(start, err, sizeof(err)) != FF_OK)
			slurm_info("fabricfit: no good snapshot at slurmd start: %s", err);
		ff_site_free(start);
	}

	if (spank_option_register(sp, &comm_pattern_option) != ESPANK_SUCCESS) {
		slurm_error("fabricfit: cannot register --comm-pattern");
		return -1;
	}
	return 0;
}

struct job_env_lookup {
	spank_t sp;
	char buf[4096];
};

static const char *_job_getenv(void *ctx, const char *name)
{
	struct job_env_lookup *l = ctx;

	if (spank_getenv(l->sp, name, l->buf, sizeof(l->buf)) != ESPANK_SUCCESS)
		return NULL;
	return l->buf;
}

/* Sets each "NAME=VALUE" line of `lines` and unsets each "-NAME" line. */
static void _set_lines(spank_t sp, char *lines)
{
	char *save = NULL;

	for (char *line = strtok_r(lines, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');
		if (line[0] == '-') {
			spank_unsetenv(sp, line + 1);
			continue;
		}
		if (!eq)
			continue;
		*eq = '\0';
		if (spank_setenv(sp, line, eq + 1, 1) != ESPANK_SUCCESS)
			slurm_error("fabricfit: cannot set %s", line);
	}
}

/* Remote context (slurmstepd), once per step before the tasks start. */
int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	uint32_t nnodes = 0;
	ff_pattern_t effective;
	char value[FF_PATTERN_MAX] = "";
	char err[512] = "";
	char nodes[8192] = "", gpus[32] = "";
	static char env[16384], notes[2048], kept[2048];
	const char *node = getenv("SLURMD_NODENAME");
	struct job_env_lookup lookup = {.sp = sp};

	if (spank_get_item(sp, S_JOB_NNODES, &nnodes) != ESPANK_SUCCESS)
		nnodes = 0;
	if (ff_effective_pattern(asked_given ? &asked : NULL, nnodes, &settings, &effective, err,
				 sizeof(err)) != FF_OK) {
		slurm_error("fabricfit: %s", err);
		return 0;
	}
	ff_pattern_name(&effective, value, sizeof(value));
	if (spank_setenv(sp, "FABRICFIT_PATTERN", value, 1) != ESPANK_SUCCESS)
		slurm_error("fabricfit: cannot set FABRICFIT_PATTERN");

	if (spank_getenv(sp, "SLURM_JOB_NODELIST", nodes, sizeof(nodes)) != ESPANK_SUCCESS || !node)
		return 0;
	if (spank_getenv(sp, "SLURM_GPUS_ON_NODE", gpus, sizeof(gpus)) != ESPANK_SUCCESS)
		gpus[0] = '\0';
	if (ff_job_env(site, node, nodes, &effective, (unsigned)strtoul(gpus, NULL, 10),
		       _job_getenv, &lookup, env, sizeof(env), notes, sizeof(notes), kept,
		       sizeof(kept), err, sizeof(err)) != FF_OK) {
		/* The admin's problem (no snapshot, ...): the slurmd log, never the user. */
		slurm_info("fabricfit: no NCCL settings for this step: %s", err);
		return 0;
	}
	/* Every step until the snapshot is fixed: slurmctld tells the admin, once per file. */
	if (kept[0])
		slurm_debug("fabricfit: %s", kept);
	for (char *save = NULL, *n = strtok_r(notes, "\n", &save); n;
	     n = strtok_r(NULL, "\n", &save))
		slurm_info("fabricfit: %s", n);
	_set_lines(sp, env);
	return 0;
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	ff_site_free(site);
	site = NULL;
	return 0;
}
