// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/runtime/runtime_model.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <limits>

#include "topology/fabric.hpp"

namespace fabricfit {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Each rail's uplink cables of a leaf group, from the graph: edges of the rail's leaf to
// a switch of a higher tier.
std::vector<std::vector<double>> cables_from_graph(const Fabric& fabric, int leaf_group, int rails) {
  std::vector<std::vector<double>> out(rails);
  if (leaf_group >= static_cast<int>(fabric.leaf_groups.size())) return out;
  const LeafGroup& lg = fabric.leaf_groups[leaf_group];
  const auto& g = fabric.graph;
  for (int r = 0; r < rails && r < static_cast<int>(lg.leaves.size()); ++r) {
    const Vertex leaf = lg.leaves[r];
    if (leaf == FabricGraph::null_vertex() || leaf >= boost::num_vertices(g)) continue;
    for (auto [e, end] = boost::out_edges(leaf, g); e != end; ++e) {
      const Vertex peer = boost::target(*e, g);
      const VertexProps& p = g[peer];
      if (g[*e].host_edge || p.kind != VertexKind::Switch) continue;
      if (p.tier == SwitchTier::Spine || p.tier == SwitchTier::Core) out[r].push_back(g[*e].gbps);
    }
  }
  return out;
}

// Without cables: the slowest uplink at its rate, the others sharing the rest evenly,
// dealt over the rails in order.
std::vector<std::vector<double>> cables_from_summary(const LeafGroupInfo& info, int rails) {
  std::vector<std::vector<double>> out(rails);
  if (info.uplinks <= 0) return out;
  const double rest =
      info.uplinks > 1 ? (info.up_gbps - info.min_uplink_gbps) / (info.uplinks - 1) : info.min_uplink_gbps;
  for (int u = 0; u < info.uplinks; ++u) out[u % rails].push_back(u == 0 ? info.min_uplink_gbps : rest);
  return out;
}

double ecmp_capacity(int uplinks, double min_gbps) {
  return uplinks > 0 ? uplinks * min_gbps : 0.0;
}

void merge(std::vector<BundleDemand>& d) {
  std::sort(d.begin(), d.end(),
            [](const BundleDemand& a, const BundleDemand& b) { return a.bundle < b.bundle; });
  std::size_t kept = 0;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (kept > 0 && d[kept - 1].bundle == d[i].bundle) {
      d[kept - 1].gbps += d[i].gbps;
    } else {
      d[kept++] = d[i];
    }
  }
  d.resize(kept);
  std::erase_if(d, [](const BundleDemand& x) { return x.gbps <= 0; });
}

}  // namespace

std::string to_string(UplinkRouting routing) {
  return routing == UplinkRouting::Ecmp ? "ecmp" : "static";
}
std::string to_string(DemandMode mode) {
  return mode == DemandMode::TimeAveraged ? "time-averaged" : "peak";
}

UplinkBundles::UplinkBundles(const LocalityIndex& index, UplinkRouting routing, const Fabric* fabric)
    : index_(index), routing_(routing) {
  const int leaves = index.leaf_group_count();
  const int rails = index.rails();
  if (routing == UplinkRouting::Ecmp) {
    for (int l = 0; l < leaves; ++l) {
      const LeafGroupInfo& info = index.leaf_group(l);
      const double c = ecmp_capacity(info.uplinks, info.min_uplink_gbps);
      add(c, info.name + " up");
      add(c, info.name + " down");
    }
  } else {
    cable_first_.assign(static_cast<std::size_t>(leaves) * rails, 0);
    cable_count_.assign(static_cast<std::size_t>(leaves) * rails, 0);
    const bool graph = fabric != nullptr && boost::num_vertices(fabric->graph) > 0;
    for (int l = 0; l < leaves; ++l) {
      const LeafGroupInfo& info = index.leaf_group(l);
      auto cables = graph ? cables_from_graph(*fabric, l, rails) : cables_from_summary(info, rails);
      std::size_t total = 0;
      for (const auto& c : cables) total += c.size();
      if (total == 0) cables = cables_from_summary(info, rails);
      for (int r = 0; r < rails; ++r) {
        cable_first_[l * rails + r] = count();
        cable_count_[l * rails + r] = static_cast<int>(cables[r].size());
        for (std::size_t k = 0; k < cables[r].size(); ++k) {
          add(cables[r][k], fmt::format("{} rail {} uplink {} up", info.name, r, k));
          add(cables[r][k], fmt::format("{} rail {} uplink {} down", info.name, r, k));
        }
      }
    }
  }
  pod_first_ = count();
  for (int p = 0; p < index.pod_count(); ++p) {
    const PodInfo& info = index.pod(p);
    const double c = ecmp_capacity(info.uplinks, info.min_uplink_gbps);
    add(c, info.name + " up");
    add(c, info.name + " down");
  }
}

