// SPDX-License-Identifier: GPL-2.0-or-later
// Fragmentation in NVLink-domain terms, the objective of Slurm's topology/block: how many
// domain-sized and half-domain-sized jobs of whole hosts the free hosts still hold. A job
// that one domain could hold must run inside one, so a free host is worth something only
// with enough free hosts beside it in its own domain: eight free hosts spread one per
// domain hold no 2-host domain job at all. docs/placement.md, "NVLink domains".
#pragma once

#include <vector>

#include "placement/gpu_state.hpp"
#include "placement/locality_index.hpp"

namespace fabricfit {

struct DomainFreeCapacity {
  int hosts = 0;
  int whole_free_hosts = 0;  // every GPU free: what a whole-node job needs
  int free_gpus = 0;
  int total_gpus = 0;
};

struct DomainFragmentation {
  std::vector<DomainFreeCapacity> domains;  // indexed like LocalityIndex domains
  // Domains with every host wholly free: the domain-sized jobs that still fit.
  int whole_free_domains = 0;
  // Sum over domains of (wholly free hosts / half the domain's hosts, rounded up): the
  // half-domain jobs that still fit, each inside one domain.
  int half_domain_jobs = 0;
  int whole_free_hosts = 0;  // in domains
  // The hosts of the wholly free domains: beside whole_free_hosts, the share of the free
  // capacity kept in whole domains, whatever the load (a policy that runs more has fewer
  // free domains, not a worse shape).
  int whole_free_domain_hosts = 0;
};

// No domains and zero counts on a fabric without domains. A host in no domain counts nowhere.
[[nodiscard]] DomainFragmentation measure_domain_fragmentation(const LocalityIndex& index,
                                                               const GpuState& gpus);

}  // namespace fabricfit
