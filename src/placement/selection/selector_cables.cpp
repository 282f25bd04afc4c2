// SPDX-License-Identifier: GPL-2.0-or-later
// Static routing pins every flow to the uplink cable its destination host selects (the
// host modulo the leaf group's cables, as destination-based forwarding tables deal a
// leaf's destinations over its uplinks). Which of a leaf group's interchangeable free
// hosts a split job takes therefore decides which cables its flows share with the
// running jobs' and with each other: in the lab stream most of a split job's slowdown
// was other jobs' flows on the same cable, not a bundle too small for it
// (docs/placement.md, Selection, "Beside running traffic").
#include <algorithm>
#include <vector>

#include "placement/selection/selector_run.hpp"

namespace fabricfit::selection {
namespace {

// Candidate host sets tried per decision at most: a split job of 4 hosts in groups of 8
// needs up to 28 per round; a wide job in groups of 32 stops here, keeping what it found.
constexpr int kMaxTrials = 256;
constexpr int kMaxRounds = 3;

}  // namespace

double Run::avoid_busy_cables(const JobShape& shape, const CommPattern& pattern, Allocation& a) const {
  const RunningTraffic* running = ctx_.running;
  const int n = static_cast<int>(a.hosts.size());
  if (running == nullptr || n < 2) return 1.0;
  const LocalityIndex& index = ctx_.index;
  const auto leaf = [&](int h) { return index.leaf_group_of(h); };
  if (std::ranges::all_of(a.hosts, [&](int h) { return leaf(h) == leaf(a.hosts.front()); })) return 1.0;

  const TrafficMatrix traffic = TrafficMatrix::build(pattern, a.gpus);
  double best = running->share_if_added(traffic, a.hosts);
  if (best >= 1.0 || running->bundles.routing() != UplinkRouting::Static) return best;
  // Hosts are reordered inside a group below; with as many GPUs on every slot, each host
  // keeps the count it had.
  if (std::ranges::any_of(a.gpus, [&](int g) { return g != a.gpus.front(); })) return best;

  const bool cables = std::ranges::any_of(a.hosts, [&](int h) {
    for (int r = 0; r < index.rails(); ++r) {
      if (running->bundles.cables(leaf(h), r) > 0) return true;
    }
    return false;
  });
  if (!cables) return best;

  std::vector<int> hosts = a.hosts;
  int trials = 0;
  // Every interchangeable host is tried, even one on the same cable as the host it
  // replaces: the run is sorted again, and which host comes first in a group (where a
  // ring's flow from the group before arrives) may change with it.
  std::vector<int> trial;
  for (int round = 0; round < kMaxRounds && best < 1.0 && trials < kMaxTrials; ++round) {
    bool improved = false;
    for (int i = 0; i < n && best < 1.0 && trials < kMaxTrials; ++i) {
      const int h = hosts[i];
      const int l = leaf(h);
      int first = i, last = i + 1;  // the slot's leaf group's run of slots (realise: contiguous)
      while (first > 0 && leaf(hosts[first - 1]) == l) --first;
      while (last < n && leaf(hosts[last]) == l) ++last;
      std::vector<int> best_set;
      for (int c : index.hosts_of(l)) {
        if (trials >= kMaxTrials) break;
        if (!eligible(c, shape) || ctx_.gpus.free[c] != ctx_.gpus.free[h] ||
            ctx_.gpus.total[c] != ctx_.gpus.total[h] || std::ranges::find(hosts, c) != hosts.end())
          continue;
        trial = hosts;
        trial[i] = c;
        std::sort(trial.begin() + first, trial.begin() + last);  // Slurm ranks a group's hosts ascending
        ++trials;
        const double r = running->share_if_added(traffic, trial);
        if (r > best + 1e-9) {
          best = r;
          best_set = trial;
        }
      }
      if (!best_set.empty()) {
        hosts = std::move(best_set);
        improved = true;
      }
    }
    if (!improved) break;
  }
  a.hosts = std::move(hosts);
  return best;
}

}  // namespace fabricfit::selection
