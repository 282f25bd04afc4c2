// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm topology/block's node selection (see block_policy.hpp). Names follow Slurm's where
// that helps a reader hold the two side by side: a "bblock" is a base block (one NVLink
// domain), a "block" the aligned run of bblocks a job's level allows, an "llblock" the run
// of the allowed level below the job's own.
#include "placement/selection/block_policy.hpp"

#include <algorithm>
#include <functional>
#include <span>

#include <fmt/format.h>

#include "placement/selection/baselines.hpp"

namespace fabricfit {
namespace {

int ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

// Smallest L with 2^L >= n (n >= 1): Slurm's ceil(log2(n)).
int ceil_log2(int n) {
  int level = 0;
  while ((1L << level) < n) ++level;
  return level;
}

// Lowest allowed level at or above `from`, -1 when none (bit_ffs_from_bit).
int lowest_from(const std::bitset<BlockPolicy::kMaxLevels>& levels, int from) {
  for (int l = std::max(0, from); l < BlockPolicy::kMaxLevels; ++l) {
    if (levels[l]) return l;
  }
  return -1;
}

// Highest allowed level at or below `from`, -1 when none (bit_fls_from_bit).
int highest_to(const std::bitset<BlockPolicy::kMaxLevels>& levels, int from) {
  for (int l = std::min(from, BlockPolicy::kMaxLevels - 1); l >= 0; --l) {
    if (levels[l]) return l;
  }
  return -1;
}

// One pass of eval_nodes_block for `rem` nodes over the hosts each bblock still has
// eligible (in host order). Returns the hosts taken, or nothing when the pass fails.
class BlockPass {
 public:
  BlockPass(const std::vector<std::vector<int>>& eligible, int base,
            const std::bitset<BlockPolicy::kMaxLevels>& levels, int rem)
      : eligible_(eligible), bblocks_(static_cast<int>(eligible.size())), rem_(rem) {
    const int needed = ceil_log2(ceil_div(rem, base));
    ll_level_ = needed > 0 ? std::max(0, highest_to(levels, needed - 1)) : 0;
    const int level = lowest_from(levels, needed);
    // No allowed level that high: the whole fabric is one block (_get_block_level < 0).
    per_block_ = level >= 0 ? 1 << level : bblocks_;
    blocks_ = ceil_div(bblocks_, per_block_);
    per_ll_ = 1 << ll_level_;
    max_ll_ = ceil_div(rem, per_ll_ * base);
    // Where a block is exactly max_ll_ llblocks, the llblock limit cannot bind and Slurm
    // skips it altogether (nodes_on_llblock stays NULL).
    use_ll_ = per_block_ != per_ll_ * max_ll_;
  }

  std::optional<std::vector<int>> run() {
    const int block = choose_block();
    if (block < 0) return std::nullopt;
    return fill_block(block);
  }

 private:
  [[nodiscard]] int nodes_on(int bblock) const { return static_cast<int>(eligible_[bblock].size()); }

  // The tightest block that can hold the job, ties to the later one.
  [[nodiscard]] int choose_block() const {
    const int ll_count = ceil_div(bblocks_, per_ll_);
    std::vector<int> on_block(blocks_, 0), on_ll(ll_count, 0);
    for (int i = 0; i < bblocks_; ++i) {
      on_block[i / per_block_] += nodes_on(i);
      on_ll[i / per_ll_] += nodes_on(i);
    }
    int best = -1;
    for (int k = 0; k < blocks_; ++k) {
      int avail = on_block[k];
      if (use_ll_) {
        // What its max_ll_ fullest llblocks hold. Slurm counts per_block_ / per_ll_
        // llblocks per block, rounding down: with the whole fabric as one block whose
        // bblock count is not a multiple of per_ll_, the last llblock is never counted.
        const int offset = k * (per_block_ / per_ll_);
        const int count = std::min(per_block_ / per_ll_, ll_count - offset);
        std::vector<int> sizes(on_ll.begin() + offset, on_ll.begin() + offset + count);
        std::sort(sizes.begin(), sizes.end(), std::greater<>());
        avail = 0;
        for (int j = 0; j < std::min(max_ll_, count); ++j) avail += sizes[j];
      }
      if (avail < rem_) continue;
      if (best < 0 || on_block[k] <= on_block[best]) best = k;
    }
    return best;
  }

  std::optional<std::vector<int>> fill_block(int block) {
    first_ = block * per_block_;
    last_ = std::min(bblocks_, first_ + per_block_);
    on_ll_.assign(ceil_div(bblocks_, per_ll_), 0);
    for (int i = first_; i < last_; ++i) on_ll_[i / per_ll_] += nodes_on(i);
    required_.assign(bblocks_, 0);
    std::vector<int> taken;
    int prev = rem_ + 1;
    while (prev != rem_) {  // stops when a pass takes nothing (Slurm's "Stalled")
      prev = rem_;
      Best best;
      for (int i = first_; i < last_; ++i) {
        if (!required_[i]) consider(i, best);
      }
      if (best.bblock < 0) break;
      if (max_ll_ <= 0 && !best.same_ll) break;
      required_[best.bblock] = 1;
      for (int h : eligible_[best.bblock]) {
        taken.push_back(h);
        if (--rem_ == 0) return taken;
      }
      if (!best.same_ll) --max_ll_;
    }
    return std::nullopt;
  }

  struct Best {
    int bblock = -1;
    bool fit = false;
    bool same_ll = true;  // Slurm's initial value: without llblocks it never changes
  };

