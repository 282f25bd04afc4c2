// SPDX-License-Identifier: GPL-2.0-or-later
// What `fabricfit generate` adds to a clean Clos to look like a site's fabric: a storage
// rail (storage leaves cabled to a spine or a core, storage servers, one storage HCA per
// host), management hosts (UFM, a host still called "localhost", an HCA with its
// firmware default description) and cables that skip a tier (leaf straight to a core).
// Kept apart from clos_generator.cpp, which calls add_clos_extras() once the Clos is laid.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fabricfit {

struct ClosSpec;

struct ClosExtras {
  int storage_servers = 0;    // "stor001 mlx5_0", ... on the storage leaves
  bool storage_hcas = false;  // every host gets HCA mlx5_<rails>, cabled to a storage leaf
  std::string storage_uplink =
      "spine";               // spine | core: what the storage leaves are cabled to (the first one)
  int storage_uplinks = 2;   // cables from each storage leaf to it
  int management_hosts = 0;  // ufm01, "localhost", firmware default, in turn
  std::string management_switch = "spine";  // leaf | spine | core: where they are cabled (the first one)
  int cross_tier_cables = 0;                // three-tier: cables from leaves straight to the cores
  [[nodiscard]] bool storage() const { return storage_servers > 0 || storage_hcas; }
};

// The generator's net as add_clos_extras() sees it.
class ClosNet {
 public:
  virtual ~ClosNet() = default;
  virtual int add_switch_node(std::uint64_t guid, const std::string& description) = 0;
  virtual int add_ca_node(std::uint64_t guid, std::uint64_t system_guid, const std::string& description) = 0;
  virtual void connect_nodes(int a, int port_a, int b, int port_b) = 0;
  virtual int next_free_port(int node) = 0;
  [[nodiscard]] virtual const std::vector<int>& leaves() const = 0;  // by group, then rail
  [[nodiscard]] virtual const std::vector<int>& spines() const = 0;  // by pod, then spine
  [[nodiscard]] virtual const std::vector<int>& cores() const = 0;
};

// Throws SpecError naming the option at fault.
void validate_extras(const ClosSpec& spec);

void add_clos_extras(const ClosSpec& spec, ClosNet& net);

// "; storage: 2 leaves to the core, 4 servers, ..." for the net file's header ("" when none).
[[nodiscard]] std::string describe_extras(const ClosSpec& spec);

}  // namespace fabricfit
