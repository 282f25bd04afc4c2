// SPDX-License-Identifier: GPL-2.0-or-later
// The line grammar, as ibnetdiscover (infiniband-diags) writes it, plus what ibsim's
// net files add. Real lines look like:
//   switchguid=0x2c5eab0300b87b40(2c5eab0300b87b40)
//   Switch	65 "S-2c5eab0300b87b40"		# "MF0;A09-P1-IBLEAF-04-04:MQM9701/U1" enhanced port 0 lid 73
//   lmc 0 [1]	"H-e09d7303007a4bd8"[1](e09d7303007a4bd8) 		# "a08-p1-dgx-04-c01 mlx5_5" lid 647
//   4xNDR Ca	1 "H-e09d7303007a5a68"		# "a08-p1-dgx-04-c17 mlx5_5" [1](e09d7303007a5a68)
//   "S-2c5eab0300b87b40"[17]		# lid 657 lmc 0 "MF0;...:MQM9701/U1" lid 73 4xNDR
// -g adds "[ext N]" after port numbers, chassis lines and "# Chassis ..." comments; -f adds
// " s=N w=N v=N" after the rate; ibsim nets may have "Hca" headers, no comments at all and
// "w=N" hints on port lines; -s puts its progress lines ("DR path ... -> new Switch ...")
// before the topology.
#include "topology/readers/ibnetdiscover_lines.hpp"

#include <fmt/format.h>
#include <array>
#include <optional>
#include <string>

#include "topology/readers/raw_link_rate.hpp"
#include "topology/readers/text_cursor.hpp"

