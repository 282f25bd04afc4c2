// SPDX-License-Identifier: GPL-2.0-or-later
// One line of an ibnetdiscover topology file (or of an ibsim net file, which is the
// same format with fewer details), taken apart. The reader (ibnetdiscover_reader.cpp)
// puts the lines together into nodes and links; this file knows only the grammar.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "topology/link_rate.hpp"
#include "topology/raw_fabric.hpp"

namespace fabricfit::netfile {

// A line that is not valid; the reader adds the file name and line number.
class LineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class LineKind {
  Blank,    // ends a node record
  Comment,  // "# ..." anywhere
  Ignored,  // vendid=, devid=, ibsim's width=/speed=, ibnetdiscover -g chassis lines
  Guid,     // switchguid= / caguid= / rtguid= / sysimgguid=
  Header,   // Switch / Ca / Hca / Rt
  Port,     // [p] "peer"[q] ...
};

enum class GuidKind { Switch, Ca, Router, SystemImage };

struct GuidLine {
  GuidKind kind = GuidKind::Switch;
  std::uint64_t guid = 0;
  std::uint64_t port_guid = 0;  // switchguid=0x...(PORTGUID): the switch's port GUID
};

struct HeaderLine {
  NodeType type = NodeType::Ca;
  int nports = 0;
  std::string_view id;           // the quoted node id ("S-0002c9...", or "Switch1" in ibsim nets)
  std::string_view description;  // NodeDescription from the comment
  bool has_description = false;
  int lid = 0;  // switches: "port 0 lid N"
};

struct PortLine {
  int number = 0;
  std::uint64_t guid = 0;  // "[1](guid)": this port's GUID (CA lines)
  std::string_view peer_id;
  int peer_port = 0;
  std::uint64_t peer_guid = 0;  // "(guid)" after the peer: the peer port's GUID (when not a switch)
  int lid = 0;                  // CA lines: "# lid N lmc M ...": this port's LID
  LinkRate rate;                // unknown (width 0) when the line gives none
};

struct ParsedLine {
  LineKind kind = LineKind::Blank;
  GuidLine guid;
  HeaderLine header;
  PortLine port;
};

// Parses one line (without its newline). Throws LineError with the reason.
[[nodiscard]] ParsedLine parse_line(std::string_view line);

// Largest port count a node may declare (IBA: ports 1..254).
inline constexpr int kMaxPorts = 254;

}  // namespace fabricfit::netfile
