// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/domain_fragmentation.hpp"

namespace fabricfit {

DomainFragmentation measure_domain_fragmentation(const LocalityIndex& index, const GpuState& gpus) {
  DomainFragmentation out;
  out.domains.resize(static_cast<std::size_t>(index.domain_count()));
  for (int d = 0; d < index.domain_count(); ++d) {
    DomainFreeCapacity& c = out.domains[static_cast<std::size_t>(d)];
    const auto hosts = index.hosts_of_domain(d);
    c.hosts = static_cast<int>(hosts.size());
    for (const int h : hosts) {
      // A host the GPU state does not cover has nothing free: its domain is never whole.
      if (h >= gpus.host_count()) continue;
      c.whole_free_hosts += gpus.whole_free(h) ? 1 : 0;
      c.free_gpus += gpus.free[h];
      c.total_gpus += gpus.total[h];
    }
    out.whole_free_hosts += c.whole_free_hosts;
    if (c.whole_free_hosts == c.hosts) {
      ++out.whole_free_domains;
      out.whole_free_domain_hosts += c.hosts;
    }
    out.half_domain_jobs += c.whole_free_hosts / ((c.hosts + 1) / 2);
  }
  return out;
}

}  // namespace fabricfit
