// SPDX-License-Identifier: GPL-2.0-or-later
// The other running jobs whose traffic shares the uplinks with a job (`fabricfit slowdown
// --running`): each with its hosts, pattern and communication share, as a JSON array in
// one file or one JSON object per file in a directory (a registry that job emulators
// write at start, by rename, and remove at their end).
#pragma once

#include <string>
#include <vector>

namespace fabricfit::cli {

struct RunningJob {
  std::string id;
  std::string nodes;  // Slurm hostlist, in rank order
  int gpus_per_node = 8;
  std::string pattern = "ring";
  double comm_share = 0;
};

// Reads `path`: a file holding a JSON array of objects {"job", "nodes", "gpus_per_node",
// "pattern", "comm_share"} (only "nodes" required), or a directory whose *.json files
// each hold one such object (a file that vanishes while it is read has ended: skipped).
// Throws std::invalid_argument naming the file and what is wrong.
[[nodiscard]] std::vector<RunningJob> read_running_jobs(const std::string& path);

}  // namespace fabricfit::cli
