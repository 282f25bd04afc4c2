// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/readers/ibnd_reader.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "topology/readers/ibnd_cache_check.hpp"
#include "topology/readers/ibnd_convert.hpp"

namespace fabricfit {
namespace {

struct FabricDeleter {
  void operator()(ibnd_fabric_t* fabric) const { ibnd_destroy_fabric(fabric); }
};
using FabricPtr = std::unique_ptr<ibnd_fabric_t, FabricDeleter>;

}  // namespace

std::string describe(const DiscoveryOptions& options) {
  std::string where = options.ca.empty() ? "the first CA" : options.ca;
  where += options.ca_port > 0 ? fmt::format(" port {}", options.ca_port) : " (first active port)";
  return "live discovery from " + where;
}

RawFabric discover_fabric(const DiscoveryOptions& options) {
  ibnd_config_t config{};
  config.max_smps = options.max_smps;
  config.timeout_ms = options.timeout_ms;
  config.retries = options.retries;
  // As ibnetdiscover does by default: ask Mellanox ports for their extended PortInfo,
  // which is the only place FDR10 shows.
  config.flags = IBND_CONFIG_MLX_EPI;

  // libibnetdisc takes a mutable name but does not change it.
  std::vector<char> ca(options.ca.begin(), options.ca.end());
  ca.push_back('\0');
  FabricPtr fabric(
      ibnd_discover_fabric(options.ca.empty() ? nullptr : ca.data(), options.ca_port, nullptr, &config));
  if (!fabric) {
    throw DiscoveryError(
        fmt::format("{} failed: no MAD port could be opened or the walk was aborted (libibnetdisc "
                    "prints the reason on standard error)",
                    describe(options)));
  }
  if (fabric->from_node == nullptr || fabric->nodes == nullptr) {
    throw DiscoveryError(fmt::format("{} found nothing: the first node did not answer", describe(options)));
  }
  return convert_ibnd_fabric(fabric.get(), describe(options));
}

RawFabric load_ibnd_cache(const std::string& path) {
  // ibnd_load_fabric reports a missing file only as NULL; say which it was.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw DiscoveryError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  // libibnetdisc trusts the file (see ibnd_cache_check.hpp): check it first.
  check_ibnd_cache_file(path);
  FabricPtr fabric(ibnd_load_fabric(path.c_str(), 0));
  if (!fabric) throw DiscoveryError(fmt::format("{}: not a readable ibnd cache file", path));
  if (fabric->nodes == nullptr) throw DiscoveryError(fmt::format("{}: the ibnd cache holds no nodes", path));
  return convert_ibnd_fabric(fabric.get(), "ibnd cache " + path);
}

}  // namespace fabricfit
