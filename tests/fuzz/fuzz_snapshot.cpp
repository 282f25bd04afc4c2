// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target for the snapshot loader. Each input is tried as a whole file (header
// checks), and with its body re-wrapped in a header whose checksums are right, once for
// each format version read (1, and 2 with NVLink domains), so that the mutations reach the
// body decoder instead of stopping at the CRC. A loaded Fabric must be safe to walk and
// must encode back to what decodes to an equal Fabric.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/file_header.hpp"
#include "topology/snapshot.hpp"

namespace {

using fabricfit::FabricGraph;

void walk(const fabricfit::Fabric& f) {
  const std::size_t nv = boost::num_vertices(f.graph);
  std::size_t sum = 0;
  for (const auto& h : f.hosts) {
    for (auto v : h.hcas) {
      if (v != FabricGraph::null_vertex()) sum += f.graph[v].name.size();
    }
    if (h.leaf_group >= 0) sum += f.leaf_groups.at(static_cast<std::size_t>(h.leaf_group)).hosts.size();
  }
  for (const auto& g : f.leaf_groups) {
    for (int h : g.hosts) sum += f.hosts.at(static_cast<std::size_t>(h)).name.size();
    for (auto v : g.leaves) {
      if (v != FabricGraph::null_vertex() && v >= nv) std::abort();
    }
    if (g.pod >= 0) sum += f.pods.at(static_cast<std::size_t>(g.pod)).name.size();
  }
  for (std::size_t v = 0; v < nv; ++v) {
    const auto& p = f.graph[v];
    if (p.host >= 0) sum += f.hosts.at(static_cast<std::size_t>(p.host)).name.size();
    if (p.leaf_group >= 0) sum += f.leaf_groups.at(static_cast<std::size_t>(p.leaf_group)).name.size();
    if (p.pod >= 0) sum += f.pods.at(static_cast<std::size_t>(p.pod)).name.size();
  }
  for (auto [e, end] = boost::edges(f.graph); e != end; ++e) sum += f.graph[*e].rate.speed.size();
  std::vector<char> in_domain(f.hosts.size(), 0);
  for (const auto& d : f.nvlink_domains) {
    if (d.name.empty() || d.hosts.empty()) std::abort();
    for (int h : d.hosts) {
      if (in_domain.at(static_cast<std::size_t>(h)) != 0) std::abort();  // one domain per host
      in_domain[static_cast<std::size_t>(h)] = 1;
      sum += f.hosts[static_cast<std::size_t>(h)].name.size();
    }
  }
  if (sum == 1234567) std::abort();  // keeps the walk from being optimised away
}

void try_decode(std::string_view bytes) {
  try {
    const fabricfit::Snapshot s = fabricfit::decode_snapshot(bytes, "fuzz");
    walk(s.fabric);
    const std::string again = fabricfit::encode_snapshot(s.fabric, s.info);
    if (!(fabricfit::decode_snapshot(again, "fuzz again").fabric == s.fabric)) std::abort();
  } catch (const fabricfit::SnapshotError&) {
  }
}

std::string with_valid_header(std::string_view body, std::uint32_t version) {
  return fabricfit::encode_file_header(std::string_view("\x89"
                                                        "FFSNAP\n",
                                                        8),
                                       version, body) +
         std::string(body);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  try_decode(in);
  const std::string_view body =
      fabricfit::looks_like_snapshot(in) && in.size() >= fabricfit::kSnapshotHeaderBytes
          ? in.substr(fabricfit::kSnapshotHeaderBytes)
          : in;
  for (std::uint32_t v = fabricfit::kSnapshotOldestVersion; v <= fabricfit::kSnapshotVersion; ++v) {
    try_decode(with_valid_header(body, v));
  }
  return 0;
}
