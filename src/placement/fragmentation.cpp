// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/fragmentation.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <climits>
#include <map>

namespace fabricfit {
namespace {

int parse_count(std::string_view text, std::string_view item) {
  int n = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, n);
  if (text.empty() || ec != std::errc{} || ptr != end || n < 1) {
    throw MixError(fmt::format("'{}' is not GPUS or NODESxGPUS with whole numbers from 1", item));
  }
  return n;
}

double parse_weight(std::string_view text, std::string_view item) {
  double w = 0;
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, w);
  if (text.empty() || ec != std::errc{} || ptr != end || w < 0) {
    throw MixError(fmt::format("'{}': weight '{}' is not a number of 0 or more", item, text));
  }
  return w;
}

}  // namespace

WorkloadMix::WorkloadMix(const std::vector<JobClass>& classes) {
  std::map<std::pair<int, int>, double> merged;
  double sum = 0;
  for (const JobClass& c : classes) {
    if (c.nodes < 1 || c.gpus_per_node < 1) throw MixError("a job size needs at least 1 node and 1 GPU");
    if (!(c.weight >= 0)) throw MixError("a weight must be 0 or more");
    merged[{c.nodes, c.gpus_per_node}] += c.weight;
    sum += c.weight;
  }
  if (sum <= 0) throw MixError("the workload mix has no job size with weight");
  for (const auto& [size, w] : merged) {
    if (w > 0) classes_.push_back(JobClass{size.first, size.second, w / sum});
  }
}

WorkloadMix WorkloadMix::parse(std::string_view text) {
  std::vector<JobClass> classes;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const auto item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    auto size = item;
    double weight = 1;
    if (const auto colon = item.find(':'); colon != std::string_view::npos) {
      size = item.substr(0, colon);
      weight = parse_weight(item.substr(colon + 1), item);
    }
    JobClass c;
    if (const auto x = size.find('x'); x != std::string_view::npos) {
      c.nodes = parse_count(size.substr(0, x), item);
      c.gpus_per_node = parse_count(size.substr(x + 1), item);
    } else {
      c.gpus_per_node = parse_count(size, item);
    }
    c.weight = weight;
    classes.push_back(c);
  }
  return WorkloadMix(classes);
}

WorkloadMix WorkloadMix::standard(int gpus_per_host) {
  const int g = std::max(1, gpus_per_host);
  std::vector<JobClass> classes;
  for (int k = 1; k < g; k *= 2) classes.push_back({1, k, 1});
  classes.push_back({1, g, 1});
  for (const int nodes : {2, 4, 8}) classes.push_back({nodes, g, 1});
  return WorkloadMix(classes);
}

std::string WorkloadMix::to_string() const {
  std::string out;
  for (const JobClass& c : classes_) {
    if (!out.empty()) out += ',';
    out += c.nodes == 1 ? fmt::format("{}", c.gpus_per_node) : fmt::format("{}x{}", c.nodes, c.gpus_per_node);
    out += fmt::format(":{:.4g}", c.weight);
  }
  return out;
}

FragModel::FragModel(const WorkloadMix& mix, int max_host_gpus, int largest_leaf_group)
    : mix_(mix), max_gpus_(std::max(0, max_host_gpus)), single_unusable_(max_gpus_ + 1, 0.0) {
  for (const JobClass& c : mix_.classes()) {
    if (c.nodes == 1) {
      // A host with f free GPUs runs floor(f/g) such jobs; the rest of its GPUs idle.
      for (int f = 0; f <= max_gpus_; ++f) single_unusable_[f] += c.weight * (f % c.gpus_per_node);
      single_weight_ += c.weight;
    } else {
      multi_.push_back(MultiNode{c.nodes, c.gpus_per_node, c.weight, c.nodes <= largest_leaf_group});
    }
  }
}