  // _choose_best_bblock: whether bblock i beats the best so far.
  void consider(int i, Best& best) const {
    const bool fit = nodes_on(i) >= rem_;
    const auto take = [&](bool same) { best = Best{i, fit, same}; };
    if (use_ll_ && !(best.bblock >= 0 && best.bblock / per_ll_ == i / per_ll_)) {
      // Fewest llblocks: one already in use first.
      bool same = false;
      const int from = i / per_ll_ * per_ll_;
      for (int j = from; j < std::min(bblocks_, from + per_ll_) && !same; ++j) same = required_[j] != 0;
      if (best.bblock < 0 || (same && !best.same_ll)) return take(same);
      if (!same && best.same_ll) return;
      const int mine = on_ll_[i / per_ll_], theirs = on_ll_[best.bblock / per_ll_];
      const bool holds = mine >= rem_, best_holds = theirs >= rem_;
      if (holds != best_holds) {
        if (holds) take(same);
        return;
      }
      // Both hold the rest: the smaller; neither: the larger. Equal: by bblock below.
      if (mine != theirs) {
        if ((holds && mine < theirs) || (!holds && mine > theirs)) take(same);
        return;
      }
    }
    // Fewest bblocks: one that holds the rest, the tightest such (ties to the later);
    // else the fullest (ties to the later).
    const int n = nodes_on(i);
    if (best.bblock < 0 || (fit && !best.fit) || (!fit && !best.fit && n >= nodes_on(best.bblock)) ||
        (fit && n <= nodes_on(best.bblock))) {
      best.bblock = i;
      best.fit = fit;
    }
  }

  const std::vector<std::vector<int>>& eligible_;
  int bblocks_;
  int rem_;
  int ll_level_ = 0;
  int per_block_ = 1;
  int blocks_ = 1;
  int per_ll_ = 1;
  int max_ll_ = 1;
  bool use_ll_ = false;
  int first_ = 0;
  int last_ = 0;
  std::vector<int> on_ll_;
  std::vector<char> required_;
};

const char* release_name(SlurmRelease r) {
  switch (r) {
    case SlurmRelease::v24_11: return "24.11";
    case SlurmRelease::v25_11: return "25.11";
    case SlurmRelease::v26_05: return "26.05";
  }
  return "?";
}

}  // namespace

BlockPolicy::BlockPolicy(SlurmRelease release, std::vector<int> block_sizes)
    : release_(release), block_sizes_(std::move(block_sizes)) {
  if (block_sizes_.empty()) {
    // block_record.c: bit_nset(block_levels, 0, 4), whose end bit is inclusive.
    for (int l = 0; l <= 4; ++l) levels_.set(l);
    return;
  }
  const int base = block_sizes_.front();
  for (int size : block_sizes_) {
    const int ratio = base > 0 && size > 0 && size % base == 0 ? size / base : 0;
    const bool power = ratio > 0 && (ratio & (ratio - 1)) == 0;
    const int level = power ? ceil_log2(ratio) : kMaxLevels;
    if (level >= kMaxLevels) {
      throw PolicyError(fmt::format(
          "invalid BlockSizes value {}: each must be the first ({}) times a power of two up to 2^{}", size,
          base, kMaxLevels - 1));
    }
    levels_.set(level);
  }
}

std::string BlockPolicy::name() const {
  return release_ == SlurmRelease::v26_05 ? "block" : fmt::format("block-{}", release_name(release_));
}

std::optional<Allocation> BlockPolicy::place(const PlacementContext& ctx, const JobRequest& request) {
  const LocalityIndex& index = ctx.index;
  const int domains = index.domain_count();
  if (domains == 0)
    throw RequestError("policy block needs NVLink domains (Slurm's blocks); the fabric has none");
  const int base = block_sizes_.empty() ? static_cast<int>(index.hosts_of_domain(0).size()) : block_sizes_[0];
  if (release_ == SlurmRelease::v24_11) {
    for (int d = 0; d < domains; ++d) {
      if (static_cast<int>(index.hosts_of_domain(d).size()) < base) {
        throw RequestError(fmt::format("Slurm 24.11 refuses block {}: fewer hosts than the base block ({})",
                                       index.domain_name(d), base));
      }
    }
  }

  // Slurm sizes the job at its minimum node count: the last (fewest-node) shape for
  // GPUs per node, the first for GPUs in total.
  const auto shapes = job_shapes(request, std::max(1, ctx.gpus.max_gpus_per_host()));
  const JobShape& shape = request.total_gpus > 0 ? shapes.front() : shapes.back();
  int segment = request.segment_nodes;
  if (segment < 0) throw RequestError(fmt::format("--segment={} is not a node count", segment));
  if (release_ == SlurmRelease::v24_11 && segment > base) {
    throw RequestError(
        fmt::format("Slurm 24.11 refuses --segment={}: larger than the base block ({})", segment, base));
  }
  if (release_ == SlurmRelease::v26_05 && segment > shape.nodes) segment = 0;  // ignored
  if (segment > 0 && shape.nodes % segment != 0) {
    throw RequestError(
        fmt::format("--segment={} does not divide the job's node count ({})", segment, shape.nodes));
  }
  const int piece = segment > 0 ? segment : shape.nodes;

  std::vector<char> taken(index.host_count(), 0);
  std::vector<int> chosen;
  std::vector<std::vector<int>> eligible(domains);
  for (int done = 0; done < shape.nodes; done += piece) {
    for (int d = 0; d < domains; ++d) {
      eligible[d].clear();
      for (int h : index.hosts_of_domain(d)) {
        if (!taken[h] && host_fits(ctx, h, shape)) eligible[d].push_back(h);
      }
    }
    auto got = BlockPass(eligible, base, levels_, piece).run();
    if (!got) return std::nullopt;
    for (int h : *got) taken[h] = 1;
    chosen.insert(chosen.end(), got->begin(), got->end());
  }

  // Slurm's allocation is a node bitmap: ranks in node order.
  return in_node_order(ctx, shape, std::move(chosen));
}

}  // namespace fabricfit
