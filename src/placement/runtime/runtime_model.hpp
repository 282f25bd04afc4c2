// SPDX-License-Identifier: GPL-2.0-or-later
// The run-time model: how long a job runs on its placement, given the other jobs'
// traffic. A job's uncontended duration is its run time inside one leaf group; a share f
// of it is communication, slowed by the bandwidth the job really gets on the uplinks it
// crosses: s = (1 - f) + f / rho, rho = the smallest share/demand over its uplink bundles
// (max-min fair per bundle), capped at 1. docs/placement.md ("Run-time model") gives the
// formulas, the parameters and where each comes from.
#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "placement/locality_index.hpp"
#include "placement/traffic_matrix.hpp"

namespace fabricfit {

struct Fabric;

// ECMP: a leaf group's (pod's) cross traffic spreads evenly over its uplinks, so the
// bundle carries uplinks x slowest. Static: every flow is pinned to one uplink cable,
// chosen by destination host modulo the rail's uplinks (destination-based routing), so
// flows can collide on one cable while others idle.
enum class UplinkRouting { Ecmp, Static };
// Time-averaged: a job loads a bundle with its peak demand x f (its communication share),
// and a slowed job's average demand falls as it stretches (see slowdown());
// peak: with its peak demand whenever it runs.
enum class DemandMode { TimeAveraged, Peak };

[[nodiscard]] std::string to_string(UplinkRouting routing);
[[nodiscard]] std::string to_string(DemandMode mode);

// One demand of a job on one shared resource (a bundle direction or a cable direction).
struct BundleDemand {
  int bundle = 0;
  double gbps = 0;
  friend bool operator==(const BundleDemand&, const BundleDemand&) = default;
};

// The shared uplink resources of a fabric, each direction on its own (links are full
// duplex): ECMP: per leaf group and per pod, up and down; static: per leaf uplink cable,
// up and down, and per pod (ECMP) as before.
class UplinkBundles {
 public:
  // `fabric` (optional) gives each cable's rate per rail for static routing; without it
  // (or without a graph) a leaf group's cables are its slowest uplink plus the rest at
  // the remaining capacity shared evenly, spread over the rails in order.
  explicit UplinkBundles(const LocalityIndex& index, UplinkRouting routing = UplinkRouting::Ecmp,
                         const Fabric* fabric = nullptr);

  [[nodiscard]] UplinkRouting routing() const { return routing_; }
  [[nodiscard]] int count() const { return static_cast<int>(capacity_.size()); }
  [[nodiscard]] double capacity_gbps(int bundle) const { return capacity_[bundle]; }
  [[nodiscard]] const std::string& name(int bundle) const { return names_[bundle]; }
  // A host's line rate, all rails: its leaf group's down capacity over its hosts.
  [[nodiscard]] double host_gbps(int host) const;

  // The job's peak demand on each bundle it uses (ascending bundle ids, one entry each):
  // the pattern's traffic routed over the placement, scaled so that the busiest host of
  // the job drives its HCAs at line rate. Empty when no traffic leaves a leaf group.
  [[nodiscard]] std::vector<BundleDemand> demand(const TrafficMatrix& traffic,
                                                 std::span<const int> hosts) const;

  [[nodiscard]] const LocalityIndex& index() const { return index_; }

  // The bundles a sub-healthy uplink cable of leaf group `leaf` slows, up and down: under
  // ECMP the group's (the slowest cable sets its capacity), under static routes the first
  // cable's. set_capacity changes one (BandwidthSharing::capacity_changed re-levels it).
  [[nodiscard]] std::vector<int> slowed_by_cable(int leaf) const;
  void set_capacity(int bundle, double gbps) { capacity_[bundle] = gbps; }

  // Static routing: the uplink cables of leaf group `leaf` on `rail` (a flow towards host
  // h takes cable h modulo this); 0 under ECMP.
  [[nodiscard]] int cables(int leaf, int rail) const {
    if (routing_ != UplinkRouting::Static) return 0;
    return cable_count_[static_cast<std::size_t>(leaf) * index_.rails() + rail];
  }

