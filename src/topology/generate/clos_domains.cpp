// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/generate/clos_domains.hpp"

#include <fmt/format.h>

namespace fabricfit {

std::vector<SlurmBlock> clos_nvlink_domains(const ClosSpec& spec, int hosts_per_domain) {
  validate(spec);
  if (hosts_per_domain < 1) throw SpecError("--nvl-domain-size must be at least 1");
  if (spec.hosts_per_leaf % hosts_per_domain != 0) {
    throw SpecError(fmt::format(
        "--nvl-domain-size {} does not divide --hosts-per-leaf {}: a domain's hosts are consecutive hosts "
        "of one leaf",
        hosts_per_domain, spec.hosts_per_leaf));
  }
  std::vector<SlurmBlock> out;
  // Host h is on leaf group h / hosts_per_leaf (clos_generator.cpp): consecutive runs of
  // hosts_per_domain never cross a leaf group when the size divides hosts_per_leaf.
  for (int first = 0; first < spec.host_count(); first += hosts_per_domain) {
    SlurmBlock b{.name = fmt::format("nvl{}", out.size()), .nodes = {}, .line = 0};
    for (int h = first; h < first + hosts_per_domain; ++h) b.nodes.push_back(spec.host_name(h));
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace fabricfit
