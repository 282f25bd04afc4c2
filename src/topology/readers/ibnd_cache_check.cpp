// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/readers/ibnd_cache_check.hpp"

#include <fmt/format.h>
#include <array>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "topology/readers/reader_error.hpp"

namespace fabricfit {
namespace {

// The cache layout (libibnetdisc's ibnetdisc_cache.c, little-endian): a 28-byte header, the
// nodes (207 bytes each, then 9 bytes per port key), then the ports (95 bytes each).
constexpr std::uint32_t kMagic = 0x8FE7832B;
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kHeaderLen = 28;
constexpr std::size_t kSmpData = 64;
constexpr std::size_t kNodeLen = 15 + 3 * kSmpData;
constexpr std::size_t kNodeGuidAt = 4 + kSmpData;  // after smalid, smalmc, enhsp0, switchinfo
constexpr std::size_t kNodeNumPortsAt = kNodeGuidAt + 9;
constexpr std::size_t kNodeKeyCountAt = kNodeLen - 1;
constexpr std::size_t kKeyLen = 9;
constexpr std::size_t kPortLen = 31 + kSmpData;
constexpr std::size_t kPortLmcAt = 12;
constexpr std::size_t kPortNodeGuidAt = 13 + kSmpData;
// InfiniBand's LMC is a 3-bit field: a port answers to at most 2^7 LIDs.
constexpr unsigned kMaxLmc = 7;

using PortKey = std::pair<std::uint64_t, unsigned>;  // port GUID, port number

class Bytes {
 public:
  Bytes(std::span<const std::uint8_t> b, const std::string& path) : b_(b), path_(path) {}

  [[nodiscard]] std::uint64_t le(std::size_t at, int n) const {
    std::uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | b_[at + static_cast<std::size_t>(i)];
    return v;
  }
  [[nodiscard]] bool has(std::size_t at, std::size_t n) const {
    return at <= b_.size() && n <= b_.size() - at;
  }
  [[noreturn]] void fail(std::size_t at, const std::string& why) const {
    throw DiscoveryError(fmt::format("{}: byte {}: {}", path_, at, why));
  }

