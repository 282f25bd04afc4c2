// SPDX-License-Identifier: GPL-2.0-or-later
// The jobs table of `fabricfit report --html` (cli/html_report.hpp): for each of the last
// jobs, how Slurm names it, who chose its nodes (fabricfit, or Slurm's own selection and
// why), the communication pattern it was scored with, and what its placement costs.
#pragma once

#include <string>
#include <vector>

#include "cli/slurm_cluster.hpp"
#include "placement/locality_index.hpp"

namespace fabricfit::cli {

// Who placed the job, from its placement record: "fabricfit", "Slurm (REASON)" for a job
// fabricfit declined or fell back on (the record's reason, '_' read back as spaces), or
// "no placement record" (fabricfit not loaded, or the record not written yet).
[[nodiscard]] std::string placement_of(const SlurmJob& job);

// The pattern a job is scored with and shown by: its record's (what it asked for with
// --comm-pattern, or the site's default for it), else ring; `recorded` says which.
struct ShownPattern {
  CommPattern pattern;
  bool recorded = false;
};
[[nodiscard]] ShownPattern shown_pattern(const SlurmJob& job);

// A pattern in words for a caption: "a ring", "an all-to-all", "a tree", "pattern none (no
// inter-node traffic)", "tensor/pipeline/data parallel tp=2,pp=1,dp=4".
[[nodiscard]] std::string pattern_words(const CommPattern& pattern);

// The table (id "jobs") of the last `max_rows` jobs that hold or held nodes, newest start
// first (then by job, an array's tasks in order):
// job, state, placement, pattern, nodes, leaf groups, (on a fabric with NVLink domains) the
// job's domains, cross-spine share of its inter-node traffic for its pattern. The caption
// names the pattern when all rows share one.
[[nodiscard]] std::string jobs_table(const LocalityIndex& index, const std::vector<SlurmJob>& jobs,
                                     std::size_t max_rows = 20);

}  // namespace fabricfit::cli
