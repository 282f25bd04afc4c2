// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/readers/fabric_source.hpp"

#include <fmt/format.h>
#include <fstream>

#include "topology/fabric_builder.hpp"
#include "topology/readers/ibnetdiscover_reader.hpp"

namespace fabricfit {
namespace {

// libibnetdisc's cache magic 0x8FE7832B, as the file stores it.
constexpr std::string_view kIbndCacheMagic{"\x2b\x83\xe7\x8f", 4};

}  // namespace

std::optional<SourceFormat> parse_source_format(const std::string& name) {
  if (name == "auto") return SourceFormat::Auto;
  if (name == "snapshot") return SourceFormat::Snapshot;
  if (name == "text") return SourceFormat::Text;
  if (name == "cache") return SourceFormat::Cache;
  return std::nullopt;
}

SourceFormat sniff_format(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ReaderError(fmt::format("{}: cannot open", path));
  char head[8] = {};
  in.read(head, sizeof head);
  const std::string_view prefix(head, static_cast<std::size_t>(in.gcount()));
  if (looks_like_snapshot(prefix)) return SourceFormat::Snapshot;
  if (prefix.starts_with(kIbndCacheMagic)) return SourceFormat::Cache;
  return SourceFormat::Text;
}

RawFabric read_raw(const std::string& source, SourceFormat format, const DiscoveryOptions& live) {
  if (source == "live") return discover_fabric(live);
  if (format == SourceFormat::Auto) format = sniff_format(source);
  switch (format) {
    case SourceFormat::Cache: return load_ibnd_cache(source);
    case SourceFormat::Text: return read_ibnetdiscover_file(source);
    case SourceFormat::Snapshot:
      throw ReaderError(fmt::format("{} is a fabricfit snapshot, not a discovery to build one from", source));
    case SourceFormat::Auto: break;
  }
  return read_ibnetdiscover_file(source);
}

Snapshot read_fabric(const std::string& source, SourceFormat format, const ModelOptions& options,
                     const SnapshotInfo& built, const DiscoveryOptions& live) {
  if (source != "live" &&
      (format == SourceFormat::Snapshot ||
       (format == SourceFormat::Auto && sniff_format(source) == SourceFormat::Snapshot))) {
    return load_snapshot(source);
  }
  // Built in place: a Fabric assigned is a Fabric copied (see fabric_builder.cpp).
  return Snapshot{build_fabric(read_raw(source, format, live), options), built};
}

}  // namespace fabricfit
