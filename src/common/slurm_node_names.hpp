// SPDX-License-Identifier: GPL-2.0-or-later
// The node names Slurm knows, from slurm.conf-style NodeName= lines or a hostlist
// expression: what `--slurm-nodes` takes to say exactly which hosts are compute hosts.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fabricfit {

// A NodeName= line that cannot be read: the message names file, line and reason.
class SlurmNodesError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Every NodeName= value in `text` expanded (NodeName=gpu[001-032] Gres=gpu:8 ...),
// NodeName=DEFAULT skipped; keys are case-insensitive as in slurm.conf, '#' starts a
// comment, a trailing '\' continues the line. Names in the order written, no duplicates.
[[nodiscard]] std::vector<std::string> parse_slurm_node_lines(std::string_view text,
                                                              const std::string& source);

// `spec` names a readable file: its NodeName= lines; else it is a hostlist expression
// ("gpu[001-064],login1"). Throws SlurmNodesError.
[[nodiscard]] std::vector<std::string> load_slurm_nodes(const std::string& spec);

}  // namespace fabricfit
