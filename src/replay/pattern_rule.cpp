// SPDX-License-Identifier: GPL-2.0-or-later
#include "replay/pattern_rule.hpp"

#include <fmt/format.h>
#include <charconv>
#include <cstdint>

namespace fabricfit {
namespace {

// FNV-1a of the job id, mixed (splitmix64's finaliser: FNV alone leaves the high bits of
// similar short ids alike), as a fraction in [0, 1): the same job gets the same pattern
// in every run and under every policy.
double id_fraction(const std::string& id) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : id) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return static_cast<double>(h >> 11) / static_cast<double>(1ULL << 53);
}

double parse_number(std::string_view key, std::string_view value) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (value.empty() || ec != std::errc{} || ptr != value.data() + value.size() || v < 0) {
    throw RuleError(fmt::format("{}={} is not a number of 0 or more", key, value));
  }
  return v;
}

}  // namespace

CommPattern PatternRule::pattern_for(const TraceJob& job) const {
  if (job.nodes < 2) return CommPattern{PatternKind::None};
  if (alltoall_share > 0 && job.nodes >= alltoall_min_nodes && id_fraction(job.id) < alltoall_share) {
    return CommPattern{PatternKind::AllToAll};
  }
  return multi;
}

std::string PatternRule::to_string() const {
  return fmt::format("multi={},alltoall={:g},alltoall_min_nodes={},volume={:g}", multi.to_string(),
                     alltoall_share, alltoall_min_nodes, volume_gb_per_s);
}

std::string PatternRule::describe() const {
  std::string out = fmt::format("single-host jobs: none; multi-host jobs: {}", multi.to_string());
  if (alltoall_share > 0) {
    out += fmt::format(", except {:g}% of those with {}+ hosts (by job-id hash): alltoall",
                       alltoall_share * 100, alltoall_min_nodes);
  }
  out += fmt::format("; message volume {:g} GB per second of run time", volume_gb_per_s);
  return out;
}

PatternRule parse_pattern_rule(std::string_view text) {
  PatternRule r;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const auto item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const auto eq = item.find('=');
    if (eq == std::string_view::npos) throw RuleError(fmt::format("'{}' is not KEY=VALUE", item));
    const auto key = item.substr(0, eq), value = item.substr(eq + 1);
    if (key == "multi") {
      try {
        r.multi = parse_comm_pattern(value);
      } catch (const PatternError& e) {
        throw RuleError(fmt::format("multi={}: {}", value, e.what()));
      }
      if (r.multi.kind == PatternKind::Parallel) {
        throw RuleError("multi= cannot be tp/pp/dp: the group sizes depend on each job's size");
      }
    } else if (key == "alltoall") {
      r.alltoall_share = parse_number(key, value);
      if (r.alltoall_share > 1) throw RuleError(fmt::format("alltoall={} is a share from 0 to 1", value));
    } else if (key == "alltoall_min_nodes") {
      r.alltoall_min_nodes = std::max(2, static_cast<int>(parse_number(key, value)));
    } else if (key == "volume") {
      r.volume_gb_per_s = parse_number(key, value);
    } else {
      throw RuleError(
          fmt::format("unknown key '{}' (keys: multi, alltoall, alltoall_min_nodes, volume)", key));
    }
  }
  return r;
}

}  // namespace fabricfit
