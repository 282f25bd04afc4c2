// SPDX-License-Identifier: GPL-2.0-or-later
// Pass 6: Tiers + LeafGroups -> Pods. On a three-tier fabric, the blocks of compute
// leaves and spines under the cores: leaves and spines joined by cables, and the leaves
// of one leaf group (its rails may be separate subnets), named pod-01, pod-02, ... in
// the order of their first spine's name. Service leaves (storage, management) join no
// pod, so a storage leaf cabled to the spines of two pods does not merge them.
#include <fmt/format.h>
#include <algorithm>
#include <map>

#include "topology/passes/passes.hpp"

namespace fabricfit::passes {

Pods derive_pods(const ClassifiedFabric& f, const Tiers& tiers, const LeafGroups& groups) {
  Pods out;
  out.of.assign(f.count(), kNone);
  if (tiers.levels < 3) return out;
  std::map<int, int> parent;
  const auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  const auto join = [&](int a, int b) {
    const int ra = find(a), rb = find(b);
    if (ra != rb) parent[std::max(ra, rb)] = std::min(ra, rb);
  };
  for (int i = 0; i < f.count(); ++i) {
    if (!f.is_switch(i)) continue;
    if ((tiers.of[i] == SwitchTier::Leaf && tiers.compute_leaf[i]) || tiers.of[i] == SwitchTier::Spine)
      parent[i] = i;
  }
  for (const Cable& c : f.cables) {
    if (parent.contains(c.a) && parent.contains(c.b)) join(c.a, c.b);
  }
  for (const auto& leaves : groups.leaves) {
    int first = kNone;
    for (int l : leaves) {
      if (l == kNone || !parent.contains(l)) continue;
      if (first == kNone)
        first = l;
      else
        join(first, l);
    }
  }
  std::map<int, std::vector<int>> spines_by_root;
  for (const auto& [s, p] : parent) {
    if (tiers.of[s] == SwitchTier::Spine) spines_by_root[find(s)].push_back(s);
  }
  std::vector<std::pair<std::string, int>> roots;  // first spine name -> root
  for (auto& [root, spines] : spines_by_root) {
    std::sort(spines.begin(), spines.end(), [&](int x, int y) { return f.nodes[x].name < f.nodes[y].name; });
    roots.emplace_back(f.nodes[spines.front()].name, root);
  }
  std::sort(roots.begin(), roots.end());
  std::map<int, int> pod_of_root;
  for (const auto& [name, root] : roots) pod_of_root[root] = out.count++;
  for (const auto& [s, p] : parent) {
    const auto it = pod_of_root.find(find(s));
    if (it != pod_of_root.end()) out.of[s] = it->second;
  }
  return out;
}

}  // namespace fabricfit::passes
