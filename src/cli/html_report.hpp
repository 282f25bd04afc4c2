// SPDX-License-Identifier: GPL-2.0-or-later
// `fabricfit report --html`: one self-contained page (inline CSS and SVG, no scripts, no
// external files) with the fabric drawn by leaf group, every host by name and coloured by
// what is free, the degraded links marked, the fragmentation now and over time, and the last
// jobs' placements (cli/report_jobs.hpp), laid out to fill a wide window.
#pragma once

#include <string>
#include <vector>

#include "cli/health_marks.hpp"
#include "cli/slurm_cluster.hpp"
#include "placement/gpu_state.hpp"
#include "placement/locality_index.hpp"
#include "topology/fabric.hpp"

namespace fabricfit::cli {

// hosts: free (every GPU free), busy (none free), stranded (some free, some busy: GPUs the
// big jobs cannot use), absent (not a GPU node in Slurm). `jobs` may be empty. The page is
// titled by `cluster` (Slurm's ClusterName; "" for none), which is what an admin with several
// clusters tells the pages apart by; the fabric's origin (how it was discovered, the same on
// every cluster) goes in the summary under it. With `health` (a health file), hosts whose
// HCA link and leaf groups whose uplinks are not healthy are outlined and say their state.
// On a fabric with NVLink domains each host names its domain on the domain's colour, a table
// (section "nvlink-domains") gives each domain's hosts, leaf groups, free GPUs and wholly free
// hosts with the domain- and half-domain-sized jobs that still fit, and the jobs table adds
// each job's domains.
[[nodiscard]] std::string html_report(const Fabric& fabric, const LocalityIndex& index, const GpuState& gpus,
                                      const std::vector<SlurmJob>& jobs, const std::string& cluster,
                                      const HealthFile* health = nullptr);

}  // namespace fabricfit::cli