double FragModel::usable(const MultiNode& c, int eligible) const {
  // Inside one leaf group: whole multiples of the job's node count. A job wider than any
  // leaf group spans several anyway, so every eligible host is usable by it.
  if (c.fits_one_leaf_group) {
    const int jobs = eligible / c.nodes;  // whole jobs only: the floor is the point
    return static_cast<double>(c.gpus) * c.nodes * jobs;
  }
  return static_cast<double>(c.gpus) * eligible;
}

double FragModel::unusable(std::span<const int> hist) const {
  double free = 0, out = 0;
  for (int f = 0; f <= max_gpus_; ++f) {
    free += static_cast<double>(f) * hist[f];
    out += hist[f] * single_unusable_[f];
  }
  for (const MultiNode& c : multi_) {
    int eligible = 0;
    for (int f = c.gpus; f <= max_gpus_; ++f) eligible += hist[f];
    out += c.weight * (free - usable(c, eligible));
  }
  return out;
}

double FragModel::move_delta(std::span<const int> at_least, int from, int to) const {
  double d = single_unusable_[to] - single_unusable_[from];
  const double freed = to - from;  // negative when GPUs are taken
  for (const MultiNode& c : multi_) {
    double du = 0;
    if (c.gpus <= max_gpus_) {
      const int e = at_least[c.gpus];
      // The host counts as eligible before iff from >= g, after iff to >= g.
      const int e_after = e - (from >= c.gpus ? 1 : 0) + (to >= c.gpus ? 1 : 0);
      du = usable(c, e_after) - usable(c, e);
    }
    d += c.weight * (freed - du);
  }
  return d;
}

FragmentationReport measure_fragmentation(const LocalityIndex& index, const GpuState& gpus,
                                          const FragModel& model) {
  FragmentationReport r;
  const int G = model.max_gpus();
  std::vector<int> hist(G + 1);
  r.leaf_groups.resize(index.leaf_group_count());
  for (int l = 0; l < index.leaf_group_count(); ++l) {
    std::fill(hist.begin(), hist.end(), 0);
    LeafGroupFragmentation& lf = r.leaf_groups[l];
    for (int h : index.hosts_of(l)) {
      const int f = std::clamp(gpus.free[h], 0, G);
      ++hist[f];
      ++lf.hosts;
      lf.free_gpus += f;
      lf.whole_free_hosts += gpus.whole_free(h) ? 1 : 0;
      r.total_gpus += gpus.total[h];
    }
    lf.unusable = model.unusable(hist);
    lf.frag = lf.free_gpus > 0 ? lf.unusable / lf.free_gpus : 0.0;
    r.free_gpus += lf.free_gpus;
    r.unusable += lf.unusable;
  }
  r.frag = r.free_gpus > 0 ? r.unusable / static_cast<double>(r.free_gpus) : 0.0;
  return r;
}

double unusable_delta(const LocalityIndex& index, const GpuState& before, const FragModel& model,
                      std::span<const int> hosts, std::span<const int> gpus) {
  const int G = model.max_gpus();
  std::vector<std::pair<int, int>> taken;  // (host, GPUs it gives up), by host
  std::vector<int> groups;
  for (std::size_t i = 0; i < hosts.size() && i < gpus.size(); ++i) {
    taken.emplace_back(hosts[i], gpus[i]);
    const int g = index.leaf_group_of(hosts[i]);
    if (g >= 0 && std::ranges::find(groups, g) == groups.end()) groups.push_back(g);
  }
  std::ranges::sort(taken);
  std::vector<int> hist_before(G + 1), hist_after(G + 1);
  double delta = 0;
  for (const int g : groups) {
    std::ranges::fill(hist_before, 0);
    std::ranges::fill(hist_after, 0);
    for (const int h : index.hosts_of(g)) {
      int after = before.free[h];
      for (auto it = std::ranges::lower_bound(taken, std::pair{h, INT_MIN});
           it != taken.end() && it->first == h; ++it)
        after = std::max(0, after - it->second);
      ++hist_before[std::clamp(before.free[h], 0, G)];
      ++hist_after[std::clamp(after, 0, G)];
    }
    delta += model.unusable(hist_after) - model.unusable(hist_before);
  }
  return delta;
}

}  // namespace fabricfit
