// SPDX-License-Identifier: GPL-2.0-or-later
// Layout (docs/health-format.md): a 32-byte header, then the body.
//   header: magic "\x89FFHLTH\n" | u32 version | u32 flags (0) | u64 body bytes |
//           u32 CRC-32C of the body | u32 CRC-32C of the 28 header bytes before it
#include "health/health_file.hpp"

#include <fmt/format.h>
#include <cerrno>
#include <cstring>

#include "common/atomic_file.hpp"
#include "common/byte_io.hpp"
#include "common/crc32c.hpp"
#include "common/file_header.hpp"

namespace fabricfit {
namespace {

constexpr std::string_view kMagic{
    "\x89"
    "FFHLTH\n",
    8};
// The fewest bytes each record can take, so that a count is checked against what is left.
constexpr std::size_t kMinPort = 8 + 4 + 1 + 8 + 1 + 2 + 2 + 1 + 2 + 1 + 4 + 4;
constexpr std::size_t kMinEvidence = 4 + 8 + 4 + 8 + 8 + 4;
constexpr std::size_t kMinLink = 8 + 4 + 4 + 8 + 4 + 4 + 4 + 1 + 8 + 4;
constexpr std::size_t kMinNvlink = 4 + 1 + 8 + 4 + 4;

void put_evidence(ByteWriter& w, const std::vector<Evidence>& list) {
  w.u32(static_cast<std::uint32_t>(list.size()));
  for (const auto& e : list) {
    w.str(e.counter);
    w.f64(e.rate);
    w.str(e.unit);
    w.f64(e.threshold);
    w.i64(e.since_unix);
    w.str(e.at);
  }
}

std::vector<Evidence> get_evidence(ByteReader& r) {
  std::vector<Evidence> list(r.count(kMinEvidence, "evidence records"));
  for (auto& e : list) {
    e.counter = r.str();
    e.rate = r.f64();
    e.unit = r.str();
    e.threshold = r.f64();
    e.since_unix = r.i64();
    e.at = r.str();
  }
  return list;
}

HealthState get_state(ByteReader& r) {
  const std::size_t at = r.offset();
  const std::uint8_t s = r.u8();
  if (s > static_cast<std::uint8_t>(HealthState::Down))
    throw DecodeError(at, fmt::format("state {} is not a health state", s));
  return static_cast<HealthState>(s);
}

void put_port(ByteWriter& w, const PortHealth& p) {
  w.u64(p.id.guid);
  w.i32(p.id.port);
  w.u8(static_cast<std::uint8_t>(p.state));
  w.i64(p.since_unix);
  w.u8(static_cast<std::uint8_t>(p.pending));
  w.u32(static_cast<std::uint32_t>(p.pending_sweeps) | static_cast<std::uint32_t>(p.clear_sweeps) << 16);
  w.u8(p.missed ? 1 : 0);
  w.u32(p.saturated);
  w.u8(p.last ? 1 : 0);
  if (p.last) {
    w.i64(p.last->time_unix_ms);
    for (std::size_t i = 0; i < kCounterCount; ++i) {
      w.u8(p.last->bits[i]);
      w.u64(p.last->value[i]);
    }
  }
  w.u32(static_cast<std::uint32_t>(p.downed_unix.size()));
  for (const auto t : p.downed_unix) w.i64(t);
  put_evidence(w, p.evidence);
}

PortHealth get_port(ByteReader& r) {
  PortHealth p;
  p.id.guid = r.u64();
  p.id.port = r.i32();
  p.state = get_state(r);
  p.since_unix = r.i64();
  p.pending = get_state(r);
  const std::uint32_t sweeps = r.u32();
  p.pending_sweeps = static_cast<std::uint16_t>(sweeps & 0xffff);
  p.clear_sweeps = static_cast<std::uint16_t>(sweeps >> 16);
  p.missed = r.u8() != 0;
  p.saturated = static_cast<std::uint16_t>(r.u32());
  if (r.u8() != 0) {
    PortSample s;
    s.time_unix_ms = r.i64();
    for (std::size_t i = 0; i < kCounterCount; ++i) {
      const std::size_t at = r.offset();
      s.bits[i] = r.u8();
      if (s.bits[i] == 0 || s.bits[i] > 64)
        throw DecodeError(at, fmt::format("counter width {} is not 1..64", s.bits[i]));
      s.value[i] = r.u64();
    }
    p.last = s;
  }
  p.downed_unix.resize(r.count(8, "link-down events"));
  for (auto& t : p.downed_unix) t = r.i64();
  p.evidence = get_evidence(r);
  return p;
}

// Version 1 for a file without NVLink hosts: a slurmctld still on a fabricfit that reads
// only version 1 keeps placing by its links during a rolling upgrade.
std::uint32_t version_of(const HealthFile& h) {
  return h.nvlink_report.empty() && h.nvlink.empty() ? 1 : kHealthVersion;
}

std::string encode_body(const HealthFile& h) {
  ByteWriter w;
  w.i64(h.sweep_unix);
  w.u32(h.sweeps);
  w.str(h.snapshot);
  w.u32(static_cast<std::uint32_t>(h.missed.size()));
  for (const auto& m : h.missed) {
    w.u64(m.guid);
    w.i32(m.port);
  }
  w.u32(static_cast<std::uint32_t>(h.ports.size()));
  for (const auto& p : h.ports) put_port(w, p);
  w.u32(static_cast<std::uint32_t>(h.links.size()));
  for (const auto& l : h.links) {
    w.u64(l.a_guid);
    w.i32(l.a_port);
    w.str(l.a);
    w.u64(l.b_guid);
    w.i32(l.b_port);
    w.str(l.b);
    w.str(l.host);
    w.u8(static_cast<std::uint8_t>(l.state));
    w.i64(l.since_unix);
    put_evidence(w, l.evidence);
  }
  if (version_of(h) < 2) return std::move(w.bytes());
  w.str(h.nvlink_report);
  w.u32(static_cast<std::uint32_t>(h.nvlink.size()));
  for (const auto& n : h.nvlink) {
    w.str(n.host);
    w.u8(static_cast<std::uint8_t>(n.state));
    w.i64(n.since_unix);
    w.str(n.reason);
    w.str(n.at);
  }
  return std::move(w.bytes());
}

HealthFile decode_body(std::string_view body, std::uint32_t version) {
  ByteReader r(body);
  HealthFile h;
  h.sweep_unix = r.i64();
  h.sweeps = r.u32();
  h.snapshot = r.str();
  h.missed.resize(r.count(12, "missed ports"));
  for (auto& m : h.missed) {
    m.guid = r.u64();
    m.port = r.i32();
  }
  h.ports.resize(r.count(kMinPort, "ports"));
  for (auto& p : h.ports) p = get_port(r);
  h.links.resize(r.count(kMinLink, "links"));
  for (auto& l : h.links) {
    l.a_guid = r.u64();
    l.a_port = r.i32();
    l.a = r.str();
    l.b_guid = r.u64();
    l.b_port = r.i32();
    l.b = r.str();
    l.host = r.str();
    l.state = get_state(r);
    l.since_unix = r.i64();
    l.evidence = get_evidence(r);
  }
  if (version >= 2) {
    h.nvlink_report = r.str();
    h.nvlink.resize(r.count(kMinNvlink, "NVLink hosts"));
    for (auto& n : h.nvlink) {
      n.host = r.str();
      n.state = get_state(r);
      n.since_unix = r.i64();
      n.reason = r.str();
      n.at = r.str();
    }
  }
  if (r.remaining() != 0) {
    throw DecodeError(r.offset(), fmt::format("{} bytes after the last {}", r.remaining(),
                                              version >= 2 ? "NVLink host" : "link"));
  }
  return h;
}

}  // namespace

std::string encode_health(const HealthFile& health) {
  const std::string body = encode_body(health);
  return encode_file_header(kMagic, version_of(health), body) + body;
}

HealthFile decode_health(std::string_view bytes, const std::string& origin) {
  const auto fail = [&](const std::string& why) { return HealthFileError(origin + ": " + why); };
  if (bytes.substr(0, kMagic.size()) != kMagic) {
    throw fail(bytes.size() < kMagic.size() && kMagic.starts_with(bytes)
                   ? "truncated: the file ends inside the health header"
                   : "not a fabricfit health file (no health magic at the start)");
  }
  if (bytes.size() < kHealthHeaderBytes)
    throw fail(fmt::format("truncated: {} bytes, shorter than the {}-byte header", bytes.size(),
                           kHealthHeaderBytes));
  ByteReader header(bytes.substr(kMagic.size(), kHealthHeaderBytes - kMagic.size()));
  const std::uint32_t version = header.u32();
  const std::uint32_t flags = header.u32();
  const std::uint64_t body_size = header.u64();
  const std::uint32_t body_crc = header.u32();
  const std::uint32_t header_crc = header.u32();
  if (crc32c(bytes.substr(0, kHealthHeaderBytes - 4)) != header_crc)
    throw fail("corrupt header (checksum mismatch)");
  if (version != 1 && version != kHealthVersion) {
    throw fail(
        fmt::format("format version {}, this fabricfit reads versions 1 to {}", version, kHealthVersion));
  }
  if (flags != 0) throw fail(fmt::format("unknown flags {:#x} in the header", flags));
  const std::uint64_t have = bytes.size() - kHealthHeaderBytes;
  if (have < body_size)
    throw fail(
        fmt::format("truncated: the header announces {} bytes of body, the file has {}", body_size, have));
  if (have > body_size) throw fail(fmt::format("{} bytes after the body", have - body_size));
  const std::string_view body = bytes.substr(kHealthHeaderBytes);
  if (crc32c(body) != body_crc) throw fail("corrupt body (CRC-32C mismatch): the file was damaged");
  try {
    return decode_body(body, version);
  } catch (const DecodeError& e) {
    throw fail(fmt::format("malformed body {}", e.what()));
  }
}

void save_health(const std::filesystem::path& path, const HealthFile& health) {
  write_file_atomically(path, encode_health(health));
}

HealthFile load_health(const std::filesystem::path& path) {
  std::string bytes;
  if (!read_whole_file(path.c_str(), bytes))
    throw HealthFileError(fmt::format("{}: cannot read: {}", path.string(), std::strerror(errno)));
  return decode_health(bytes, path.string());
}

std::filesystem::path health_path_beside(const std::filesystem::path& snapshot) {
  auto p = snapshot;
  p.replace_extension(".health");
  return p;
}

}  // namespace fabricfit
