// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm's topology/block node selection as a replay baseline ("block": Slurm 26.05,
// "block-24.11"), written from a reading of Slurm's source (eval_nodes_block.c,
// block_record.c, common_topo.c, eval_nodes.c), not a copy of it. A base block is an
// NVLink domain (a BlockName), in the fabric's order; docs/placement.md, "block".
//
// As modelled:
//  - base block size: the first BlockSizes entry, else the first domain's host count.
//    Allowed levels: log2(size / base) of each BlockSizes entry (level 0 always, the first
//    entry being the base), 0-4 (1, 2, 4, 8, 16 base blocks) without BlockSizes.
//  - a job (or one segment) of N nodes needs level ceil(log2(ceil(N / base))), raised to
//    the lowest allowed level at or above it. Its candidate blocks are aligned runs of
//    2^level base blocks; with no allowed level that high, the whole fabric is one block.
//    A job that needs more base blocks than the allowed level just below its own may take
//    only ceil(N / that level's nodes) such lower-level blocks ("llblocks").
//  - the block: the one with the fewest eligible nodes among those that can hold the job
//    (within that llblock limit), ties to the later block. Inside it base blocks are
//    taken one at a time: first one in an llblock already used, then the llblock that
//    holds the rest with the fewest nodes (else the fullest), then the base block that
//    holds the rest with the fewest nodes, ties to the later (else the fullest, ties to
//    the later); its eligible hosts are taken in host order.
//  - --segment=S: the job is S-node segments placed one after another, each by the
//    rules above on the hosts still free; S <= base puts each in one base block.
//  - -N MIN-MAX: placed at MIN. (Slurm's first pass asks a block for only 2*MIN-MAX nodes
//    and may pick one too small, which common_topo_choose_nodes' retry then empties; the
//    model goes to where that ends: the tightest block that holds MIN.) GPUs in total
//    (--gpus without -N): the fewest nodes that hold them.
//  - hosts in no domain are never used.
//  - refused, RequestError from place(): a fabric without domains (Slurm will not start
//    without blocks); a segment that does not divide the job; in 24.11 a segment larger
//    than the base block, and a domain smaller than the base block (a configuration
//    error there); in 24.11 and 25.11 a segment larger than the job (26.05 ignores it).
//    BlockSizes that are not power-of-two multiples of the first: PolicyError.
// Left out: node weights, CPU counts (a block's CPU test), required nodes (-w),
// --consolidate-segments / --spread-segments, hierarchical resources, and the retry loop
// in common_topo_choose_nodes that removes nodes and tries again after a failed pass.
#pragma once

#include <bitset>
#include <vector>

#include "placement/selection/placement_policy.hpp"

namespace fabricfit {

enum class SlurmRelease { v24_11, v25_11, v26_05 };

class BlockPolicy final : public PlacementPolicy {
 public:
  // block_sizes: BlockSizes in nodes; empty for Slurm's default. Throws PolicyError.
  explicit BlockPolicy(SlurmRelease release = SlurmRelease::v26_05, std::vector<int> block_sizes = {});
  [[nodiscard]] std::string name() const override;
  [[nodiscard]] std::optional<Allocation> place(const PlacementContext& ctx,
                                                const JobRequest& request) override;

  static constexpr int kMaxLevels = 16;  // Slurm's MAX_BLOCK_LEVELS

 private:
  SlurmRelease release_;
  std::vector<int> block_sizes_;
  std::bitset<kMaxLevels> levels_;
};

}  // namespace fabricfit
