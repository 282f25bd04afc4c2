// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/node_name_map.hpp"

#include <fmt/format.h>
#include <cctype>
#include <charconv>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace fabricfit {
namespace {

bool is_space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  return s;
}

std::string_view trim(std::string_view s) {
  s = trim_left(s);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

class LineParser {
 public:
  LineParser(const std::string& origin, int line) : origin_(origin), line_(line) {}

  [[noreturn]] void fail(const std::string& reason) const {
    throw NodeNameMapError(fmt::format("{}:{}: {}", origin_, line_, reason));
  }

  // strtoull(p, &end, 0): "0x" hex, a leading "0" octal, else decimal.
  std::uint64_t guid(std::string_view& rest) const {
    int base = 10;
    std::string_view digits = rest;
    if (digits.size() > 1 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
      base = 16;
      digits.remove_prefix(2);
    } else if (digits.size() > 1 && digits[0] == '0') {
      base = 8;
    }
    std::uint64_t value = 0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
    if (ptr == digits.data()) {
      const auto word = rest.substr(0, rest.find_first_of(" \t\"#"));
      fail(fmt::format("'{}' is not a GUID (expected e.g. 0x0002c90300001234)", word));
    }
    if (ec == std::errc::result_out_of_range) fail("GUID does not fit in 64 bits");
    rest = digits.substr(static_cast<std::size_t>(ptr - digits.data()));
    if (!rest.empty() && !is_space(rest.front()) && rest.front() != '#') {
      fail(fmt::format("unexpected '{}' after the GUID", rest.front()));
    }
    return value;
  }

  std::string name(std::string_view rest) const {
    rest = trim_left(rest);
    if (rest.empty() || rest.front() == '#') fail("no name after the GUID");
    std::string_view name;
    if (rest.front() == '"') {
      const auto close = rest.find('"', 1);
      if (close == std::string_view::npos) fail("unterminated quote in the name");
      name = rest.substr(1, close - 1);
      const auto after = trim_left(rest.substr(close + 1));
      if (!after.empty() && after.front() != '#') {
        fail(fmt::format("unexpected text after the name: '{}'", trim(after)));
      }
    } else {
      // An unquoted name runs up to a comment, as in rdma-core.
      name = trim(rest.substr(0, rest.find('#')));
      if (name.find('"') != std::string_view::npos) fail("stray '\"' in an unquoted name");
    }
    if (trim(name).empty()) fail("empty name");
    for (const char c : name) {
      if (!std::isprint(static_cast<unsigned char>(c))) fail("name holds a control character");
    }
    return std::string(name);
  }

 private:
  const std::string& origin_;
  int line_;
};

}  // namespace

NodeNameMap parse_node_name_map(std::string_view text, const std::string& origin) {
  NodeNameMap map;
  std::unordered_map<std::uint64_t, int> first_line;
  int line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const auto eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string_view rest = trim_left(line);
    if (rest.empty() || rest.front() == '#') continue;
    const LineParser parser(origin, line_no);
    const std::uint64_t guid = parser.guid(rest);
    std::string name = parser.name(rest);
    const auto [it, inserted] = map.emplace(guid, name);
    if (!inserted && it->second != name) {
      parser.fail(fmt::format("GUID {:#018x} is already named \"{}\" on line {}", guid, it->second,
                              first_line[guid]));
    }
    if (inserted) first_line[guid] = line_no;
  }
  return map;
}

NodeNameMap load_node_name_map(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw NodeNameMapError(fmt::format("{}: cannot open the node-name-map", path.string()));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw NodeNameMapError(fmt::format("{}: cannot read the node-name-map", path.string()));
  return parse_node_name_map(text.str(), path.string());
}

}  // namespace fabricfit
