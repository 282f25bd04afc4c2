// SPDX-License-Identifier: GPL-2.0-or-later
// Pass 3: parts of the subnet not connected to the rest (the largest part is the fabric).
#include <fmt/format.h>
#include <algorithm>
#include <deque>
#include <map>

#include "topology/fabric_warnings.hpp"
#include "topology/passes/pass_text.hpp"
#include "topology/passes/passes.hpp"

namespace fabricfit::passes {

std::vector<std::string> find_islands(const ClassifiedFabric& f) {
  std::vector<std::string> warnings;
  std::vector<int> component(f.count(), kNone);
  std::vector<std::vector<int>> members;
  for (int start = 0; start < f.count(); ++start) {
    if (component[start] != kNone) continue;
    const int id = static_cast<int>(members.size());
    members.emplace_back();
    std::deque<int> queue{start};
    component[start] = id;
    while (!queue.empty()) {
      const int n = queue.front();
      queue.pop_front();
      members[id].push_back(n);
      for (int c : f.nodes[n].cables) {
        const int peer = f.cables[c].other_end(n);
        if (component[peer] == kNone) {
          component[peer] = id;
          queue.push_back(peer);
        }
      }
    }
  }
  if (members.size() < 2) return warnings;
  // Each subnet (rail plane) is one fabric of its own: its largest part is not an island.
  std::map<int, std::size_t> main;  // plane -> its largest part
  for (std::size_t k = 0; k < members.size(); ++k) {
    const int plane = f.nodes[members[k].front()].plane;
    const auto it = main.find(plane);
    if (it == main.end() || members[k].size() > members[it->second].size()) main[plane] = k;
  }
  for (std::size_t k = 0; k < members.size(); ++k) {
    if (main.at(f.nodes[members[k].front()].plane) == k) continue;
    int switches = 0;
    std::vector<std::string> names;
    for (int n : members[k]) {
      switches += f.is_switch(n) ? 1 : 0;
      names.push_back(f.nodes[n].name);
    }
    std::sort(names.begin(), names.end());
    warnings.push_back(format_warning(
        WarningKind::Island,
        fmt::format("{} switch(es) and {} other node(s) are not connected to the rest of the fabric: {}",
                    switches, members[k].size() - static_cast<std::size_t>(switches), join_some(names))));
  }
  return warnings;
}

}  // namespace fabricfit::passes
