// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/readers/ibnd_planes.hpp"

#include <endian.h>
#include <fmt/format.h>
#include <infiniband/umad.h>
#include <algorithm>
#include <set>

namespace fabricfit {

std::vector<LocalPort> local_ca_ports() {
  std::vector<LocalPort> out;
  if (umad_init() < 0) return out;
  char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
  const int n = umad_get_cas_names(names, UMAD_MAX_DEVICES);
  for (int i = 0; i < n; ++i) {
    umad_ca_t ca{};
    if (umad_get_ca(names[i], &ca) < 0) continue;
    for (int p = 1; p <= ca.numports && p < UMAD_CA_MAX_PORTS; ++p) {
      const umad_port_t* port = ca.ports[p];
      if (port == nullptr) continue;
      // Down (1) has no link; Initialize, Armed and Active have one, which is all a
      // directed-route walk needs (no SM yet is fine). RoCE ports are not an IB subnet.
      const bool ib = std::string(port->link_layer).empty() || std::string(port->link_layer) == "InfiniBand";
      if (port->state > 1 && ib) out.push_back(LocalPort{names[i], p, be64toh(ca.node_guid)});
    }
    umad_release_ca(&ca);
  }
  return out;
}

std::vector<RawFabric> discover_subnets(const DiscoveryOptions& options,
                                        const std::vector<std::string>& cas) {
  std::vector<LocalPort> ports;
  if (cas.empty()) {
    ports = local_ca_ports();
    if (ports.empty()) {
      // No port listed (no sysfs view, as under some simulators): let libibnetdisc pick.
      return {discover_fabric(options)};
    }
  } else {
    const std::vector<LocalPort> all = local_ca_ports();
    for (const auto& name : cas) {
      const auto it = std::find_if(all.begin(), all.end(), [&](const LocalPort& p) {
        return p.ca == name && (options.ca_port == 0 || p.port == options.ca_port);
      });
      ports.push_back(it != all.end() ? *it : LocalPort{name, options.ca_port, 0});
    }
  }
  std::vector<RawFabric> out;
  std::set<std::uint64_t> found;  // node GUIDs of every subnet walked so far
  for (const LocalPort& p : ports) {
    if (p.node_guid != 0 && found.contains(p.node_guid)) continue;  // its subnet is walked
    DiscoveryOptions one = options;
    one.ca = p.ca;
    one.ca_port = p.port;
    RawFabric f = discover_fabric(one);
    for (const RawNode& n : f.nodes) found.insert(n.guid);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace fabricfit
