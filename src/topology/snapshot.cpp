// SPDX-License-Identifier: GPL-2.0-or-later
// Layout (docs/snapshot-format.md): a 32-byte header, then the body.
//   header: magic "\x89FFSNAP\n" | u32 version | u32 flags (0) | u64 body bytes |
//           u32 CRC-32C of the body | u32 CRC-32C of the 28 header bytes before it
//   body:   meta, vertices, edges, hosts, leaf groups, pods, degraded links, warnings,
//           and since version 2 NVLink domains (a version 1 body ends after the warnings).
// Every index read from the body is checked against what it indexes, so a loaded
// Fabric is safe to walk even if the body was forged with a valid checksum.
#include "topology/snapshot.hpp"

#include <fmt/format.h>
#include <cerrno>
#include <cstring>
#include <set>

#include "common/atomic_file.hpp"
#include "common/byte_io.hpp"
#include "common/crc32c.hpp"
#include "common/file_header.hpp"

namespace fabricfit {
namespace {

constexpr std::string_view kMagic{
    "\x89"
    "FFSNAP\n",
    8};
constexpr std::uint32_t kNoVertex = 0xFFFFFFFFu;

// ---- encoding ----

void put_rate(ByteWriter& w, const LinkRate& r) {
  w.u8(static_cast<std::uint8_t>(r.width));
  w.str(r.speed);
}

void put_vertex_ref(ByteWriter& w, Vertex v) {
  w.u32(v == FabricGraph::null_vertex() ? kNoVertex : static_cast<std::uint32_t>(v));
}

std::string encode_body(const Fabric& f, const SnapshotInfo& info) {
  ByteWriter w;
  w.str(info.producer);
  w.i64(info.created_unix);
  w.u32(static_cast<std::uint32_t>(info.options.size()));
  for (const auto& [k, v] : info.options) {
    w.str(k);
    w.str(v);
  }
  w.str(f.origin);
  w.u8(f.partial ? 1 : 0);
  w.i32(f.rails);
  w.i32(f.tiers);
  w.i32(f.sharp_nodes);

  const FabricGraph& g = f.graph;
  w.u32(static_cast<std::uint32_t>(boost::num_vertices(g)));
  for (std::size_t v = 0; v < boost::num_vertices(g); ++v) {
    const VertexProps& p = g[v];
    w.u8(static_cast<std::uint8_t>(p.kind));
    w.u8(static_cast<std::uint8_t>(p.tier));
    w.str(p.name);
    w.u64(p.guid);
    w.i32(p.rail);
    w.i32(p.host);
    w.i32(p.leaf_group);
    w.i32(p.pod);
  }
  w.u32(static_cast<std::uint32_t>(boost::num_edges(g)));
  for (auto [e, end] = boost::edges(g); e != end; ++e) {
    const LinkProps& l = g[*e];
    w.u32(static_cast<std::uint32_t>(boost::source(*e, g)));
    w.u32(static_cast<std::uint32_t>(boost::target(*e, g)));
    w.i32(l.port_a);
    w.i32(l.port_b);
    put_rate(w, l.rate);
    w.f64(l.gbps);
    w.f64(l.expected_gbps);
    w.u8(l.host_edge ? 1 : 0);
  }
  w.u32(static_cast<std::uint32_t>(f.hosts.size()));
  for (const Host& h : f.hosts) {
    w.str(h.name);
    w.i32(h.leaf_group);
    w.u32(static_cast<std::uint32_t>(h.hcas.size()));
    for (Vertex v : h.hcas) put_vertex_ref(w, v);
  }
  w.u32(static_cast<std::uint32_t>(f.leaf_groups.size()));
  for (const LeafGroup& lg : f.leaf_groups) {
    w.str(lg.name);
    w.u32(static_cast<std::uint32_t>(lg.hosts.size()));
    for (int h : lg.hosts) w.i32(h);
    w.u32(static_cast<std::uint32_t>(lg.leaves.size()));
    for (Vertex v : lg.leaves) put_vertex_ref(w, v);
    w.i32(lg.pod);
    w.f64(lg.down_gbps);
    w.f64(lg.up_gbps);
    w.i32(lg.uplinks);
    w.f64(lg.min_uplink_gbps);
    w.f64(lg.expected_up_gbps);
  }
  w.u32(static_cast<std::uint32_t>(f.pods.size()));
  for (const Pod& p : f.pods) {
    w.str(p.name);
    w.u32(static_cast<std::uint32_t>(p.leaf_groups.size()));
    for (int lg : p.leaf_groups) w.i32(lg);
    w.u32(static_cast<std::uint32_t>(p.spines.size()));
    for (Vertex v : p.spines) put_vertex_ref(w, v);
    w.f64(p.up_gbps);
    w.i32(p.uplinks);
    w.f64(p.min_uplink_gbps);
  }
  w.u32(static_cast<std::uint32_t>(f.degraded_links.size()));
  for (const DegradedLink& d : f.degraded_links) {
    w.str(d.a);
    w.i32(d.port_a);
    w.str(d.b);
    w.i32(d.port_b);
    w.f64(d.gbps);
    w.f64(d.expected_gbps);
    put_rate(w, d.rate);
    put_rate(w, d.expected_rate);
  }
  w.u32(static_cast<std::uint32_t>(f.warnings.size()));
  for (const std::string& s : f.warnings) w.str(s);
  if (f.nvlink_domains.empty()) return std::move(w.bytes());  // version 1: see encode_snapshot
  w.u32(static_cast<std::uint32_t>(f.nvlink_domains.size()));
  for (const NvlinkDomain& d : f.nvlink_domains) {
    w.str(d.name);
    w.u32(static_cast<std::uint32_t>(d.hosts.size()));
    for (int h : d.hosts) w.i32(h);
  }
  return std::move(w.bytes());
}

// ---- decoding ----

// Values read from the body, checked as they are read.
class BodyReader {
 public:
  explicit BodyReader(std::string_view body) : in_(body) {}
  ByteReader& in() { return in_; }

