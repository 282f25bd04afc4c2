// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm's block topology (topology/block) as input and output: the BlockName lines of a
// topology.conf(5), each a block of nodes (on an NVL72 site, one NVLink domain), read
// into Fabric::nvlink_domains by `fabricfit discover --blocks`, and written by `fabricfit
// generate --blocks-output` for a lab's Slurm. docs/fabric-model.md, "NVLink domains".
//   # comment
//   BlockName=nvl0 Nodes=gpu[001-018]
//   BlockName=nvl1 Nodes=gpu[019-036]
//   BlockSizes=18,36
// Keys are case-insensitive, as Slurm reads them; a trailing '\' continues a line.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "topology/fabric.hpp"

namespace fabricfit {

// what() is "FILE:LINE: reason" (LINE from 1; the first line of a continued one), or
// "FILE: reason" for what no single line holds (an unreadable file, no block at all).
class SlurmBlocksError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SlurmBlock {
  std::string name;
  std::vector<std::string> nodes;  // Slurm node names, as the hostlist expands (no duplicates)
  int line = 0;                    // where the block was read (0: not read from a file)
  friend bool operator==(const SlurmBlock&, const SlurmBlock&) = default;
};

struct SlurmBlocks {
  std::string origin;  // the file, for errors
  std::vector<SlurmBlock> blocks;
  std::vector<int> block_sizes;  // BlockSizes=, when given (kept, not used by fabricfit)
  std::string topology;          // the topology.yaml topology read (empty: a topology.conf)
};

// Reads the text of a block topology.conf. Refuses, naming the line: a line that is not
// Key=Value words, a key other than BlockName (with Nodes) and BlockSizes (SwitchName
// lines are topology/tree's), a block without a name or without Nodes=, a bad hostlist,
// a block named twice, a node in two blocks or twice in one; and a file with no block.
[[nodiscard]] SlurmBlocks parse_slurm_blocks(std::string_view text, const std::string& origin);

// Reads and parses a file. Throws SlurmBlocksError. (A file that may be a topology.yaml:
// load_slurm_block_file, topology/readers/slurm_topology_yaml.hpp.)
[[nodiscard]] SlurmBlocks load_slurm_blocks(const std::filesystem::path& path);

// The whole text of a file of blocks (either format); throws SlurmBlocksError "FILE: cannot
// read: why".
[[nodiscard]] std::string read_slurm_blocks_file(const std::filesystem::path& path);

// The blocks as NVLink domains of `fabric`: node names are host names (the names the
// fabric's hosts got from their HCAs or the node-name-map, which are Slurm's node names).
// Throws SlurmBlocksError "FILE:LINE: ..." for a node that is not a host of the fabric.
[[nodiscard]] std::vector<NvlinkDomain> domains_of_blocks(const SlurmBlocks& blocks, const Fabric& fabric);

// BlockName lines for `blocks`, nodes as compressed hostlists ("gpu[001-018]"), after a
// comment line naming `origin` when it is not empty. Names are not checked here.
[[nodiscard]] std::string slurm_block_lines(const std::vector<SlurmBlock>& blocks, const std::string& origin);

// The domains of `fabric` as blocks (host names as node names).
[[nodiscard]] std::vector<SlurmBlock> blocks_of_domains(const Fabric& fabric);

}  // namespace fabricfit