int UplinkBundles::add(double gbps, std::string name) {
  capacity_.push_back(gbps);
  names_.push_back(std::move(name));
  return count() - 1;
}

int UplinkBundles::cable_up(int leaf, int rail, int k) const {
  return cable_first_[leaf * index_.rails() + rail] + 2 * k;
}

std::vector<int> UplinkBundles::slowed_by_cable(int leaf) const {
  if (leaf < 0 || leaf >= index_.leaf_group_count()) return {};
  if (routing_ == UplinkRouting::Ecmp) return {leaf_up(leaf), leaf_up(leaf) + 1};
  for (int r = 0; r < index_.rails(); ++r) {
    if (cable_count_[leaf * index_.rails() + r] > 0) return {cable_up(leaf, r, 0), cable_up(leaf, r, 0) + 1};
  }
  return {};
}

double UplinkBundles::host_gbps(int host) const {
  const int l = index_.leaf_group_of(host);
  if (l < 0 || index_.leaf_group_size(l) == 0) return 0;
  return index_.leaf_group(l).down_gbps / index_.leaf_group_size(l);
}

std::vector<BundleDemand> UplinkBundles::demand(const TrafficMatrix& traffic,
                                                std::span<const int> hosts) const {
  const int n = traffic.slots();
  std::vector<BundleDemand> d;
  if (n < 2) return d;
  std::vector<int> leaf(n);
  for (int i = 0; i < n; ++i) leaf[i] = index_.leaf_group_of(hosts[i]);
  const auto pod_of = [&](int l) { return l >= 0 ? index_.pod_of_leaf_group(l) : -1; };

  // Scale: the busiest host of the job runs its HCAs at line rate.
  std::vector<double> send(n, 0.0), recv(n, 0.0);
  const double R = traffic.ranks();
  if (traffic.all_to_all()) {
    for (int i = 0; i < n; ++i) send[i] = recv[i] = traffic.gpus()[i] * (R - traffic.gpus()[i]) / R;
  } else {
    for (const Flow& f : traffic.flows()) {
      send[f.src] += f.bytes;
      recv[f.dst] += f.bytes;
    }
  }
  double scale = kInf;
  for (int i = 0; i < n; ++i) {
    const double bytes = std::max(send[i], recv[i]);
    if (bytes > 0) scale = std::min(scale, host_gbps(hosts[i]) / bytes);
  }
  if (!(scale < kInf)) return d;

  const int rails = index_.rails();
  // Static routing: the cable a flow towards `dst_host` takes out of (into) leaf group l.
  const auto charge_cables = [&](int l, int dst_host, double bytes, int direction) {
    for (int r = 0; r < rails; ++r) {
      const int count = cable_count_[l * rails + r];
      if (count == 0) continue;
      d.push_back({cable_up(l, r, dst_host % count) + direction, bytes / rails});
    }
  };
  const auto charge_pods = [&](int a, int b, double bytes) {
    const int pa = pod_of(a), pb = pod_of(b);
    if (pa == pb || pa < 0 || pb < 0) return;
    d.push_back({pod_up(pa), bytes});
    d.push_back({pod_up(pb) + 1, bytes});
  };
  const auto charge = [&](int a, int b, int dst_host, double bytes) {
    if (a == b || a < 0 || b < 0 || bytes <= 0) return;
    if (routing_ == UplinkRouting::Ecmp) {
      d.push_back({leaf_up(a), bytes});
      d.push_back({leaf_up(b) + 1, bytes});
    } else {
      charge_cables(a, dst_host, bytes, 0);
      charge_cables(b, dst_host, bytes, 1);
    }
    charge_pods(a, b, bytes);
  };

  if (traffic.all_to_all()) {
    // Slot j receives g_i g_j / R from every slot i; per source group that is G_a g_j / R.
    std::vector<std::pair<int, double>> group_gpus;  // (leaf group, GPUs of the job in it)
    for (int i = 0; i < n; ++i) {
      auto it = std::find_if(group_gpus.begin(), group_gpus.end(),
                             [&](const auto& p) { return p.first == leaf[i]; });
      if (it == group_gpus.end()) {
        group_gpus.emplace_back(leaf[i], traffic.gpus()[i]);
      } else {
        it->second += traffic.gpus()[i];
      }
    }
    for (int j = 0; j < n; ++j) {
      for (const auto& [a, G] : group_gpus) charge(a, leaf[j], hosts[j], G * traffic.gpus()[j] / R);
    }
  } else {
    for (const Flow& f : traffic.flows()) charge(leaf[f.src], leaf[f.dst], hosts[f.dst], f.bytes);
  }
  for (BundleDemand& x : d) x.gbps *= scale;
  merge(d);
  return d;
}

