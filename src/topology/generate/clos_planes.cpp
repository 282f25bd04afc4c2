// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/generate/clos_planes.hpp"

#include <fmt/format.h>
#include <filesystem>

#include "topology/generate/clos_generator.hpp"

namespace fabricfit {

std::string PlaneOf::switch_name(const std::string& name) const {
  return set ? fmt::format("{}-r{}", name, rail) : name;
}

std::vector<std::string> generate_planes(const ClosSpec& spec) {
  validate(spec);
  if (spec.rails < 2) throw SpecError("--planes needs --rails 2 or more (one subnet per rail)");
  if (spec.extras.storage() || spec.extras.management_hosts > 0 || spec.extras.cross_tier_cables > 0) {
    throw SpecError("--planes does not take the storage, management or cross-tier options");
  }
  std::vector<std::string> out;
  for (int r = 0; r < spec.rails; ++r) {
    ClosSpec plane = spec;
    plane.rails = 1;
    plane.plane.rail = r;
    plane.plane.set = true;
    const int nodes = plane.host_count() + plane.leaf_groups() +
                      (plane.pods > 0 ? plane.pods : 1) * plane.spines +
                      (plane.pods > 0 ? (plane.cores > 0 ? plane.cores : plane.spines) : 0);
    if (nodes > kMaxUnicastLid) {
      throw SpecError(fmt::format("plane {} has {} nodes, more than a subnet's {} unicast LIDs", r, nodes,
                                  kMaxUnicastLid));
    }
    out.push_back(generate_ibnetdiscover(plane));
  }
  return out;
}

std::string plane_file_name(const std::string& output, int plane) {
  const std::filesystem::path p(output);
  const std::string ext = p.extension().string();
  std::filesystem::path stem = p;
  stem.replace_extension();
  return fmt::format("{}.plane{}{}", stem.string(), plane, ext);
}

}  // namespace fabricfit
