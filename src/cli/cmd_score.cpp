// SPDX-License-Identifier: GPL-2.0-or-later
// `fabricfit score SNAPSHOT --nodes HOSTLIST --pattern P`: what a placement costs the
// fabric (docs/placement.md): leaf groups, cross-spine and cross-core bytes, the most
// loaded uplink, and (with --busy) the fragmentation it leaves.
#include <fmt/format.h>
#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/placement_input.hpp"
#include "placement/fragmentation.hpp"
#include "placement/selection/placement_policy.hpp"

namespace fabricfit::cli {
namespace {

struct ScoreOptions {
  std::string source;
  std::string nodes;
  std::string pattern = "ring";
  int gpus_per_node = 8;
  std::string busy;
  std::string mix;
  bool json = false;
};

nlohmann::json score_json(const PlacementScore& s, bool with_frag) {
  nlohmann::json j = {{"nodes", s.nodes},
                      {"gpus", s.gpus},
                      {"leaf_groups", s.leaf_groups},
                      {"pods", s.pods},
                      {"rails", s.rails},
                      {"inter_node_bytes", s.inter_node_bytes},
                      {"spine_bytes", s.spine_bytes},
                      {"spine_bytes_per_rail", s.spine_bytes_per_rail},
                      {"core_bytes", s.core_bytes},
                      {"max_uplink_load_s_per_gb", s.max_uplink_load},
                      {"uplink_stretch", s.uplink_stretch},
                      {"bottleneck", s.bottleneck}};
  if (with_frag) {
    j["frag_before"] = s.frag_before;
    j["frag_after"] = s.frag_after;
    j["frag_delta"] = s.frag_delta;
  }
  return j;
}

// The same hosts with each leaf group's ranks together (in order of first appearance).
std::vector<int> contiguous(const LocalityIndex& index, std::vector<int> hosts) {
  std::vector<int> first_seen;
  for (int h : hosts) {
    const int l = index.leaf_group_of(h);
    if (std::find(first_seen.begin(), first_seen.end(), l) == first_seen.end()) first_seen.push_back(l);
  }
  std::stable_sort(hosts.begin(), hosts.end(), [&](int a, int b) {
    const auto pa = std::find(first_seen.begin(), first_seen.end(), index.leaf_group_of(a));
    const auto pb = std::find(first_seen.begin(), first_seen.end(), index.leaf_group_of(b));
    return pa < pb;
  });
  return hosts;
}

int run_score(const ScoreOptions& opt) {
  const Fabric fabric = load_fabric(opt.source);
  const LocalityIndex index(fabric);
  const CommPattern pattern = parse_comm_pattern(opt.pattern);
  const std::vector<int> hosts = hosts_of(index, opt.nodes);
  if (hosts.empty()) throw std::invalid_argument("--nodes names no host");
  for (int h : hosts) {
    if (index.leaf_group_of(h) < 0) {
      throw std::invalid_argument(
          fmt::format("{} is in no leaf group (see `fabricfit show`)", index.host_name(h)));
    }
  }
  const GpuState gpus = busy_state(index, opt.busy, opt.gpus_per_node);
  const WorkloadMix mix =
      opt.mix.empty() ? WorkloadMix::standard(opt.gpus_per_node) : WorkloadMix::parse(opt.mix);
  const FragModel frag(mix, opt.gpus_per_node, index.largest_leaf_group());
  Allocation a;
  a.hosts = hosts;
  for (int h : hosts) a.gpus.push_back(gpus.free[h]);
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    if (a.gpus[i] <= 0)
      throw std::invalid_argument(fmt::format("{} has no free GPU (--busy)", index.host_name(hosts[i])));
  }
  const PlacementContext ctx{index, gpus, frag};
  const PlacementScore s = evaluate_allocation(ctx, a, pattern);
  const bool with_frag = !opt.busy.empty();
  Allocation ordered = a;
  ordered.hosts = contiguous(index, hosts);
  const PlacementScore better = evaluate_allocation(ctx, ordered, pattern);

