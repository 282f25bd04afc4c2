/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SPANK plugin fabricfit.so (plugstack.conf). Adds --comm-pattern to sbatch, srun and
 * salloc, refuses a malformed value at submission, and in every task sets
 * FABRICFIT_PATTERN. Thin glue over fabricfit_api.h.
 *
 * plugstack.conf arguments: conf=PATH (fabricfit.conf; without it, built-in defaults).
 */

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <slurm/spank.h>

#include "fabricfit_api.h"

SPANK_PLUGIN(fabricfit, 1);

static char pattern[FF_PATTERN_MAX] = ""; /* canonical, empty if not given */
static ff_settings_t settings;

static int _comm_pattern_cb(int val, const char *optarg, int remote)
{
	char err[256] = "";

	if (ff_pattern_check(optarg, pattern, sizeof(pattern), err, sizeof(err)) != FF_OK) {
		pattern[0] = '\0';
		slurm_error("fabricfit: invalid --comm-pattern=%s: %s", optarg ? optarg : "", err);
		return -1;
	}
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

static const char *_conf_path(int ac, char **av)
{
	for (int i = 0; i < ac; i++) {
		if (!strncmp(av[i], "conf=", 5))
			return av[i] + 5;
	}
	return NULL;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	const char *conf = _conf_path(ac, av);
	char err[512] = "";

	for (int i = 0; i < ac; i++) {
		if (strncmp(av[i], "conf=", 5)) {
			slurm_error(
			    "fabricfit: unknown plugstack.conf argument '%s' (expected conf=PATH)",
			    av[i]);
			return -1;
		}
	}
	/* Steps are short-lived processes: no last-good copy, a bad file means defaults. */
	if (ff_settings_load(conf, NULL, &settings, err, sizeof(err)) != FF_OK)
		slurm_error("fabricfit: %s; using built-in defaults", err);

	if (spank_option_register(sp, &comm_pattern_option) != ESPANK_SUCCESS) {
		slurm_error("fabricfit: cannot register --comm-pattern");
		return -1;
	}
	return 0;
}

/* Remote context (slurmstepd), once per step before the tasks start. */
int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	uint32_t nnodes = 0;
	char value[FF_PATTERN_MAX] = "";
	char err[256] = "";

	if (spank_get_item(sp, S_JOB_NNODES, &nnodes) != ESPANK_SUCCESS)
		nnodes = 0;
	if (ff_effective_pattern(pattern, nnodes, &settings, value, sizeof(value), err,
				 sizeof(err)) != FF_OK) {
		slurm_error("fabricfit: %s", err);
		return 0;
	}
	if (spank_setenv(sp, "FABRICFIT_PATTERN", value, 1) != ESPANK_SUCCESS)
		slurm_error("fabricfit: cannot set FABRICFIT_PATTERN");
	return 0;
}
