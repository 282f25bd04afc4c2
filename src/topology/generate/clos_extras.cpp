// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/generate/clos_extras.hpp"

#include <fmt/format.h>

#include "topology/generate/clos_generator.hpp"

namespace fabricfit {
namespace {

constexpr std::uint64_t kGuidBase = 0x0002c90300000000ULL;  // as clos_generator.cpp
constexpr std::uint64_t kStorageLeafTag = 0x04000000, kStorageHcaTag = 0x30000000;
constexpr std::uint64_t kServerTag = 0x40000000, kManagementTag = 0x50000000;

void require(bool ok, const std::string& message) {
  if (!ok) throw SpecError(message);
}

int pick(const std::vector<int>& nodes, const std::string& what, const char* option) {
  require(!nodes.empty(),
          fmt::format("{} needs a {} switch (a three-tier fabric for a core: --pods)", option, what));
  return nodes.front();
}

int uplink_target(const ClosSpec& spec, ClosNet& net) {
  const ClosExtras& x = spec.extras;
  return x.storage_uplink == "core" ? pick(net.cores(), "core", "--storage-uplink")
                                    : pick(net.spines(), "spine", "--storage-uplink");
}

}  // namespace

void validate_extras(const ClosSpec& spec) {
  const ClosExtras& x = spec.extras;
  require(x.storage_servers >= 0, "--storage-servers must not be negative");
  require(x.storage_uplink == "spine" || x.storage_uplink == "core",
          "--storage-uplink must be spine or core");
  require(x.storage_uplink != "core" || spec.pods > 0,
          "--storage-uplink=core needs --pods (a three-tier fabric)");
  require(x.storage_uplinks >= 1, "--storage-uplinks must be at least 1");
  require(x.storage_uplinks < spec.switch_ports, "--storage-uplinks leaves a storage leaf no port for CAs");
  require(x.storage_hcas ? spec.rails < 8 : true,
          "--storage-hcas needs fewer than 8 rails (HCA mlx5_<rails>)");
  require(x.management_hosts >= 0, "--management-hosts must not be negative");
  require(x.management_switch == "leaf" || x.management_switch == "spine" || x.management_switch == "core",
          "--management-switch must be leaf, spine or core");
  require(x.management_switch != "core" || spec.pods > 0,
          "--management-switch=core needs --pods (a three-tier fabric)");
  require(x.cross_tier_cables >= 0, "--cross-tier-cables must not be negative");
  require(x.cross_tier_cables == 0 || spec.pods > 0,
          "--cross-tier-cables needs --pods (a three-tier fabric)");
}

void add_clos_extras(const ClosSpec& spec, ClosNet& net) {
  const ClosExtras& x = spec.extras;
  if (x.storage()) {
    // Storage leaves: as many as the storage CAs need, each cabled to one spine or core.
    const int cas = x.storage_servers + (x.storage_hcas ? spec.host_count() : 0);
    const int per_leaf = spec.switch_ports - x.storage_uplinks;
    const int leaves = (cas + per_leaf - 1) / per_leaf;
    const int up = uplink_target(spec, net);
    std::vector<int> storage;
    for (int l = 0; l < leaves; ++l) {
      const int leaf = net.add_switch_node(kGuidBase | kStorageLeafTag | static_cast<std::uint64_t>(l),
                                           fmt::format("ib-storage-leaf-{:02d}", l + 1));
      storage.push_back(leaf);
      for (int u = 0; u < x.storage_uplinks; ++u) {
        net.connect_nodes(leaf, per_leaf + 1 + u, up, net.next_free_port(up));
      }
    }
    int slot = 0;
    const auto cable = [&](int ca) {
      net.connect_nodes(ca, 1, storage[slot / per_leaf], (slot % per_leaf) + 1);
      ++slot;
    };
    for (int s = 0; s < x.storage_servers; ++s) {
      const auto guid = kGuidBase | kServerTag | (static_cast<std::uint64_t>(s) << 4);
      cable(net.add_ca_node(guid, guid, fmt::format("stor{:03d} mlx5_0", s + 1)));
    }
    if (x.storage_hcas) {
      for (int h = 0; h < spec.host_count(); ++h) {
        const auto guid = kGuidBase | kStorageHcaTag | (static_cast<std::uint64_t>(h) << 4);
        const auto image =
            kGuidBase | 0x20000000 | static_cast<std::uint64_t>(h);  // the host's, as the generator
        cable(net.add_ca_node(guid, image, fmt::format("{} mlx5_{}", spec.host_name(h), spec.rails)));
      }
    }
  }
  if (x.management_hosts > 0) {
    const int sw = x.management_switch == "leaf"   ? pick(net.leaves(), "leaf", "--management-switch")
                   : x.management_switch == "core" ? pick(net.cores(), "core", "--management-switch")
                                                   : pick(net.spines(), "spine", "--management-switch");
    for (int m = 0; m < x.management_hosts; ++m) {
      const auto guid = kGuidBase | kManagementTag | (static_cast<std::uint64_t>(m) << 4);
      std::string desc;
      switch (m % 3) {
        case 0: desc = fmt::format("ufm{:02d} mlx5_0", m / 3 + 1); break;
        case 1: desc = "localhost mlx5_0"; break;
        default: desc = "MT4123 ConnectX6   Mellanox Technologies"; break;
      }
      net.connect_nodes(net.add_ca_node(guid, guid, desc), 1, sw, net.next_free_port(sw));
    }
  }
  const auto& cores = net.cores();
  for (int k = 0; k < x.cross_tier_cables; ++k) {
    const int leaf = net.leaves()[k % static_cast<int>(net.leaves().size())];
    const int core = cores[k % static_cast<int>(cores.size())];
    net.connect_nodes(leaf, net.next_free_port(leaf), core, net.next_free_port(core));
  }
}

std::string describe_extras(const ClosSpec& spec) {
  const ClosExtras& x = spec.extras;
  std::string out;
  if (x.storage()) {
    out += fmt::format("; storage rail to the first {} ({} server(s){})", x.storage_uplink, x.storage_servers,
                       x.storage_hcas ? fmt::format(", HCA mlx5_{} of every host", spec.rails) : "");
  }
  if (x.management_hosts > 0) {
    out += fmt::format("; {} management host(s) on the first {}", x.management_hosts, x.management_switch);
  }
  if (x.cross_tier_cables > 0) out += fmt::format("; {} leaf-to-core cable(s)", x.cross_tier_cables);
  return out;
}

}  // namespace fabricfit