  if (opt.json) {
    nlohmann::json j = score_json(s, with_frag);
    j["pattern"] = pattern.to_string();
    j["hosts"] = nlohmann::json::array();
    for (std::size_t i = 0; i < hosts.size(); ++i) {
      j["hosts"].push_back({{"rank_slot", i},
                            {"host", index.host_name(hosts[i])},
                            {"gpus", a.gpus[i]},
                            {"leaf_group", index.leaf_group(index.leaf_group_of(hosts[i])).name}});
    }
    if (better.spine_bytes < s.spine_bytes - 1e-12) j["contiguous_spine_bytes"] = better.spine_bytes;
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("pattern {} on {} hosts, {} GPUs; rank order:\n", pattern.to_string(), s.nodes, s.gpus);
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    fmt::print("  {:>4}  {:<20} {:>2} GPUs  {}\n", i, index.host_name(hosts[i]), a.gpus[i],
               index.leaf_group(index.leaf_group_of(hosts[i])).name);
  }
  const auto share = [&](double x) {
    return s.inter_node_bytes > 0 ? fmt::format(" ({:.1f}% of inter-node)", 100 * x / s.inter_node_bytes)
                                  : std::string();
  };
  fmt::print("leaf groups used     {}\n", s.leaf_groups);
  if (!fabric.pods.empty()) fmt::print("pods used            {}\n", s.pods);
  fmt::print("inter-node bytes     {:.6g} per unit of message volume\n", s.inter_node_bytes);
  fmt::print("cross-spine bytes    {:.6g}{}{}\n", s.spine_bytes, share(s.spine_bytes),
             s.rails > 1 ? fmt::format(", {:.6g} per rail", s.spine_bytes_per_rail) : std::string());
  if (!fabric.pods.empty()) fmt::print("cross-core bytes     {:.6g}{}\n", s.core_bytes, share(s.core_bytes));
  if (s.max_uplink_load > 0) {
    fmt::print("most loaded uplink   {:.4g} s per GB of message, in {} (uplink stretch {:.2f})\n",
               s.max_uplink_load, s.bottleneck, s.uplink_stretch);
  } else {
    fmt::print("most loaded uplink   none: no traffic leaves a leaf group\n");
  }
  if (with_frag) {
    fmt::print("fragmentation        {:.3f} -> {:.3f} ({:+.3f}), mix {}\n", s.frag_before, s.frag_after,
               s.frag_delta, mix.to_string());
  }
  if (better.spine_bytes < s.spine_bytes - 1e-12) {
    fmt::print(
        "note: ranks are not contiguous per leaf group; in leaf-group order the cross-spine bytes would be "
        "{:.6g}\n",
        better.spine_bytes);
  }
  return 0;
}

}  // namespace

Action add_score_command(CLI::App& app) {
  auto opt = std::make_shared<ScoreOptions>();
  auto* cmd = app.add_subcommand("score", "Score a placement: leaf groups, cross-spine bytes, uplink load");
  cmd->add_option("snapshot", opt->source, "A snapshot (or an ibnetdiscover / ibnd cache file)")->required();
  cmd->add_option("--nodes", opt->nodes, "The job's hosts in rank order, a Slurm hostlist")->required();
  cmd->add_option("--pattern", opt->pattern, "ring, tree, alltoall, none or tp=T,pp=P,dp=D")
      ->capture_default_str();
  cmd->add_option("--gpus-per-node", opt->gpus_per_node, "GPUs on every host")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  cmd->add_option(
      "--busy", opt->busy,
      "Busy hosts (hostlist, or a file of 'HOSTLIST [GPUS_BUSY]' lines): the job takes the free GPUs of "
      "its hosts, and the fragmentation change is shown");
  cmd->add_option("--mix", opt->mix,
                  "Workload mix for fragmentation, e.g. 1:0.4,8:0.3,2x8:0.3 (default: standard)");
  cmd->add_flag("--json", opt->json, "Print JSON");
  return [opt] { return run_score(*opt); };
}

}  // namespace fabricfit::cli
