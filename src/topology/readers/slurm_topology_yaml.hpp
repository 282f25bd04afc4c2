// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm's topology.yaml(5) (Slurm 25.05+): a list of named topologies, each with one
// plugin's section (block, flat, ring, torus3d, tree); the block section of one of them is
// read into SlurmBlocks, as a topology.conf's BlockName lines are (slurm_blocks.hpp), for
// `fabricfit discover --blocks`. docs/fabric-model.md, "NVLink domains".
//   - topology: nvl
//     cluster_default: true
//     block:
//       block_sizes: [18, 36]
//       blocks:
//         - block: nvl0
//           nodes: gpu[001-018]
// In its own library (libfabricfit_readers) with yaml-cpp, so that the plugins, which
// read no topology.yaml, do not load yaml-cpp into slurmctld.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "topology/slurm_blocks.hpp"

namespace fabricfit {

// Reads the block section of one topology of a topology.yaml: the one named `topology`
// when given; else the cluster default (the first with cluster_default: true, as Slurm
// takes it) when it has a block section; else the only topology with one. Refuses with
// SlurmBlocksError "FILE:LINE: reason" (yaml-cpp's line for a syntax error) or "FILE:
// reason" (no such topology, none or several with blocks and no default among them): a
// YAML error or a second document; a topology without a name, named twice, or with a
// block section that is not a mapping; in a block section, a key other than block_sizes and
// blocks, no blocks, a block size that is not a positive number; in a block, a key other
// than block and nodes, no name, no or empty nodes, nodes that are not one hostlist, a bad
// hostlist; a block named twice, a node in two blocks or twice in one; a key twice in one
// mapping. Every block section of the file is checked, not only the one taken. Keys of a
// topology other than topology, cluster_default and block are not read (other plugins'
// sections, and those of later releases).
[[nodiscard]] SlurmBlocks parse_slurm_topology_yaml(std::string_view text, const std::string& origin,
                                                    const std::string& topology = {});

// Whether a file of blocks is a topology.yaml: its name ends in .yaml or .yml, or its first
// line that is neither blank nor a comment starts a YAML document ("---", "%YAML") or a
// topology ("- topology:", "topology:"), which no topology.conf line can.
[[nodiscard]] bool is_topology_yaml(const std::filesystem::path& path, std::string_view text);

// Reads a topology.yaml (is_topology_yaml; `topology` as above) or else a topology.conf
// (parse_slurm_blocks, as load_slurm_blocks does). Throws SlurmBlocksError, also for a
// `topology` named with a topology.conf.
[[nodiscard]] SlurmBlocks load_slurm_block_file(const std::filesystem::path& path,
                                                const std::string& topology = {});

}  // namespace fabricfit