double fair_level(std::vector<double>& demands, double capacity) {
  double sum = 0;
  for (double x : demands) sum += x;
  if (sum <= capacity * (1 + 1e-12)) return kInf;
  std::sort(demands.begin(), demands.end());
  double remaining = capacity;
  const std::size_t n = demands.size();
  for (std::size_t i = 0; i < n; ++i) {
    const double fair = remaining / static_cast<double>(n - i);
    if (demands[i] > fair) return fair;
    remaining -= demands[i];
  }
  return kInf;
}

double slowdown(double comm_share, double rho, DemandMode mode) {
  if (comm_share <= 0) return 1.0;
  if (rho <= 0) return std::numeric_limits<double>::infinity();
  const double r = std::min(rho, 1.0);
  return mode == DemandMode::TimeAveraged ? 1.0 / r : (1 - comm_share) + comm_share / r;
}

BandwidthSharing::BandwidthSharing(const UplinkBundles& bundles)
    : bundles_(bundles), jobs_(bundles.count()), sum_(bundles.count(), 0.0), level_(bundles.count(), kInf) {}

void BandwidthSharing::relevel(int b) {
  const bool was_over = level_[b] < kInf;
  scratch_.clear();
  for (const auto& [job, gbps] : jobs_[b]) scratch_.push_back(gbps);
  level_[b] = fair_level(scratch_, bundles_.capacity_gbps(b));
  const bool over = level_[b] < kInf;
  over_ += (over ? 1 : 0) - (was_over ? 1 : 0);
}

void BandwidthSharing::add(int job, std::span<const BundleDemand> demand, std::vector<int>& changed) {
  for (const BundleDemand& x : demand) {
    jobs_[x.bundle].emplace_back(job, x.gbps);
    sum_[x.bundle] += x.gbps;
    const double before = level_[x.bundle];
    relevel(x.bundle);
    // A new job on a bundle that still fits changes nobody's share.
    if (level_[x.bundle] != before || level_[x.bundle] < kInf) changed.push_back(x.bundle);
  }
}

void BandwidthSharing::capacity_changed(int bundle, std::vector<int>& changed) {
  const double before = level_[bundle];
  relevel(bundle);
  if (level_[bundle] != before) changed.push_back(bundle);
}

void BandwidthSharing::remove(int job, std::span<const BundleDemand> demand, std::vector<int>& changed) {
  for (const BundleDemand& x : demand) {
    auto& v = jobs_[x.bundle];
    const auto it = std::find_if(v.begin(), v.end(), [&](const auto& p) { return p.first == job; });
    if (it == v.end()) continue;
    sum_[x.bundle] -= it->second;
    *it = v.back();
    v.pop_back();
    const double before = level_[x.bundle];
    relevel(x.bundle);
    if (level_[x.bundle] != before) changed.push_back(x.bundle);
  }
}

double BandwidthSharing::rho(std::span<const BundleDemand> demand) const {
  double r = 1.0;
  for (const BundleDemand& x : demand) {
    if (x.gbps <= 0) continue;
    if (bundles_.capacity_gbps(x.bundle) <= 0) return 0.0;
    r = std::min(r, level_[x.bundle] / x.gbps);
  }
  return r;
}

double BandwidthSharing::rho_if_added(std::span<const BundleDemand> demand) const {
  double r = 1.0;
  for (const BundleDemand& x : demand) {
    if (x.gbps <= 0) continue;
    scratch_.clear();
    for (const auto& [job, gbps] : jobs_[x.bundle]) scratch_.push_back(gbps);
    scratch_.push_back(x.gbps);
    const double cap = bundles_.capacity_gbps(x.bundle);
    if (cap <= 0) return 0.0;
    r = std::min(r, fair_level(scratch_, cap) / x.gbps);
  }
  return r;
}

}  // namespace fabricfit
