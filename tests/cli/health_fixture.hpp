// SPDX-License-Identifier: GPL-2.0-or-later
// Health files for the tests of the commands that read them: some cables of a fabric put in
// a state, judged into links by the sweep's own code and written and read back by the real
// writer (health/health_file.hpp), so the tests read what `fabricfit health` would leave.
#pragma once

#include <unistd.h>
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "health/health_file.hpp"
#include "health/health_links.hpp"

namespace fabricfit::testing {

// A host's HCA cable (host set) or the first uplink of a leaf (leaf set, a switch's name).
struct BadCable {
  std::string host;
  std::string leaf;
  HealthState state = HealthState::Flapping;
};

inline Evidence evidence_for(HealthState s) {
  switch (s) {
    case HealthState::Flapping: return {"LinkDownedCounter", 3, "in_window", 2, 900, ""};
    case HealthState::Down: return {"PortState", 0, "down", 0, 900, ""};
    case HealthState::Congested: return {"PortXmitWait", 0.4, "share", 0.1, 900, ""};
    default: return {"SymbolErrorCounter", 4e-12, "ber", 1e-12, 900, ""};
  }
}

inline HealthFile health_file_of(const Fabric& f, const std::vector<BadCable>& bad,
                                 const std::filesystem::path& path = {}) {
  const auto cables = cables_of(f);
  HealthFile h;
  h.sweeps = 7;
  h.sweep_unix = 1'796'378'400;
  h.snapshot = "fabric.snapshot";
  for (const auto& c : cables) {
    h.ports.push_back(PortHealth{.id = c.a});
    h.ports.push_back(PortHealth{.id = c.b});
  }
  for (const BadCable& want : bad) {
    const auto it = std::ranges::find_if(cables, [&](const Cable& c) {
      if (!want.host.empty()) return c.host == want.host;
      return c.host.empty() && (c.a_name == want.leaf || c.b_name == want.leaf);
    });
    if (it == cables.end()) throw std::logic_error("no such cable: " + want.host + want.leaf);
    auto& p = *std::ranges::find_if(h.ports, [&](const PortHealth& x) { return x.id == it->a; });
    p.state = want.state;
    p.since_unix = 900;
    p.evidence = {evidence_for(want.state)};
  }
  std::ranges::sort(h.ports, {}, &PortHealth::id);
  h.links = link_statuses(cables, h.ports);
  const auto file = path.empty() ? std::filesystem::temp_directory_path() /
                                       ("fabricfit-test-" + std::to_string(::getpid()) + ".health")
                                 : path;
  save_health(file, h);
  HealthFile back = load_health(file);
  if (path.empty()) std::filesystem::remove(file);
  return back;
}

}  // namespace fabricfit::testing
