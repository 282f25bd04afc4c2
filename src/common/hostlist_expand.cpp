// SPDX-License-Identifier: GPL-2.0-or-later
#include "common/hostlist_expand.hpp"

#include <fmt/format.h>
#include <charconv>

namespace fabricfit {
namespace {

// A typo like [1-999999999], many ranges in one bracket or a very long name times a big
// range must not eat the memory: the names and their characters are both bounded. 256 Ki
// names is far beyond any real cluster (Slurm itself refuses a range of over 64 Ki hosts);
// the earlier 4 Mi names, at tens of bytes each and copied by the callers, took gigabytes
// (fuzz_hostlist ran out of its 2 GiB).
constexpr long kMaxNames = 1L << 18;
constexpr std::size_t kMaxBytes = std::size_t{1} << 24;  // 16 MiB

struct Names {
  std::vector<std::string>& out;
  std::size_t bytes = 0;
};

long parse_number(std::string_view digits, std::string_view whole) {
  long n = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (digits.empty() || ec != std::errc{} || ptr != digits.data() + digits.size()) {
    throw HostlistError(fmt::format("'{}': '{}' is not a number", whole, digits));
  }
  return n;
}

// "001-003,007" -> the strings of each number, padded like their range's first number.
std::vector<std::string> expand_ranges(std::string_view inside, std::string_view whole) {
  std::vector<std::string> out;
  while (true) {
    const auto comma = inside.find(',');
    const auto part = inside.substr(0, comma);
    const auto dash = part.find('-');
    if (dash == std::string_view::npos) {
      parse_number(part, whole);
      out.emplace_back(part);
    } else {
      const auto lo_text = part.substr(0, dash);
      const long lo = parse_number(lo_text, whole), hi = parse_number(part.substr(dash + 1), whole);
      if (hi < lo) throw HostlistError(fmt::format("'{}': range {} goes backwards", whole, part));
      if (hi - lo >= kMaxNames - static_cast<long>(out.size()))
        throw HostlistError(fmt::format("'{}': range {} is too large", whole, part));
      // Counted from lo, not up to hi: hi may be the largest long, and n must not pass it.
      for (long k = 0; k <= hi - lo; ++k) out.push_back(fmt::format("{:0{}d}", lo + k, lo_text.size()));
    }
    if (comma == std::string_view::npos) break;
    inside = inside.substr(comma + 1);
  }
  return out;
}

void expand_name(std::string_view name, std::string_view whole, Names& names) {
  const auto open = name.find('[');
  if (open == std::string_view::npos) {
    if (name.find(']') != std::string_view::npos)
      throw HostlistError(fmt::format("'{}': ']' without '['", whole));
    names.bytes += name.size();
    if (static_cast<long>(names.out.size()) >= kMaxNames || names.bytes > kMaxBytes)
      throw HostlistError(fmt::format("'{}' is too large", whole));
    names.out.emplace_back(name);
    return;
  }
  const auto close = name.find(']', open);
  if (close == std::string_view::npos) throw HostlistError(fmt::format("'{}': '[' without ']'", whole));
  const auto prefix = name.substr(0, open);
  const auto rest = name.substr(close + 1);
  for (const auto& number : expand_ranges(name.substr(open + 1, close - open - 1), whole)) {
    expand_name(std::string(prefix) + number + std::string(rest), whole, names);
  }
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view text) {
  std::vector<std::string> out;
  Names names{out};
  std::size_t start = 0;
  int depth = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : ',';
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (depth < 0) throw HostlistError(fmt::format("'{}': ']' without '['", text));
    if ((c == ',' && depth == 0) || i == text.size()) {
      const auto name = text.substr(start, i - start);
      if (name.empty()) throw HostlistError(fmt::format("'{}': empty host name", text));
      expand_name(name, text, names);
      start = i + 1;
    }
  }
  if (depth != 0) throw HostlistError(fmt::format("'{}': '[' without ']'", text));
  return out;
}

}  // namespace fabricfit