 private:
  std::span<const std::uint8_t> b_;
  const std::string& path_;
};

struct CachedNode {
  std::uint64_t guid = 0;
  unsigned ports = 0;
  std::size_t at = 0;
  std::vector<PortKey> keys;
};

}  // namespace

void check_ibnd_cache(std::span<const std::uint8_t> bytes, const std::string& path) {
  const Bytes in(bytes, path);
  if (!in.has(0, kHeaderLen))
    in.fail(0,
            fmt::format("{} bytes, shorter than an ibnd cache's {}-byte header", bytes.size(), kHeaderLen));
  if (const auto magic = in.le(0, 4); magic != kMagic)
    in.fail(0, fmt::format("not an ibnd cache (magic 0x{:08X}, not 0x{:08X})", magic, kMagic));
  if (const auto version = in.le(4, 4); version != kVersion)
    in.fail(4, fmt::format("ibnd cache version {}; libibnetdisc reads version {}", version, kVersion));
  const auto node_count = in.le(8, 4);
  const auto port_count = in.le(12, 4);
  const auto from_guid = in.le(16, 8);

  std::size_t at = kHeaderLen;
  std::vector<CachedNode> nodes;
  for (std::uint64_t i = 0; i < node_count; ++i) {
    if (!in.has(at, kNodeLen))
      in.fail(at, fmt::format("the header counts {} nodes, the file ends in node {}", node_count, i + 1));
    CachedNode n{in.le(at + kNodeGuidAt, 8), static_cast<unsigned>(in.le(at + kNodeNumPortsAt, 1)), at, {}};
    const auto keys = static_cast<std::size_t>(in.le(at + kNodeKeyCountAt, 1));
    at += kNodeLen;
    if (!in.has(at, keys * kKeyLen))
      in.fail(at, fmt::format("node 0x{:016x} lists {} ports, the file ends first", n.guid, keys));
    for (std::size_t k = 0; k < keys; ++k, at += kKeyLen) {
      const PortKey key{in.le(at, 8), static_cast<unsigned>(in.le(at + 8, 1))};
      // libibnetdisc stores the port at index portnum of an array of numports + 1.
      if (key.second > n.ports)
        in.fail(at,
                fmt::format("node 0x{:016x} has {} ports but lists port {}", n.guid, n.ports, key.second));
      n.keys.push_back(key);
    }
    nodes.push_back(std::move(n));
  }

  std::set<std::uint64_t> node_guids;
  for (const auto& n : nodes) node_guids.insert(n.guid);
  std::map<PortKey, std::pair<std::size_t, std::uint64_t>> ports;  // key -> its offset, its node
  std::vector<std::pair<PortKey, std::size_t>> remotes;
  for (std::uint64_t i = 0; i < port_count; ++i) {
    if (!in.has(at, kPortLen))
      in.fail(at, fmt::format("the header counts {} ports, the file ends in port {}", port_count, i + 1));
    const PortKey key{in.le(at, 8), static_cast<unsigned>(in.le(at + 8, 1))};
    if (const auto lmc = in.le(at + kPortLmcAt, 1); lmc > kMaxLmc)
      in.fail(at + kPortLmcAt, fmt::format("port 0x{:016x}/{} has LMC {}; an LMC is at most {}", key.first,
                                           key.second, lmc, kMaxLmc));
    const auto owner = in.le(at + kPortNodeGuidAt, 8);
    if (!node_guids.contains(owner))
      in.fail(at + kPortNodeGuidAt,
              fmt::format("port 0x{:016x}/{} belongs to node 0x{:016x}, which the cache does not hold",
                          key.first, key.second, owner));
    if (ports.contains(key))
      in.fail(at, fmt::format("port 0x{:016x}/{} is there twice", key.first, key.second));
    if (in.le(at + kPortNodeGuidAt + 8, 1) != 0)
      remotes.emplace_back(PortKey{in.le(at + kPortNodeGuidAt + 9, 8),
                                   static_cast<unsigned>(in.le(at + kPortNodeGuidAt + 17, 1))},
                           at + kPortNodeGuidAt + 9);
    ports.emplace(key, std::make_pair(at, owner));
    at += kPortLen;
  }
  if (at != bytes.size())
    in.fail(at, fmt::format("{} bytes after the last of the {} nodes and {} ports the header counts",
                            bytes.size() - at, node_count, port_count));

  if (!node_guids.contains(from_guid))
    in.fail(16, fmt::format("the discovery's first node 0x{:016x} is not among the nodes", from_guid));
  // libibnetdisc frees a port no node lists when it has loaded the file, though a link
  // may still lead to it (a use after free): every port belongs to exactly one node's list,
  // its owner's.
  std::set<PortKey> listed;
  for (const auto& n : nodes) {
    for (const auto& key : n.keys) {
      const auto port = ports.find(key);
      if (port == ports.end())
        in.fail(n.at, fmt::format("node 0x{:016x} lists port 0x{:016x}/{}, which the cache does not hold",
                                  n.guid, key.first, key.second));
      if (port->second.second != n.guid)
        in.fail(n.at, fmt::format("node 0x{:016x} lists port 0x{:016x}/{}, which belongs to node 0x{:016x}",
                                  n.guid, key.first, key.second, port->second.second));
      if (!listed.insert(key).second)
        in.fail(n.at, fmt::format("port 0x{:016x}/{} is listed twice", key.first, key.second));
    }
  }
  for (const auto& [key, where] : ports) {
    if (!listed.contains(key))
      in.fail(where.first, fmt::format("port 0x{:016x}/{} is listed by no node", key.first, key.second));
  }
  for (const auto& [key, where] : remotes) {
    if (!ports.contains(key))
      in.fail(where, fmt::format("a link leads to port 0x{:016x}/{}, which the cache does not hold",
                                 key.first, key.second));
  }
}

void check_ibnd_cache_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw DiscoveryError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  // In blocks, not an istreambuf_iterator a byte at a time: that was most of the time of
  // loading a cache (and of each fuzz_ibnd_cache execution).
  std::vector<std::uint8_t> bytes;
  std::array<char, 16384> block{};
  while (file) {
    file.read(block.data(), block.size());
    bytes.insert(bytes.end(), block.begin(), block.begin() + file.gcount());
  }
  if (file.bad()) throw DiscoveryError(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  check_ibnd_cache(bytes, path);
}

}  // namespace fabricfit