namespace fabricfit::netfile {
namespace {

[[noreturn]] void fail(const std::string& reason) {
  throw LineError(reason);
}

std::string shorten(std::string_view text) {
  constexpr std::size_t kMax = 60;
  if (text.size() <= kMax) return std::string(text);
  return std::string(text.substr(0, kMax)) + "...";
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// "[ext N]" after a port number (ibnetdiscover -g).
void skip_external_port(TextCursor& c) {
  if (!c.consume("[ext ")) return;
  if (!c.read_decimal(255) || !c.consume(']')) fail("bad \"[ext N]\" external port number");
}

// "(hex)" GUID; nullopt when there is none.
std::optional<std::uint64_t> read_paren_guid(TextCursor& c) {
  if (!c.consume('(')) return std::nullopt;
  const auto guid = c.read_hex();
  if (!guid || !c.consume(')')) fail("bad port GUID in parentheses");
  return guid;
}

// A token that ibnetdiscover printed as a link rate: width ("1x", "4x", "12x", or "??"
// when unknown) followed by speed ("SDR" ... "NDR", or "???").
bool looks_like_rate(std::string_view word) {
  if (word.empty()) return false;
  if (word.front() == '?') return true;
  if (word.front() < '0' || word.front() > '9') return false;
  return word.find('x') != std::string_view::npos && word.find('=') == std::string_view::npos;
}

LinkRate rate_from_word(std::string_view word) {
  auto rate = parse_link_rate(word);
  if (!rate)
    fail(fmt::format("unknown link rate \"{}\" (expected width and speed such as 4xHDR)", shorten(word)));
  return *rate;
}

// The part of a comment after its quoted description: after the last quote, since a
// NodeDescription may itself contain quotes but what follows it never does.
std::string_view after_description(std::string_view comment, std::size_t from) {
  const auto first = comment.find('"', from);
  const auto last = comment.rfind('"');
  if (first == std::string_view::npos || last == first) return comment.substr(from);
  return comment.substr(last + 1);
}

// Port comments: "# "peer desc" lid N RATE ..." (switch ports) or
// "# lid N lmc M "peer desc" lid N RATE ..." (CA and router ports).
void parse_port_comment(std::string_view comment, PortLine& port) {
  TextCursor c(comment);
  c.skip_blanks();
  if (c.consume("lid")) {
    c.skip_blanks();
    const auto lid = c.read_decimal(0xffff);
    if (!lid) fail("bad LID in port comment (expected \"# lid N lmc M ...\")");
    port.lid = static_cast<int>(*lid);
  }
  TextCursor tail(after_description(comment, c.position()));
  for (std::string_view word = tail.read_word(); !word.empty(); word = tail.read_word()) {
    if (word == "lid") {
      tail.read_word();  // the peer's LID
      continue;
    }
    if (looks_like_rate(word)) {
      port.rate = rate_from_word(word);
      return;
    }
  }
}

ParsedLine parse_port(TextCursor& c) {
  ParsedLine out;
  out.kind = LineKind::Port;
  PortLine& port = out.port;
  port.rate = unknown_link_rate();

  c.consume('[');
  const auto number = c.read_decimal(kMaxPorts);
  if (!number || *number == 0 || !c.consume(']'))
    fail(fmt::format("bad port line: expected \"[PORT]\" with PORT 1 to {}", kMaxPorts));
  port.number = static_cast<int>(*number);
  skip_external_port(c);
  if (auto guid = read_paren_guid(c)) port.guid = *guid;

  c.skip_blanks();
  const auto peer = c.read_quoted();
  if (!peer || peer->empty()) fail("bad port line: expected the quoted id of the peer node after the port");
  port.peer_id = *peer;
  if (!c.consume('[')) fail(fmt::format("bad port line: no peer port number after \"{}\"", shorten(*peer)));
  const auto peer_port = c.read_decimal(kMaxPorts);
  if (!peer_port || *peer_port == 0 || !c.consume(']'))
    fail(fmt::format("bad port line: bad peer port number after \"{}\"", shorten(*peer)));
  port.peer_port = static_cast<int>(*peer_port);
  skip_external_port(c);
  c.skip_blanks();
  if (auto guid = read_paren_guid(c)) port.peer_guid = *guid;

  // ibsim port options ("w=12"): enabled widths and speeds for the simulator to
  // negotiate from, not what a link runs at, so they are checked and left aside.
  for (c.skip_blanks(); !c.done() && c.peek() != '#'; c.skip_blanks()) {
    const std::string_view word = c.read_word();
    const bool option =
        word.size() >= 3 && word[1] == '=' && (word[0] == 'w' || word[0] == 's' || word[0] == 'e');
    if (!option) fail(fmt::format("bad port line: unexpected \"{}\" after the peer", shorten(word)));
  }
  if (c.consume('#')) parse_port_comment(c.rest(), port);
  return out;
}

// Header comments: "# "desc" enhanced port 0 lid N lmc M" (switches), "# "desc"" (CAs);
// ibsim also takes the description unquoted, up to " enhanced port", " base port",
// " lid " or " lmc ".
void parse_header_comment(std::string_view comment, HeaderLine& header) {
  TextCursor c(comment);
  c.skip_blanks();
  std::string_view tail;
  if (c.peek() == '"') {
    const std::size_t open = c.position();
    const std::size_t close = comment.rfind('"');
    if (close == open) fail("bad node header: unterminated quoted description");
    header.description = comment.substr(open + 1, close - open - 1);
    tail = comment.substr(close + 1);
  } else {
    const std::string_view text = c.rest();
    std::size_t end = text.size();
    for (std::string_view marker : {" enhanced port ", " base port ", " lid ", " lmc "}) {
      end = std::min(end, text.find(marker));
    }
    std::string_view desc = text.substr(0, end);
    while (!desc.empty() && TextCursor::is_blank(desc.back())) desc.remove_suffix(1);
    header.description = desc;
    tail = text.substr(end);
  }
  header.has_description = true;
  TextCursor t(tail);
  for (std::string_view word = t.read_word(); !word.empty(); word = t.read_word()) {
    if (word != "lid") continue;
    t.skip_blanks();
    const auto lid = t.read_decimal(0xffff);
    if (!lid) fail("bad node header: bad LID after \"lid\"");
    header.lid = static_cast<int>(*lid);
    return;
  }
}

ParsedLine parse_header(TextCursor& c, NodeType type, std::string_view keyword) {
  ParsedLine out;
  out.kind = LineKind::Header;
  HeaderLine& header = out.header;
  header.type = type;
  c.skip_blanks();
  if (c.peek() == ':')
    fail(
        "this is a node list (ibnetdiscover -l, -S or -H), which has no links: give the full topology "
        "output");
  const auto nports = c.read_decimal(kMaxPorts);
  if (!nports || *nports == 0)
    fail(fmt::format("bad node header: expected a port count (1 to {}) after \"{}\"", kMaxPorts, keyword));
  header.nports = static_cast<int>(*nports);
  c.skip_blanks();
  const auto id = c.read_quoted();
  if (!id || id->empty()) fail("bad node header: expected the quoted node id after the port count");
  header.id = *id;
  c.skip_blanks();
  if (c.consume('#')) {
    parse_header_comment(c.rest(), header);
  } else if (!c.done()) {
    fail(fmt::format("bad node header: unexpected \"{}\" after the node id", shorten(c.rest())));
  }
  return out;
}

// "switchguid=0x...(...)", "caguid=0x...", ...; -g may add a "# Chassis ..." comment.
ParsedLine parse_guid(TextCursor& c, GuidKind kind, std::string_view keyword) {
  ParsedLine out;
  out.kind = LineKind::Guid;
  out.guid.kind = kind;
  const auto guid = c.read_hex();
  if (!guid || *guid == 0) fail(fmt::format("bad {}: expected a non-zero hexadecimal GUID", keyword));
  out.guid.guid = *guid;
  if (kind == GuidKind::Switch) {
    if (auto port_guid = read_paren_guid(c)) out.guid.port_guid = *port_guid;
  }
  c.skip_blanks();
  if (!c.done() && c.peek() != '#')
    fail(fmt::format("bad {}: unexpected \"{}\" after the GUID", keyword, shorten(c.rest())));
  return out;
}

struct Keyword {
  std::string_view text;
  enum { Guid, Ignored, Unsupported } what;
  GuidKind guid;  // for Guid lines
};

constexpr std::array<Keyword, 18> kKeywords{{
    {"switchguid=", Keyword::Guid, GuidKind::Switch},
    {"caguid=", Keyword::Guid, GuidKind::Ca},
    {"hcaguids=", Keyword::Guid, GuidKind::Ca},  // ibsim's older spelling
    {"rtguid=", Keyword::Guid, GuidKind::Router},
    {"sysimgguid=", Keyword::Guid, GuidKind::SystemImage},
    {"vendid=", Keyword::Ignored, GuidKind::Ca},
    {"devid=", Keyword::Ignored, GuidKind::Ca},
    // ibsim: link widths and speeds a simulated port may negotiate
    {"width=", Keyword::Ignored, GuidKind::Ca},
    {"speed=", Keyword::Ignored, GuidKind::Ca},
    {"extspeed=", Keyword::Ignored, GuidKind::Ca},
    // ibnetdiscover -g: chassis grouping around the node records
    {"Chassis ", Keyword::Ignored, GuidKind::Ca},
    {"Non-Chassis Nodes", Keyword::Ignored, GuidKind::Ca},
    {"Hostname:", Keyword::Ignored, GuidKind::Ca},
    // ibnetdiscover -s: discovery progress on the same output
    {"DR path ", Keyword::Ignored, GuidKind::Ca},
    // ibsim directives that would change the subnet while it is read
    {"include", Keyword::Unsupported, GuidKind::Ca},
    {"module", Keyword::Unsupported, GuidKind::Ca},
    {"do ", Keyword::Unsupported, GuidKind::Ca},
    {"do\t", Keyword::Unsupported, GuidKind::Ca},
}};

// Node headers: the keyword must be followed by a blank.
std::optional<std::pair<NodeType, std::string_view>> header_keyword(TextCursor& c) {
  for (auto [word, type] :
       {std::pair{std::string_view("Switch"), NodeType::Switch},
        std::pair{std::string_view("Hca"), NodeType::Ca}, std::pair{std::string_view("Ca"), NodeType::Ca},
        std::pair{std::string_view("Rt"), NodeType::Router}}) {
    const std::string_view rest = c.rest();
    if (starts_with(rest, word) && rest.size() > word.size() && TextCursor::is_blank(rest[word.size()])) {
      c.consume(word);
      return std::pair{type, word};
    }
  }
  return std::nullopt;
}

}  // namespace

ParsedLine parse_line(std::string_view line) {
  TextCursor c(line);
  c.skip_blanks();
  if (c.done()) return ParsedLine{};
  const char first = c.peek();
  if (first == '#') return ParsedLine{.kind = LineKind::Comment, .guid = {}, .header = {}, .port = {}};
  if (first == '[') return parse_port(c);
  if (first == '@') fail("ibsim port aliases (\"@...\") are not supported");

  if (auto header = header_keyword(c)) return parse_header(c, header->first, header->second);
  const std::string_view rest = c.rest();
  for (const Keyword& k : kKeywords) {
    if (!starts_with(rest, k.text)) continue;
    switch (k.what) {
      case Keyword::Guid:
        c.consume(k.text);
        return parse_guid(c, k.guid, k.text.substr(0, k.text.size() - 1));
      case Keyword::Ignored:
        return ParsedLine{.kind = LineKind::Ignored, .guid = {}, .header = {}, .port = {}};
      case Keyword::Unsupported:
        fail(fmt::format("ibsim \"{}\" directives are not supported: give the subnet in one file",
                         k.text.substr(0, k.text.find_first_of(" \t"))));
    }
  }
  for (std::string_view report : {"SW ", "CA ", "RT "}) {
    if (starts_with(rest, report))
      fail(
          "this is a ports report (ibnetdiscover -p), which has no node GUIDs or port counts: give the "
          "topology output");
  }
  fail(fmt::format("unrecognised line \"{}\"", shorten(rest)));
}

}  // namespace fabricfit::netfile
