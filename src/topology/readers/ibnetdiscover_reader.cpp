// SPDX-License-Identifier: GPL-2.0-or-later
// Puts the lines of a topology file together: guid lines go with the node header that
// follows them, port lines with the header above them, and every port line is checked
// against the line for the other end of its cable.
#include "topology/readers/ibnetdiscover_reader.hpp"

#include <fmt/format.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "topology/readers/ibnetdiscover_lines.hpp"
#include "topology/readers/raw_fabric_order.hpp"
#include "topology/readers/raw_link_rate.hpp"

namespace fabricfit {
namespace {

using netfile::GuidKind;
using netfile::GuidLine;
using netfile::HeaderLine;
using netfile::LineKind;
using netfile::PortLine;

struct TextPort {
  PortLine line;
  int source_line = 0;
  int peer = -1;  // node index, once linked
};

struct TextNode {
  HeaderLine header;
  int source_line = 0;
  std::uint64_t guid = 0;
  std::uint64_t system_guid = 0;
  std::uint64_t switch_port_guid = 0;
  int guid_line = 0;  // the switchguid=/caguid=/rtguid= line, 0 if none
  std::vector<TextPort> ports;
  std::vector<std::int16_t> slot;  // port number -> index into ports, -1 when not listed
};

// What guid lines have said about the next node.
struct PendingGuids {
  std::optional<GuidLine> node;
  int node_line = 0;
  std::uint64_t system_guid = 0;
  int system_line = 0;
  [[nodiscard]] bool empty() const { return !node && system_guid == 0; }
};

const char* guid_keyword(GuidKind kind) {
  switch (kind) {
    case GuidKind::Switch: return "switchguid=";
    case GuidKind::Ca: return "caguid=";
    case GuidKind::Router: return "rtguid=";
    case GuidKind::SystemImage: return "sysimgguid=";
  }
  return "?";
}

GuidKind guid_kind_for(NodeType type) {
  switch (type) {
    case NodeType::Switch: return GuidKind::Switch;
    case NodeType::Ca: return GuidKind::Ca;
    case NodeType::Router: return GuidKind::Router;
  }
  return GuidKind::Ca;
}

// ibnetdiscover names nodes "S-", "H-" or "R-" followed by the node GUID in 16 hex
// digits; a file without guid lines still tells the GUID that way.
std::optional<std::uint64_t> guid_from_id(std::string_view id, NodeType type) {
  const char letter = type == NodeType::Switch ? 'S' : type == NodeType::Ca ? 'H' : 'R';
  if (id.size() != 18 || id[0] != letter || id[1] != '-') return std::nullopt;
  std::uint64_t guid = 0;
  for (char c : id.substr(2)) {
    int digit = 0;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      return std::nullopt;
    }
    guid = (guid << 4) | static_cast<std::uint64_t>(digit);
  }
  return guid;
}

std::string printable(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  }
  return out;
}

