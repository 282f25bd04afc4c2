// SPDX-License-Identifier: GPL-2.0-or-later
#include "health/health_links.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <tuple>

namespace fabricfit {

std::vector<Cable> cables_of(const Fabric& fabric) {
  std::vector<Cable> cables;
  const auto& g = fabric.graph;
  const auto host_of = [&](Vertex v) {
    const auto& p = g[v];
    return p.kind == VertexKind::Hca && p.host >= 0 ? fabric.hosts[static_cast<std::size_t>(p.host)].name
                                                    : std::string();
  };
  for (const auto e : boost::make_iterator_range(boost::edges(g))) {
    const auto& link = g[e];
    if (link.host_edge) continue;
    const Vertex u = boost::source(e, g);
    const Vertex v = boost::target(e, g);
    Cable c{{g[u].guid, link.port_a}, g[u].name, {g[v].guid, link.port_b}, g[v].name, host_of(u), link.gbps};
    if (c.host.empty()) c.host = host_of(v);
    cables.push_back(std::move(c));
  }
  return cables;
}

const PortHealth* find_port(const std::vector<PortHealth>& ports, PortId id) {
  const auto it = std::ranges::lower_bound(ports, id, {}, &PortHealth::id);
  return it != ports.end() && it->id == id ? &*it : nullptr;
}

std::vector<LinkStatus> link_statuses(const std::vector<Cable>& cables,
                                      const std::vector<PortHealth>& ports) {
  std::vector<LinkStatus> out;
  for (const auto& c : cables) {
    const PortHealth* a = find_port(ports, c.a);
    const PortHealth* b = find_port(ports, c.b);
    LinkStatus l{c.a.guid, c.a.port, c.a_name, c.b.guid, c.b.port, c.b_name, c.host, HealthState::Healthy,
                 0,        {}};
    for (const auto& [end, name, port] :
         {std::tuple{a, &c.a_name, c.a.port}, std::tuple{b, &c.b_name, c.b.port}}) {
      if (end == nullptr || end->state == HealthState::Healthy) continue;
      // The worse end's state, since when it has been in it (the earlier of two equals).
      if (end->state > l.state) {
        l.state = end->state;
        l.since_unix = end->since_unix;
      } else if (end->state == l.state) {
        l.since_unix = std::min(l.since_unix, end->since_unix);
      }
      for (auto e : end->evidence) {
        e.at = fmt::format("{}[{}]", *name, port);
        l.evidence.push_back(std::move(e));
      }
    }
    if (l.state != HealthState::Healthy) out.push_back(std::move(l));
  }
  std::ranges::stable_sort(out, [](const LinkStatus& x, const LinkStatus& y) {
    if (x.state != y.state) return x.state > y.state;
    return std::tie(x.a, x.a_port) < std::tie(y.a, y.a_port);
  });
  return out;
}

}  // namespace fabricfit
