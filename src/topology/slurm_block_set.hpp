// SPDX-License-Identifier: GPL-2.0-or-later
// The blocks of one Slurm block topology as its readers (topology.conf: slurm_blocks.cpp,
// topology.yaml: readers/slurm_topology_yaml.cpp) collect them, so that both refuse the
// same things in the same words: a block named twice, a bad hostlist, a node in two blocks
// or twice in one. Only the spelling of the nodes' key differs ("Nodes=", "nodes: ").
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topology/slurm_blocks.hpp"

namespace fabricfit {

class SlurmBlockSet {
 public:
  explicit SlurmBlockSet(const std::string& origin) { out_.origin = origin; }

  // Starts block `name`, read at `line`. Refuses a name taken by an earlier block, and one
  // with a space, '#', '\' or a control character (as a node name below).
  void open(const std::string& name, int line);

  // Adds the nodes of `hostlist` to the open block; `key` is how the file writes their key
  // ("Nodes=", "nodes: "), for errors, `line` where they were read. Refuses a bad hostlist,
  // a node already in a block (this one or another), and more than 2^18 nodes in all.
  void add_nodes(std::string_view hostlist, std::string_view key, int line);

  // Ends the open block.
  void close();

  // The blocks read, in file order (block_sizes are the reader's to fill in).
  [[nodiscard]] SlurmBlocks take() { return std::move(out_); }

  // Throws SlurmBlocksError "ORIGIN:LINE: why".
  [[noreturn]] void fail(int line, const std::string& why) const;

 private:
  SlurmBlocks out_;
  SlurmBlock block_;
  std::map<std::string, int, std::less<>> block_line_;          // block -> its line
  std::map<std::string, std::string, std::less<>> node_block_;  // node -> its block
};

// A block size as both files write one: a positive decimal number and nothing else.
[[nodiscard]] std::optional<int> parse_block_size(std::string_view text);

}  // namespace fabricfit
