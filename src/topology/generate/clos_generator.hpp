// SPDX-License-Identifier: GPL-2.0-or-later
// Synthetic Clos fabrics in ibnetdiscover format (which ibsim also reads), for the
// lab, the tests and the benchmarks.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "topology/generate/clos_extras.hpp"
#include "topology/generate/clos_planes.hpp"
#include "topology/generate/clos_variants.hpp"
#include "topology/link_rate.hpp"

namespace fabricfit {

struct ClosSpec {
  int pods = 0;    // 0: two-tier leaf-spine; N: three-tier, N pods under core switches
  int leaves = 4;  // leaf groups (per pod when three-tier); one leaf per rail in each
  int hosts_per_leaf = 8;
  int spines = 2;        // spine switches (per pod when three-tier)
  int uplinks = 0;       // cables from each leaf to its spines; 0 = hosts_per_leaf (1:1)
  int rails = 1;         // HCAs per host; HCA r is cabled to the rail-r leaf of its group
  int cores = 0;         // core switches (three-tier); 0 = as many as spines per pod
  int core_uplinks = 0;  // cables from each spine to the cores; 0 = its downlinks (1:1)
  int switch_ports = 64;
  LinkRate rate;
  std::string host_prefix = "gpu";
  int host_digits = 3;
  int first_host = 1;
  ClosExtras extras;  // storage rail, management hosts, cross-tier cables (clos_extras.hpp)
  PlaneOf plane;      // one rail plane of a multi-subnet fabric (clos_planes.hpp)
  // Fabrics that are not healthy 1:1 (clos_variants.hpp).
  double oversubscription = 0;       // leaf hosts : uplinks; 0: --uplinks decides
  double core_oversubscription = 0;  // three-tier spine downlinks : core uplinks; 0: --core-uplinks
  std::vector<UplinkDegradation> degraded;

  [[nodiscard]] int leaf_groups() const { return (pods > 0 ? pods : 1) * leaves; }
  [[nodiscard]] int host_count() const { return leaf_groups() * hosts_per_leaf; }
  [[nodiscard]] int leaf_uplinks() const { return uplinks > 0 ? uplinks : hosts_per_leaf; }
  [[nodiscard]] std::string host_name(int index) const;  // index from 0
};

class SpecError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Checks the spec and throws SpecError naming the option at fault.
void validate(const ClosSpec& spec);

// The fabric as ibnetdiscover would print it. Throws SpecError.
[[nodiscard]] std::string generate_ibnetdiscover(const ClosSpec& spec);

// The hosts as a Slurm node list, e.g. "gpu[001-032]".
[[nodiscard]] std::string slurm_node_list(const ClosSpec& spec);

// "gpu[001-032]" for prefix "gpu", 3 digits, 1..32; "gpu007" when first == last.
[[nodiscard]] std::string format_range(const std::string& prefix, int digits, int first, int last);

}  // namespace fabricfit