  int index(std::size_t size, const char* what, bool allow_none = true) {
    const std::size_t at = in_.offset();
    const std::int32_t v = in_.i32();
    if ((allow_none && v == -1) || (v >= 0 && static_cast<std::size_t>(v) < size)) return v;
    throw DecodeError(at, fmt::format("{} index {} out of range (0..{})", what, v, size));
  }
  Vertex vertex(std::size_t vertices, bool allow_none) {
    const std::size_t at = in_.offset();
    const std::uint32_t v = in_.u32();
    if (v == kNoVertex && allow_none) return FabricGraph::null_vertex();
    if (v < vertices) return v;
    throw DecodeError(at, fmt::format("vertex {} out of range ({} vertices)", v, vertices));
  }
  template <typename Enum>
  Enum enumeration(int last, const char* what) {
    const std::size_t at = in_.offset();
    const std::uint8_t v = in_.u8();
    if (v > last) throw DecodeError(at, fmt::format("{} {} is not known", what, v));
    return static_cast<Enum>(v);
  }
  LinkRate rate() {
    const std::size_t at = in_.offset();
    LinkRate r;
    r.width = in_.u8();
    r.speed = in_.str();
    if (r.width != 0 && r.width != 1 && r.width != 2 && r.width != 4 && r.width != 8 && r.width != 12) {
      throw DecodeError(at, fmt::format("link width {} is not an InfiniBand width", r.width));
    }
    return r;
  }
  double gbps() {
    const std::size_t at = in_.offset();
    const double v = in_.f64();
    if (!(v >= 0 && v < 1e7)) throw DecodeError(at, "capacity out of range");
    return v;
  }
  int small(const char* what, int limit = 1 << 20) {
    const std::size_t at = in_.offset();
    const std::int32_t v = in_.i32();
    if (v < 0 || v > limit) throw DecodeError(at, fmt::format("{} {} out of range", what, v));
    return v;
  }

