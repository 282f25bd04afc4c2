// SPDX-License-Identifier: GPL-2.0-or-later
#include "health/collect/health_sweep.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>

#include "health/collect/pma_query.hpp"
#include "health/health_judge.hpp"

namespace fabricfit {
namespace {

using Clock = std::chrono::steady_clock;

struct LivePort {
  int lid = 0;
  PortId peer;
};

// What the discovery saw: every connected port, its LID and its peer.
struct LiveFabric {
  std::map<PortId, LivePort> ports;
  std::map<std::uint64_t, bool> nodes;  // GUIDs reached
  bool partial = false;
};

LiveFabric live_fabric(const RawFabric& raw) {
  LiveFabric live;
  live.partial = raw.partial;
  for (const auto& node : raw.nodes) {
    live.nodes[node.guid] = true;
    for (const auto& p : node.ports) {
      if (p.peer < 0 || static_cast<std::size_t>(p.peer) >= raw.nodes.size()) continue;
      live.ports[{node.guid, p.number}] = {p.lid,
                                           {raw.nodes[static_cast<std::size_t>(p.peer)].guid, p.peer_port}};
    }
  }
  return live;
}

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

HealthFile sweep_health(const std::vector<Cable>& cables, const HealthFile& previous,
                        const SweepOptions& options, SweepStats* stats) {
  const auto started = Clock::now();
  const auto deadline = started + std::chrono::duration<double>(options.thresholds.sweep_timeout_s);
  const LiveFabric live = live_fabric(discover_fabric(options.discovery));
  PmaPort pma(options.discovery.ca, options.discovery.ca_port,
              static_cast<unsigned>(options.thresholds.query_timeout_ms));

  HealthFile next;
  next.sweeps = previous.sweeps + 1;
  std::map<PortId, PortHealth> ports;
  std::map<std::uint64_t, std::optional<bool>> extended;  // per node, asked once a sweep
  SweepStats s;
  const std::int64_t now = unix_now();

  const auto visit = [&](PortId id, PortId peer, double gbps) {
    if (ports.contains(id)) return;
    PortHealth& h = ports[id];
    if (const PortHealth* old = find_port(previous.ports, id)) h = *old;
    h.id = id;
    PortReading r;
    r.now_unix = now;
    r.link_gbps = gbps;
    const auto it = live.ports.find(id);
    if (it != live.ports.end() && it->second.peer == peer) {
      std::optional<PortSample> sample;
      if (Clock::now() < deadline) {
        auto& ext = extended[id.guid];
        if (!ext) ext = pma.extended_supported(it->second.lid, id.port);
        if (ext) sample = pma.read(it->second.lid, id.port, *ext);
      }
      if (sample) {
        r.kind = PortReading::Kind::Read;
        r.sample = *sample;
        ++s.read;
        update_port_health(h, r, options.thresholds);
        if (options.clear && pma.clear(it->second.lid, id.port, extended[id.guid].value_or(false))) {
          // The cleared counters are the next sweep's baseline, not a reset.
          h.last->value.fill(0);
        }
        return;
      }
    } else if (!live.partial || (live.nodes.contains(id.guid) && live.nodes.contains(peer.guid))) {
      // The discovery was complete (or reached both ends) and the cable is not there. A
      // partial one that missed an end cannot tell a cable down from a node not reached.
      r.kind = PortReading::Kind::Down;
      ++s.down;
      update_port_health(h, r, options.thresholds);
      return;
    }
    r.kind = PortReading::Kind::Missed;
    ++s.missed;
    next.missed.push_back(id);
    update_port_health(h, r, options.thresholds);
  };
  for (const auto& c : cables) {
    visit(c.a, c.b, c.gbps);
    visit(c.b, c.a, c.gbps);
  }
  next.ports.reserve(ports.size());
  for (auto& [id, h] : ports) next.ports.push_back(std::move(h));
  std::ranges::sort(next.missed);
  next.links = link_statuses(cables, next.ports);
  next.sweep_unix = unix_now();
  s.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  if (stats != nullptr) *stats = s;
  return next;
}

}  // namespace fabricfit