class NetFileReader {
 public:
  NetFileReader(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  RawFabric read() {
    if (text_.substr(0, 4096).find('\0') != std::string_view::npos)
      fail(1, "binary data, not an ibnetdiscover topology (an ibnd cache file? read it as a cache)");
    read_lines();
    if (nodes_.empty()) fail(std::max(last_line_, 1), "no node records: not an ibnetdiscover topology");
    link_ports();
    check_port_guids();
    return build();
  }

 private:
  [[noreturn]] void fail(int line, const std::string& reason) const {
    throw ParseError(source_, line, reason);
  }

  std::string id_of(int node) const { return printable(nodes_[node].header.id); }

  void read_lines() {
    std::size_t pos = 0;
    int line_no = 0;
    while (pos < text_.size()) {
      const std::size_t newline = text_.find('\n', pos);
      const bool terminated = newline != std::string_view::npos;
      std::string_view line = text_.substr(pos, (terminated ? newline : text_.size()) - pos);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      ++line_no;
      netfile::ParsedLine parsed;
      try {
        parsed = netfile::parse_line(line);
      } catch (const netfile::LineError& e) {
        fail(line_no,
             terminated ? e.what() : std::string(e.what()) + " (the file ends inside this line: truncated?)");
      }
      on_line(parsed, line_no);
      pos = terminated ? newline + 1 : text_.size();
    }
    last_line_ = line_no;
    if (pending_.node) {
      fail(pending_.node_line, fmt::format("{} is not followed by a node header (truncated file?)",
                                           guid_keyword(pending_.node->kind)));
    }
    if (pending_.system_guid != 0)
      fail(pending_.system_line, "sysimgguid= is not followed by a node header (truncated file?)");
  }

  void on_line(const netfile::ParsedLine& parsed, int line) {
    switch (parsed.kind) {
      case LineKind::Comment: return;  // comments do not end a node record
      case LineKind::Port: on_port(parsed.port, line); return;
      case LineKind::Header: on_header(parsed.header, line); return;
      case LineKind::Guid: on_guid(parsed.guid, line); break;
      case LineKind::Blank:
      case LineKind::Ignored: break;
    }
    current_ = -1;
  }

  void on_guid(const GuidLine& guid, int line) {
    if (guid.kind == GuidKind::SystemImage) {
      if (pending_.system_guid != 0)
        fail(line,
             fmt::format("second sysimgguid= before a node header (first on line {})", pending_.system_line));
      pending_.system_guid = guid.guid;
      pending_.system_line = line;
      return;
    }
    if (pending_.node) {
      fail(line, fmt::format("second node GUID line before a node header ({} on line {})",
                             guid_keyword(pending_.node->kind), pending_.node_line));
    }
    pending_.node = guid;
    pending_.node_line = line;
  }

  void on_header(const HeaderLine& header, int line) {
    const int index = static_cast<int>(nodes_.size());
    TextNode node;
    node.header = header;
    node.source_line = line;
    node.slot.assign(static_cast<std::size_t>(header.nports) + 1, -1);

    const auto from_id = guid_from_id(header.id, header.type);
    if (pending_.node) {
      if (pending_.node->kind != guid_kind_for(header.type)) {
        fail(line, fmt::format("{} on line {} is followed by a {} header", guid_keyword(pending_.node->kind),
                               pending_.node_line, node_type_name(header.type)));
      }
      node.guid = pending_.node->guid;
      node.switch_port_guid = pending_.node->port_guid;
      node.guid_line = pending_.node_line;
      if (from_id && *from_id != node.guid) {
        fail(line, fmt::format("node id \"{}\" names GUID {:#x}, but {} on line {} says {:#x}",
                               id_of_text(header.id), *from_id, guid_keyword(pending_.node->kind),
                               pending_.node_line, node.guid));
      }
    } else if (from_id) {
      node.guid = *from_id;
    }
    node.system_guid = pending_.system_guid;
    pending_ = PendingGuids{};

    if (const auto [it, fresh] = ids_.try_emplace(header.id, index); !fresh) {
      fail(line, fmt::format("duplicate node id \"{}\" (first on line {})", id_of_text(header.id),
                             nodes_[it->second].source_line));
    }
    if (node.guid != 0) {
      if (const auto [it, fresh] = guids_.try_emplace(node.guid, index); !fresh) {
        fail(line, fmt::format("duplicate node GUID {:#x}: \"{}\" has it too (line {})", node.guid,
                               id_of(it->second), nodes_[it->second].source_line));
      }
    }
    nodes_.push_back(std::move(node));
    current_ = index;
  }

  void on_port(const PortLine& port, int line) {
    if (current_ < 0)
      fail(line, "port line outside a node record (no node header above it, or a blank line in between)");
    TextNode& node = nodes_[current_];
    if (port.number > node.header.nports) {
      fail(line, fmt::format("port {} of \"{}\" is beyond its {} ports", port.number, id_of(current_),
                             node.header.nports));
    }
    auto& slot = node.slot[static_cast<std::size_t>(port.number)];
    if (slot >= 0) {
      fail(line, fmt::format("port {} of \"{}\" is listed twice (first on line {})", port.number,
                             id_of(current_), node.ports[static_cast<std::size_t>(slot)].source_line));
    }
    slot = static_cast<std::int16_t>(node.ports.size());
    node.ports.push_back(TextPort{port, line, -1});
  }

  static std::string id_of_text(std::string_view id) { return printable(id); }

  // Both ends of every cable must name each other, agree on the rate, and agree on the
  // port GUIDs they print. A one-sided or inconsistent link is an error: ibnetdiscover
  // always writes both ends, so anything else is a damaged or hand-edited file.
  void link_ports() {
    for (int n = 0; n < static_cast<int>(nodes_.size()); ++n) {
      for (TextPort& port : nodes_[n].ports) {
        const PortLine& here = port.line;
        const auto found = ids_.find(here.peer_id);
        if (found == ids_.end()) {
          fail(port.source_line,
               fmt::format("port {} of \"{}\" is cabled to \"{}\"[{}], which has no node record "
                           "in the file (one-sided link; truncated file?)",
                           here.number, id_of(n), id_of_text(here.peer_id), here.peer_port));
        }
        const int m = found->second;
        const TextNode& peer = nodes_[m];
        if (here.peer_port > peer.header.nports) {
          fail(port.source_line,
               fmt::format("port {} of \"{}\" is cabled to port {} of \"{}\", which has only {} ports",
                           here.number, id_of(n), here.peer_port, id_of(m), peer.header.nports));
        }
        const int slot = peer.slot[static_cast<std::size_t>(here.peer_port)];
        if (slot < 0) {
          fail(port.source_line,
               fmt::format(
                   "one-sided link: port {} of \"{}\" is cabled to \"{}\"[{}], but \"{}\" (line {}) lists no "
                   "port {}",
                   here.number, id_of(n), id_of(m), here.peer_port, id_of(m), peer.source_line,
                   here.peer_port));
        }
        const TextPort& back = peer.ports[static_cast<std::size_t>(slot)];
        if (back.line.peer_id != nodes_[n].header.id || back.line.peer_port != here.number) {
          fail(port.source_line,
               fmt::format(
                   "inconsistent link: port {} of \"{}\" is cabled to \"{}\"[{}], but line {} cables that "
                   "port to \"{}\"[{}]",
                   here.number, id_of(n), id_of(m), here.peer_port, back.source_line,
                   id_of_text(back.line.peer_id), back.line.peer_port));
        }
        port.peer = m;
        reconcile_rate(n, port, back);
        reconcile_guid(n, port, back);
      }
    }
  }

  // Both ends of a cable run at one rate. When only one end printed it (a hand-written
  // ibsim net), the other end takes it.
  void reconcile_rate(int n, TextPort& port, const TextPort& back) const {
    const LinkRate& mine = port.line.rate;
    const LinkRate& theirs = back.line.rate;
    if (is_unknown(mine)) {
      port.line.rate = theirs;
    } else if (!is_unknown(theirs) && mine != theirs) {
      fail(port.source_line,
           fmt::format(
               "inconsistent link: port {} of \"{}\" runs at {}, but the other end (line {}) reports {}",
               port.line.number, id_of(n), mine.to_string(), back.source_line, theirs.to_string()));
    }
  }

  // A port's GUID may come from its own line, from the peer's line (in parentheses after
  // the peer id) or, for a switch, from its switchguid= line.
  void reconcile_guid(int n, TextPort& port, const TextPort& back) const {
    std::uint64_t guid = port.line.guid;
    for (const auto& [other, line] : {std::pair{back.line.peer_guid, back.source_line},
                                      std::pair{nodes_[n].switch_port_guid, nodes_[n].guid_line}}) {
      if (other == 0) continue;
      if (guid != 0 && guid != other) {
        fail(port.source_line, fmt::format("port {} of \"{}\" has GUID {:#x} here but {:#x} on line {}",
                                           port.line.number, id_of(n), guid, other, line));
      }
      guid = other;
    }
    port.line.guid = guid;
  }

  // CA and router port GUIDs are unique in a subnet (switch ports share their switch's).
  void check_port_guids() const {
    std::unordered_map<std::uint64_t, std::pair<int, const TextPort*>> seen;
    seen.reserve(nodes_.size());
    for (int n = 0; n < static_cast<int>(nodes_.size()); ++n) {
      if (nodes_[n].header.type == NodeType::Switch) continue;
      for (const TextPort& port : nodes_[n].ports) {
        if (port.line.guid == 0) continue;
        const auto [it, fresh] = seen.try_emplace(port.line.guid, n, &port);
        if (!fresh) {
          fail(port.source_line,
               fmt::format("duplicate port GUID {:#x}: port {} of \"{}\" has it too (line {})",
                           port.line.guid, it->second.second->line.number, id_of(it->second.first),
                           it->second.second->source_line));
        }
      }
    }
  }

  RawFabric build() const {
    RawFabric fabric;
    fabric.origin = "ibnetdiscover text " + source_;
    fabric.nodes.reserve(nodes_.size());
    for (const TextNode& node : nodes_) {
      RawNode raw;
      raw.type = node.header.type;
      raw.guid = node.guid;
      raw.system_guid = node.system_guid;
      // ibsim's rule: a node given without a description is described by its id.
      raw.description = std::string(node.header.has_description ? node.header.description : node.header.id);
      raw.nports = node.header.nports;
      raw.ports.reserve(node.ports.size());
      for (const TextPort& port : node.ports) {
        RawPort out;
        out.number = port.line.number;
        out.guid = port.line.guid;
        out.lid = node.header.type == NodeType::Switch ? node.header.lid : port.line.lid;
        out.peer = port.peer;
        out.peer_port = port.line.peer_port;
        out.rate = port.line.rate;
        raw.ports.push_back(std::move(out));
      }
      fabric.nodes.push_back(std::move(raw));
    }
    put_in_canonical_order(fabric);
    return fabric;
  }

  std::string_view text_;
  const std::string& source_;
  std::vector<TextNode> nodes_;
  std::unordered_map<std::string_view, int> ids_;
  std::unordered_map<std::uint64_t, int> guids_;
  PendingGuids pending_;
  int current_ = -1;  // node whose port lines may follow
  int last_line_ = 0;
};

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

std::string read_whole_file(const std::string& path) {
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (!file) throw ReaderError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::string text;
  char buffer[1 << 16];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) text.append(buffer, got);
  if (std::ferror(file.get()))
    throw ReaderError(fmt::format("{}: read error: {}", path, std::strerror(errno)));
  return text;
}

}  // namespace

RawFabric read_ibnetdiscover_text(std::string_view text, const std::string& source) {
  return NetFileReader(text, source).read();
}

RawFabric read_ibnetdiscover_file(const std::string& path) {
  const std::string text = read_whole_file(path);
  return read_ibnetdiscover_text(text, path);
}

}  // namespace fabricfit