 private:
  ByteReader in_;
};

// Smallest encoded sizes, to refuse counts the rest of the body cannot hold.
constexpr std::size_t kMinVertex = 1 + 1 + 4 + 8 + 4 * 4, kMinEdge = 4 * 4 + 1 + 4 + 8 + 8 + 1;
constexpr std::size_t kMinString = 4, kMinHost = 4 + 4 + 4, kMinGroup = 4 + 4 + 4 + 4 + 8 * 4 + 4;
constexpr std::size_t kMinPod = 4 + 4 + 4 + 8 + 4 + 8, kMinDegraded = 4 + 4 + 4 + 4 + 8 + 8 + 5 + 5;
constexpr std::size_t kMinDomain = 4 + 4;

// Version 2: named domains of hosts, each host in one at most, hosts ascending (what
// set_nvlink_domains makes), so that every loaded domain is one it would have accepted.
void decode_domains(BodyReader& r, Fabric& f) {
  ByteReader& in = r.in();
  const std::size_t nh = f.hosts.size();
  std::vector<char> taken(nh, 0);
  std::set<std::string, std::less<>> names;
  for (std::uint32_t n = in.count(kMinDomain, "NVLink domains"); n > 0; --n) {
    NvlinkDomain d;
    const std::size_t at = in.offset();
    d.name = in.str();
    if (d.name.empty()) throw DecodeError(at, "NVLink domain without a name");
    if (!names.insert(d.name).second) throw DecodeError(at, fmt::format("NVLink domain {} twice", d.name));
    const std::uint32_t k = in.count(4, "domain hosts");
    if (k == 0) throw DecodeError(at, fmt::format("NVLink domain {} has no hosts", d.name));
    for (std::uint32_t i = 0; i < k; ++i) {
      const std::size_t host_at = in.offset();
      const int h = r.index(nh, "host", false);
      if (!d.hosts.empty() && h <= d.hosts.back()) {
        throw DecodeError(host_at, fmt::format("NVLink domain {}: hosts not in ascending order", d.name));
      }
      if (taken[h] != 0) {
        throw DecodeError(host_at, fmt::format("host {} in two NVLink domains", f.hosts[h].name));
      }
      taken[h] = 1;
      d.hosts.push_back(h);
    }
    f.nvlink_domains.push_back(std::move(d));
  }
}

Snapshot decode_body(std::string_view body, std::uint32_t version) {
  BodyReader r(body);
  ByteReader& in = r.in();
  Snapshot s;
  SnapshotInfo& info = s.info;
  info.producer = in.str();
  info.created_unix = in.i64();
  for (std::uint32_t n = in.count(2 * kMinString, "options"); n > 0; --n) {
    std::string k = in.str();
    info.options.emplace_back(std::move(k), in.str());
  }
  Fabric& f = s.fabric;
  f.origin = in.str();
  f.partial = in.u8() != 0;
  f.rails = r.small("rail count", 1024);
  f.tiers = r.small("tier count", 3);
  f.sharp_nodes = r.small("SHARP node count");

  const std::uint32_t nv = in.count(kMinVertex, "vertices");
  // Indices into hosts, groups and pods are checked once their sizes are known.
  struct Refs {
    int host, leaf_group, pod;
    std::size_t at;
  };
  std::vector<Refs> refs;
  refs.reserve(nv);
  FabricGraph& g = f.graph;
  // Vertices added in place: assigning a FabricGraph(nv) would copy it (Boost 1.74's
  // adjacency_list has no move assignment).
  for (std::uint32_t v = 0; v < nv; ++v) boost::add_vertex(g);
  for (std::uint32_t v = 0; v < nv; ++v) {
    VertexProps& p = g[v];
    const std::size_t at = in.offset();
    p.kind = r.enumeration<VertexKind>(static_cast<int>(VertexKind::Other), "vertex kind");
    p.tier = r.enumeration<SwitchTier>(static_cast<int>(SwitchTier::Core), "switch tier");
    p.name = in.str();
    p.guid = in.u64();
    const std::size_t rail_at = in.offset();
    p.rail = in.i32();
    if (p.rail < -1 || p.rail >= std::max(f.rails, 1)) {
      throw DecodeError(rail_at, fmt::format("rail {} out of range ({} rails)", p.rail, f.rails));
    }
    p.host = in.i32();
    p.leaf_group = in.i32();
    p.pod = in.i32();
    refs.push_back({p.host, p.leaf_group, p.pod, at});
  }
  const std::uint32_t ne = in.count(kMinEdge, "edges");
  for (std::uint32_t e = 0; e < ne; ++e) {
    const Vertex a = r.vertex(nv, false);
    const Vertex b = r.vertex(nv, false);
    LinkProps l;
    l.port_a = r.small("port", 255);
    l.port_b = r.small("port", 255);
    l.rate = r.rate();
    l.gbps = r.gbps();
    l.expected_gbps = r.gbps();
    l.host_edge = in.u8() != 0;
    boost::add_edge(a, b, l, g);
  }
  const std::uint32_t nh = in.count(kMinHost, "hosts");
  f.hosts.resize(nh);
  std::vector<int> host_group(nh);
  for (Host& h : f.hosts) {
    h.name = in.str();
    h.leaf_group = in.i32();
    const std::uint32_t n = in.count(4, "host HCAs");
    if (n != static_cast<std::uint32_t>(f.rails)) {
      throw DecodeError(in.offset(),
                        fmt::format("host {} has {} HCA slots for {} rails", h.name, n, f.rails));
    }
    for (std::uint32_t k = 0; k < n; ++k) {
      const Vertex v = r.vertex(nv, true);
      if (v != FabricGraph::null_vertex() && g[v].kind != VertexKind::Hca) {
        throw DecodeError(in.offset(),
                          fmt::format("host {} lists vertex {} as an HCA, which it is not", h.name, v));
      }
      h.hcas.push_back(v);
    }
  }
  const std::uint32_t ng = in.count(kMinGroup, "leaf groups");
  f.leaf_groups.resize(ng);
  for (LeafGroup& lg : f.leaf_groups) {
    lg.name = in.str();
    for (std::uint32_t n = in.count(4, "group hosts"); n > 0; --n)
      lg.hosts.push_back(r.index(nh, "host", false));
    for (std::uint32_t n = in.count(4, "group leaves"); n > 0; --n) lg.leaves.push_back(r.vertex(nv, true));
    lg.pod = in.i32();
    lg.down_gbps = r.gbps();
    lg.up_gbps = r.gbps();
    lg.uplinks = r.small("uplink count");
    lg.min_uplink_gbps = r.gbps();
    lg.expected_up_gbps = r.gbps();
  }
  const std::uint32_t np = in.count(kMinPod, "pods");
  f.pods.resize(np);
  for (Pod& p : f.pods) {
    p.name = in.str();
    for (std::uint32_t n = in.count(4, "pod leaf groups"); n > 0; --n) {
      p.leaf_groups.push_back(r.index(ng, "leaf group", false));
    }
    for (std::uint32_t n = in.count(4, "pod spines"); n > 0; --n) p.spines.push_back(r.vertex(nv, false));
    p.up_gbps = r.gbps();
    p.uplinks = r.small("uplink count");
    p.min_uplink_gbps = r.gbps();
  }
  for (std::uint32_t n = in.count(kMinDegraded, "degraded links"); n > 0; --n) {
    DegradedLink d;
    d.a = in.str();
    d.port_a = r.small("port", 255);
    d.b = in.str();
    d.port_b = r.small("port", 255);
    d.gbps = r.gbps();
    d.expected_gbps = r.gbps();
    d.rate = r.rate();
    d.expected_rate = r.rate();
    f.degraded_links.push_back(std::move(d));
  }
  for (std::uint32_t n = in.count(kMinString, "warnings"); n > 0; --n) f.warnings.push_back(in.str());
  if (version >= 2) decode_domains(r, f);
  if (in.remaining() != 0)
    throw DecodeError(in.offset(), fmt::format("{} bytes after the end", in.remaining()));

  // Cross references, now that every table's size is known.
  const auto check = [](int v, std::size_t size, const char* what, std::size_t at) {
    if (v < -1 || (v >= 0 && static_cast<std::size_t>(v) >= size)) {
      throw DecodeError(at, fmt::format("{} index {} out of range (0..{})", what, v, size));
    }
  };
  for (const Refs& x : refs) {
    check(x.host, nh, "host", x.at);
    check(x.leaf_group, ng, "leaf group", x.at);
    check(x.pod, np, "pod", x.at);
  }
  for (const Host& h : f.hosts) check(h.leaf_group, ng, "leaf group", 0);
  for (const LeafGroup& lg : f.leaf_groups) {
    check(lg.pod, np, "pod", 0);
    if (lg.leaves.size() != static_cast<std::size_t>(std::max(f.rails, 1)) && !lg.leaves.empty()) {
      throw DecodeError(
          0, fmt::format("leaf group {} has {} leaves for {} rails", lg.name, lg.leaves.size(), f.rails));
    }
  }
  return s;
}

}  // namespace

std::string encode_snapshot(const Fabric& fabric, const SnapshotInfo& info) {
  // A fabric without NVLink domains is written as version 1, which every release reads:
  // a new `fabricfit discover` then never leaves an older slurmctld or slurmd (a rolling
  // upgrade) without its snapshot. Only domains need version 2.
  const std::string body = encode_body(fabric, info);
  return encode_file_header(kMagic, fabric.nvlink_domains.empty() ? 1 : kSnapshotVersion, body) + body;
}

bool looks_like_snapshot(std::string_view prefix) {
  return prefix.starts_with(kMagic);
}

Snapshot decode_snapshot(std::string_view bytes, const std::string& origin) {
  const auto fail = [&](const std::string& what) {
    return SnapshotError(fmt::format("{}: {}", origin, what));
  };
  if (!looks_like_snapshot(bytes)) {
    throw fail(bytes.size() < kMagic.size() && kMagic.starts_with(bytes)
                   ? "truncated: the file ends inside the snapshot header"
                   : "not a fabricfit snapshot (no snapshot magic at the start)");
  }
  if (bytes.size() < kSnapshotHeaderBytes) {
    throw fail(fmt::format("truncated: {} bytes, shorter than the {}-byte header", bytes.size(),
                           kSnapshotHeaderBytes));
  }
  ByteReader header(bytes.substr(kMagic.size(), kSnapshotHeaderBytes - kMagic.size()));
  const std::uint32_t version = header.u32();
  const std::uint32_t flags = header.u32();
  const std::uint64_t body_size = header.u64();
  const std::uint32_t body_crc = header.u32();
  const std::uint32_t header_crc = header.u32();
  const bool header_ok = crc32c(bytes.substr(0, kSnapshotHeaderBytes - 4)) == header_crc;
  if (version < kSnapshotOldestVersion || version > kSnapshotVersion) {
    throw fail(header_ok
                   ? fmt::format("format version {}; this fabricfit reads versions {} to {} only (rerun "
                                 "`fabricfit discover` with this version)",
                                 version, kSnapshotOldestVersion, kSnapshotVersion)
                   : fmt::format("corrupt header (checksum mismatch; version field reads {})", version));
  }
  if (!header_ok) throw fail("corrupt header (checksum mismatch)");
  if (flags != 0) throw fail(fmt::format("unknown flags {:#x} in the header", flags));
  const std::uint64_t have = bytes.size() - kSnapshotHeaderBytes;
  if (have < body_size) {
    throw fail(
        fmt::format("truncated: the header announces {} bytes of body, the file has {}", body_size, have));
  }
  if (have > body_size) {
    throw fail(fmt::format("{} unexpected bytes after the {}-byte body", have - body_size, body_size));
  }
  const std::string_view body = bytes.substr(kSnapshotHeaderBytes);
  if (crc32c(body) != body_crc) throw fail("corrupt body (CRC-32C mismatch): the file was damaged");
  try {
    return decode_body(body, version);
  } catch (const DecodeError& e) {
    throw fail(fmt::format("invalid body {}", e.what()));
  } catch (const std::bad_alloc&) {
    throw fail("invalid body: too large to load");
  }
}

void save_snapshot(const std::filesystem::path& path, const Fabric& fabric, const SnapshotInfo& info) {
  write_file_atomically(path, encode_snapshot(fabric, info));
}

namespace {

std::string read_snapshot_bytes(const std::filesystem::path& path) {
  std::string bytes;
  if (!read_whole_file(path.c_str(), bytes)) {
    throw SnapshotError(fmt::format("{}: cannot read: {}", path.string(), std::strerror(errno)));
  }
  return bytes;
}

void use_checked(const std::string& bytes, const std::filesystem::path& path, const SnapshotUse& use) {
  Snapshot snapshot = decode_snapshot(bytes, path.string());
  if (snapshot.fabric.hosts.empty()) {
    throw SnapshotError(fmt::format("{}: the fabric has no hosts", path.string()));
  }
  use(std::move(snapshot), path.string());
}

// Writes `bytes` to `last_good` unless it holds them already. Keeping a copy never makes
// the snapshot just used any worse: a failure to write it is ignored.
void keep_copy(const std::filesystem::path& last_good, const std::string& bytes) noexcept {
  try {
    std::error_code ec;
    const auto size = std::filesystem::file_size(last_good, ec);
    if (!ec && size == bytes.size()) {
      std::string old;
      if (read_whole_file(last_good.c_str(), old) && old == bytes) return;
    }
    write_file_atomically(last_good, bytes);
  } catch (...) {
  }
}

}  // namespace

Snapshot load_snapshot(const std::filesystem::path& path) {
  return decode_snapshot(read_snapshot_bytes(path), path.string());
}

LastGoodLoad load_snapshot_keeping_last_good(const std::filesystem::path& path,
                                             const std::filesystem::path& last_good, const SnapshotUse& use) {
  LastGoodLoad result;
  try {
    const std::string bytes = read_snapshot_bytes(path);
    use_checked(bytes, path, use);
    if (!last_good.empty()) keep_copy(last_good, bytes);
    return result;
  } catch (const SnapshotError& e) {
    if (last_good.empty()) throw;
    result.error = e.what();
  }
  try {
    use_checked(read_snapshot_bytes(last_good), last_good, use);
  } catch (const SnapshotError&) {
    throw SnapshotError(result.error);  // a damaged or foreign copy is no better than none
  }
  result.from_last_good = true;
  return result;
}

}  // namespace fabricfit
