// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/comm_pattern.hpp"

#include <fmt/format.h>
#include <charconv>

namespace fabricfit {
namespace {

constexpr int kMaxGroup = 1 << 20;
constexpr std::string_view kExpected = "expected ring, tree, alltoall, none or tp=T,pp=P,dp=D";

int parse_group_size(std::string_view key, std::string_view value) {
  int n = 0;
  const auto* end = value.data() + value.size();
  auto [ptr, ec] = std::from_chars(value.data(), end, n);
  if (value.empty() || ec != std::errc{} || ptr != end || n < 1 || n > kMaxGroup) {
    throw PatternError(
        fmt::format("{}={} is not a group size (a whole number from 1 to {})", key, value, kMaxGroup));
  }
  return n;
}

CommPattern parse_parallel(std::string_view text) {
  CommPattern p{PatternKind::Parallel, 1, 1, 1};
  bool seen_tp = false, seen_pp = false, seen_dp = false;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const auto item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (comma != std::string_view::npos && text.empty()) {
      throw PatternError("trailing comma after '" + std::string(item) + "'");
    }
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) {
      throw PatternError(fmt::format("'{}' is not KEY=VALUE ({})", item, kExpected));
    }
    const auto key = item.substr(0, eq);
    const auto value = item.substr(eq + 1);
    auto take = [&](bool& seen, int& slot) {
      if (seen) throw PatternError(fmt::format("{} is given twice", key));
      seen = true;
      slot = parse_group_size(key, value);
    };
    if (key == "tp") {
      take(seen_tp, p.tp);
    } else if (key == "pp") {
      take(seen_pp, p.pp);
    } else if (key == "dp") {
      take(seen_dp, p.dp);
    } else {
      throw PatternError(fmt::format("unknown key '{}' (the keys are tp, pp and dp)", key));
    }
  }
  return p;
}

}  // namespace

std::string CommPattern::to_string() const {
  switch (kind) {
    case PatternKind::Ring: return "ring";
    case PatternKind::Tree: return "tree";
    case PatternKind::AllToAll: return "alltoall";
    case PatternKind::None: return "none";
    case PatternKind::Parallel: return fmt::format("tp={},pp={},dp={}", tp, pp, dp);
  }
  return "ring";
}

CommPattern parse_comm_pattern(std::string_view text) {
  if (text.empty()) throw PatternError(fmt::format("empty pattern ({})", kExpected));
  if (text == "ring") return {PatternKind::Ring};
  if (text == "tree") return {PatternKind::Tree};
  if (text == "alltoall") return {PatternKind::AllToAll};
  if (text == "none") return {PatternKind::None};
  if (text.find('=') != std::string_view::npos) return parse_parallel(text);
  throw PatternError(fmt::format("unknown pattern '{}' ({})", text, kExpected));
}

CommPattern make_comm_pattern(int kind, long long tp, long long pp, long long dp) {
  switch (kind) {
    case static_cast<int>(PatternKind::Ring): return {PatternKind::Ring};
    case static_cast<int>(PatternKind::Tree): return {PatternKind::Tree};
    case static_cast<int>(PatternKind::AllToAll): return {PatternKind::AllToAll};
    case static_cast<int>(PatternKind::None): return {PatternKind::None};
    case static_cast<int>(PatternKind::Parallel): break;
    default: throw PatternError(fmt::format("unknown pattern kind {}", kind));
  }
  const auto size = [](std::string_view key, long long n) {
    if (n < 1 || n > kMaxGroup)
      throw PatternError(
          fmt::format("{}={} is not a group size (a whole number from 1 to {})", key, n, kMaxGroup));
    return static_cast<int>(n);
  };
  return {PatternKind::Parallel, size("tp", tp), size("pp", pp), size("dp", dp)};
}

CommPattern effective_pattern(const CommPattern* requested, unsigned max_nodes,
                              const CommPattern& site_default) {
  if (requested != nullptr) return *requested;
  return max_nodes == 1 ? CommPattern{PatternKind::None} : site_default;
}

}  // namespace fabricfit
