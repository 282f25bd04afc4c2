// SPDX-License-Identifier: GPL-2.0-or-later
// RawFabrics built in code for the model tests: a small builder, and Clos fabrics laid
// out as `fabricfit generate` lays them (same names, ports and GUID scheme).
#pragma once

#include <cstdint>
#include <string>

#include "topology/generate/clos_generator.hpp"
#include "topology/raw_fabric.hpp"

namespace fabricfit::testing {

class RawBuilder {
 public:
  int add_switch(const std::string& description, int nports = 64);
  int add_ca(const std::string& description, int nports = 1);
  int add_node(NodeType type, const std::string& description, int nports);
  // Both ends, as every reader gives them.
  void connect(int a, int port_a, int b, int port_b, LinkRate rate = LinkRate{4, "HDR"});
  // The next free port of a node.
  [[nodiscard]] int free_port(int node) const;
  RawFabric& raw() { return raw_; }
  [[nodiscard]] RawFabric take() { return std::move(raw_); }

 private:
  RawFabric raw_;
  std::uint64_t next_guid_ = 0x0002c90300000001ULL;
};

// The fabric `fabricfit generate` would write for `spec`.
[[nodiscard]] RawFabric make_clos(const ClosSpec& spec);

// The cable at node[port]: its rate on both ends.
void set_rate(RawFabric& raw, const std::string& node_description, int port, LinkRate rate);

// Removes the cable at node[port] from both ends (ibsim's Unlink).
void unlink(RawFabric& raw, const std::string& node_description, int port);

[[nodiscard]] int find_node(const RawFabric& raw, const std::string& description);

// Cables node a[port_a] to node b[port_b], both ends (ibsim's Link).
void link(RawFabric& raw, const std::string& a, int port_a, const std::string& b, int port_b,
          LinkRate rate = LinkRate{4, "HDR"});

// Adds a CA and cables its port 1 to switch[port].
int add_ca_on(RawFabric& raw, const std::string& description, const std::string& switch_description,
              int port);

}  // namespace fabricfit::testing
