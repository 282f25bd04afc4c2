// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/link_health.hpp"

#include <fmt/format.h>
#include <map>
#include <tuple>

#include "topology/fabric_warnings.hpp"

namespace fabricfit {
namespace {

// Which cables are peers: (kind, switch or tier pair).
using PeerClass = std::tuple<int, Vertex, int, int>;

constexpr int kCaOnSwitch = 0, kSwitchToSwitch = 1, kOther = 2, kInternal = 3;

PeerClass peer_class(const FabricGraph& g, const CableEnds& c, const std::vector<char>& internal) {
  const bool sa = g[c.a].kind == VertexKind::Switch;
  const bool sb = g[c.b].kind == VertexKind::Switch;
  if (internal[c.a] || internal[c.b]) return {kInternal, 0, 0, 0};
  if (sa && sb) {
    const int ta = static_cast<int>(g[c.a].tier), tb = static_cast<int>(g[c.b].tier);
    return {kSwitchToSwitch, 0, std::min(ta, tb), std::max(ta, tb)};
  }
  if (sa || sb) return {kCaOnSwitch, sa ? c.a : c.b, 0, 0};
  return {kOther, 0, 0, 0};
}

struct Tally {
  std::map<double, int> by_gbps;
  std::map<double, LinkRate> rate_of;
  [[nodiscard]] LinkRate usual() const {
    double best = 0;
    int n = 0;
    for (const auto& [gbps, k] : by_gbps) {
      if (k >= n) best = gbps, n = k;  // ties: the faster
    }
    const auto it = rate_of.find(best);
    return it != rate_of.end() ? it->second : LinkRate{0, ""};
  }
};

}  // namespace

LinkHealth assess_links(const FabricGraph& g, const std::vector<CableEnds>& cables,
                        const std::vector<char>& internal) {
  std::map<PeerClass, Tally> tallies;
  for (const CableEnds& c : cables) {
    const double gbps = c.rate.gbps();
    if (gbps <= 0) continue;
    Tally& t = tallies[peer_class(g, c, internal)];
    ++t.by_gbps[gbps];
    t.rate_of.emplace(gbps, c.rate);
  }
  LinkHealth health;
  std::vector<std::string> unknown;
  health.expected.reserve(cables.size());
  for (const CableEnds& c : cables) {
    const PeerClass cls = peer_class(g, c, internal);
    if (std::get<0>(cls) == kInternal) {
      health.expected.push_back(c.rate);
      continue;
    }
    const auto it = tallies.find(cls);
    health.expected.push_back(it != tallies.end() ? it->second.usual() : c.rate);
    if (c.rate.gbps() <= 0) {
      unknown.push_back(fmt::format("{}[{}] - {}[{}]", g[c.a].name, c.port_a, g[c.b].name, c.port_b));
    }
  }
  const auto leaf = static_cast<int>(SwitchTier::Leaf), spine = static_cast<int>(SwitchTier::Spine);
  const auto up = tallies.find(PeerClass{kSwitchToSwitch, 0, std::min(leaf, spine), std::max(leaf, spine)});
  if (up != tallies.end()) health.usual_uplink_gbps = up->second.usual().gbps();
  if (!unknown.empty()) {
    std::string list;
    for (std::size_t i = 0; i < unknown.size() && i < 20; ++i) list += (i ? ", " : "") + unknown[i];
    if (unknown.size() > 20) list += fmt::format(" and {} more", unknown.size() - 20);
    health.warnings.push_back(format_warning(
        WarningKind::UnknownRate,
        fmt::format("{} cable(s) have no known width/speed and count as 0 Gb/s: {}", unknown.size(), list)));
  }
  return health;
}

}  // namespace fabricfit