 private:
  int leaf_up(int leaf) const { return 2 * leaf; }
  int pod_up(int pod) const { return pod_first_ + 2 * pod; }
  // Static routing: cable k of rail r of leaf group l, up; down is +1.
  int cable_up(int leaf, int rail, int k) const;
  int add(double gbps, std::string name);

  const LocalityIndex& index_;
  UplinkRouting routing_;
  std::vector<double> capacity_;
  std::vector<std::string> names_;
  int pod_first_ = 0;
  // Static routing: per leaf group and rail, the first bundle id and the number of cables.
  std::vector<int> cable_first_, cable_count_;
};

// Max-min fair sharing per bundle among the jobs on it. A job's rho is the smallest
// share/demand over its bundles, capped at 1. Jobs are small integers (trace indices).
class BandwidthSharing {
 public:
  explicit BandwidthSharing(const UplinkBundles& bundles);

  // Adds (removes) a job's demands; `changed` gets the bundles whose fair level moved.
  void add(int job, std::span<const BundleDemand> demand, std::vector<int>& changed);
  void remove(int job, std::span<const BundleDemand> demand, std::vector<int>& changed);
  // The jobs on a bundle.
  [[nodiscard]] std::span<const std::pair<int, double>> jobs_on(int bundle) const { return jobs_[bundle]; }

  // rho of a job with these demands under the current levels (the job counted in them).
  [[nodiscard]] double rho(std::span<const BundleDemand> demand) const;
  // rho a job with these demands would get if it were added now (what-if, nothing changes).
  [[nodiscard]] double rho_if_added(std::span<const BundleDemand> demand) const;

  // The bundle's capacity changed (a fault): its level is worked out again; `changed`
  // gets it when the level moved.
  void capacity_changed(int bundle, std::vector<int>& changed);

  // Bundles whose demand now exceeds their capacity.
  [[nodiscard]] int over_capacity() const { return over_; }

 private:
  void relevel(int bundle);

  const UplinkBundles& bundles_;
  std::vector<std::vector<std::pair<int, double>>> jobs_;  // per bundle: (job, demand)
  std::vector<double> sum_;
  std::vector<double> level_;  // fair share cap per bundle; +inf when not over capacity
  mutable std::vector<double> scratch_;
  int over_ = 0;
};

// The uplink traffic of the jobs running now (their sharing of the bundles), for a policy
// that keeps a split job's flows off the cables other jobs load and for the locality wait.
struct RunningTraffic {
  const UplinkBundles& bundles;
  const BandwidthSharing& sharing;
  // What the job's peak demand counts for on a bundle: its communication share under
  // time-averaged demand, 1 under peak (as the running jobs' demands were counted).
  double demand_scale = 1.0;

  // The max-min fair share (rho, 1 when it gets all it asks) a job with this traffic on
  // these hosts, in rank order, would get of its uplinks if it were added now.
  [[nodiscard]] double share_if_added(const TrafficMatrix& traffic, std::span<const int> hosts) const {
    std::vector<BundleDemand> demand = bundles.demand(traffic, hosts);
    for (BundleDemand& d : demand) d.gbps *= demand_scale;
    return sharing.rho_if_added(demand);
  }
};

// Max-min fair level of `capacity` over `demands` (sorted in place): the share cap
// that gives every demand min(demand, level); +inf when the demands fit.
[[nodiscard]] double fair_level(std::vector<double>& demands, double capacity);

// The job's slowdown given rho, its share of what it asks on its tightest bundle (0, 1];
// 1 when f = 0.
// Peak: rho is a share of its peak demand, which it asks only while it communicates, so
// only the communication phases stretch: s = (1 - f) + f / rho.
// Time-averaged: rho is a share of its average demand (peak x f), the rate its bytes get
// over the whole run; moving them at that rate takes the whole run 1 / rho longer:
// s = 1 / rho. Its average demand over the stretched run, peak x f / s, is then what it
// is given, so no bundle delivers more than its capacity (with (1 - f) + f / rho it would).
[[nodiscard]] double slowdown(double comm_share, double rho, DemandMode mode);

}  // namespace fabricfit
