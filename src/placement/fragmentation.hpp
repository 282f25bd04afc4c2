// SPDX-License-Identifier: GPL-2.0-or-later
// The fragmentation metric: the share of the free GPUs that the jobs the workload brings
// could not use. Multi-node jobs are counted as placed inside one leaf group (the
// placement that keeps their traffic off the spines), so whole free hosts stranded in a
// leaf group that cannot hold another such job count as unusable; single-node jobs need
// their GPUs on one host, so an 8-GPU job cannot use a host with 7 free. The definition,
// with worked examples, is in docs/placement.md.
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "placement/gpu_state.hpp"
#include "placement/locality_index.hpp"

namespace fabricfit {

// A job size the workload brings, and its weight in the mix.
struct JobClass {
  int nodes = 1;
  int gpus_per_node = 1;
  double weight = 1;
  friend bool operator==(const JobClass&, const JobClass&) = default;
};

class MixError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The job sizes of a workload with weights summing to 1.
class WorkloadMix {
 public:
  WorkloadMix() = default;
  // Merges equal sizes and normalises the weights. Throws MixError for a size below 1
  // or a negative weight, or when nothing has weight.
  explicit WorkloadMix(const std::vector<JobClass>& classes);
  // "1:0.4,8:0.3,2x8:0.2,4x8:0.1": GPUS or NODESxGPUS_PER_NODE, then an optional :WEIGHT.
  [[nodiscard]] static WorkloadMix parse(std::string_view text);
  // Used when nothing better is known, for hosts of `gpus_per_host` GPUs: one-host jobs of
  // 1, 2, 4, ... GPUs up to a whole host, and 2, 4 and 8 whole hosts, equally weighted
  // (for 8-GPU hosts: 1, 2, 4, 8, 2x8, 4x8, 8x8). A mix written for 8-GPU hosts would call
  // every free GPU of a 4-GPU host unusable by its 8-GPU classes.
  [[nodiscard]] static WorkloadMix standard(int gpus_per_host = 8);
  [[nodiscard]] const std::vector<JobClass>& classes() const { return classes_; }
  [[nodiscard]] bool empty() const { return classes_.empty(); }
  [[nodiscard]] std::string to_string() const;

 private:
  std::vector<JobClass> classes_;
};

// The metric for one mix on hosts of up to max_host_gpus GPUs, fast enough to evaluate
// inside a placement decision. A leaf group is described by how many of its hosts have
// each number of free GPUs (hist[f], f = 0..max_host_gpus) or by the running counts
// at_least[f] = hosts with f or more free.
class FragModel {
 public:
  FragModel(const WorkloadMix& mix, int max_host_gpus, int largest_leaf_group);
  [[nodiscard]] int max_gpus() const { return max_gpus_; }
  [[nodiscard]] const WorkloadMix& mix() const { return mix_; }
  // Unusable free GPUs of one leaf group, weighted over the mix.
  [[nodiscard]] double unusable(std::span<const int> hist) const;
  // Change in unusable() when one host of the leaf group goes from `from` to `to` free GPUs.
  [[nodiscard]] double move_delta(std::span<const int> at_least, int from, int to) const;

 private:
  struct MultiNode {
    int nodes;
    int gpus;
    double weight;
    bool fits_one_leaf_group;
  };
  [[nodiscard]] double usable(const MultiNode& c, int eligible) const;

  WorkloadMix mix_;
  int max_gpus_ = 0;
  std::vector<double> single_unusable_;  // per host with f free GPUs, over single-node classes
  double single_weight_ = 0;
  std::vector<MultiNode> multi_;
};

struct LeafGroupFragmentation {
  int hosts = 0;
  int free_gpus = 0;
  int whole_free_hosts = 0;
  double unusable = 0;  // free GPUs the mix cannot use, weighted
  double frag = 0;      // unusable / free_gpus (0 when nothing is free)
};

struct FragmentationReport {
  std::vector<LeafGroupFragmentation> leaf_groups;  // indexed like LocalityIndex leaf groups
  long free_gpus = 0;
  long total_gpus = 0;
  double unusable = 0;
  double frag = 0;  // cluster-wide: sum of unusable / sum of free
};

// Hosts in no leaf group are left out (they are never placed on).
[[nodiscard]] FragmentationReport measure_fragmentation(const LocalityIndex& index, const GpuState& gpus,
                                                        const FragModel& model);

// The change in measure_fragmentation(...).unusable when hosts[i] give up gpus[i] GPUs each
// (free counts floored at 0). The measure is a sum over leaf groups, so only the groups the
// hosts are in are counted: a placement record costs its allocation's groups, not the cluster.
[[nodiscard]] double unusable_delta(const LocalityIndex& index, const GpuState& before,
                                    const FragModel& model, std::span<const int> hosts,
                                    std::span<const int> gpus);

}  // namespace fabricfit
