// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli/health_marks.hpp"

#include <fmt/format.h>
#include <algorithm>

#include "cli/health_report.hpp"
#include "health/health_file.hpp"
#include "placement/selection/health_view.hpp"

namespace fabricfit::cli {

bool HealthMarks::empty() const {
  const auto none = [](const auto& v) {
    return std::all_of(v.begin(), v.end(), [](const auto& l) { return l.empty(); });
  };
  return none(hosts) && none(uplinks);
}

HealthMarks health_marks(const Fabric& f, const HealthFile& health) {
  const HealthLinkMatch match = match_health_links(f, health);
  HealthMarks m;
  const auto copy = [&](const std::vector<std::vector<std::size_t>>& from, auto& to) {
    to.resize(from.size());
    for (std::size_t i = 0; i < from.size(); ++i)
      for (const std::size_t l : from[i]) to[i].push_back(health.links[l]);
  };
  copy(match.hosts, m.hosts);
  copy(match.uplinks, m.uplinks);
  return m;
}

HealthState worst_state(const std::vector<LinkStatus>& links) {
  HealthState s = HealthState::Healthy;
  for (const auto& l : links) s = std::max(s, l.state);
  return s;
}

std::string link_name(const LinkStatus& l) {
  return fmt::format("{}[{}] -- {}[{}]", l.a, l.a_port, l.b, l.b_port);
}

std::string main_evidence(const LinkStatus& l) {
  if (l.evidence.empty()) return std::string(state_name(l.state));
  // The end furthest over its threshold is the one to look at first.
  const auto it =
      std::max_element(l.evidence.begin(), l.evidence.end(), [](const Evidence& x, const Evidence& y) {
        const auto over = [](const Evidence& e) { return e.threshold > 0 ? e.rate / e.threshold : e.rate; };
        return over(x) < over(y);
      });
  if (it->unit == "down") return fmt::format("{} is down", it->at);
  return fmt::format("{} {:.3g} {} at {}", it->counter, it->rate, it->unit, it->at);
}

std::optional<HealthFile> find_health(const std::string& explicit_path,
                                      const std::filesystem::path& conf_health_file,
                                      const std::filesystem::path& snapshot) {
  if (!explicit_path.empty()) return load_health(explicit_path);
  const std::filesystem::path path = !conf_health_file.empty() ? conf_health_file
                                     : !snapshot.empty()       ? health_path_beside(snapshot)
                                                               : std::filesystem::path();
  std::error_code ec;
  if (path.empty() || !std::filesystem::exists(path, ec)) return std::nullopt;
  return load_health(path);
}

std::string show_health_text(const Fabric& f, const HealthFile& health) {
  const HealthMarks m = health_marks(f, health);
  std::string out = fmt::format("\nLinks not healthy ({}), sweep {} at {}:\n", health.links.size(),
                                health.sweeps, health.sweep_unix);
  for (const auto& l : health.links) {
    out += fmt::format("  {}  {}  since {}: {}{}\n", link_name(l), state_name(l.state), l.since_unix,
                       main_evidence(l), l.host.empty() ? "" : "  (host " + l.host + ")");
  }
  if (health.links.empty()) out += "  none: every link healthy\n";
  std::string hosts;
  int n = 0;
  for (std::size_t h = 0; h < m.hosts.size(); ++h) {
    if (m.hosts[h].empty()) continue;
    ++n;
    hosts += fmt::format("  {}  {}: {}\n", f.hosts[h].name, state_name(worst_state(m.hosts[h])),
                         main_evidence(m.hosts[h].front()));
  }
  if (n > 0) out += fmt::format("\nHosts whose HCA link is not healthy ({}):\n{}", n, hosts);
  std::string groups;
  n = 0;
  for (std::size_t g = 0; g < m.uplinks.size(); ++g) {
    if (m.uplinks[g].empty()) continue;
    ++n;
    groups += fmt::format("  {}  {} of {} uplinks not healthy, worst {}: {}\n", f.leaf_groups[g].name,
                          m.uplinks[g].size(), f.leaf_groups[g].uplinks,
                          state_name(worst_state(m.uplinks[g])), main_evidence(m.uplinks[g].front()));
  }
  if (n > 0) out += fmt::format("\nLeaf groups with uplinks not healthy ({}):\n{}", n, groups);
  return out + nvlink_health_text(health);
}

nlohmann::json show_health_json(const Fabric& f, const HealthFile& health) {
  nlohmann::json j = health_json_value(health);
  const HealthMarks m = health_marks(f, health);
  nlohmann::json groups = nlohmann::json::array();
  for (std::size_t g = 0; g < m.uplinks.size(); ++g) {
    if (m.uplinks[g].empty()) continue;
    nlohmann::json links = nlohmann::json::array();
    for (const auto& l : m.uplinks[g]) links.push_back(link_name(l));
    groups.push_back({{"name", f.leaf_groups[g].name},
                      {"state", state_name(worst_state(m.uplinks[g]))},
                      {"unhealthy_uplinks", m.uplinks[g].size()},
                      {"uplinks", f.leaf_groups[g].uplinks},
                      {"links", links}});
  }
  j["leaf_groups"] = groups;
  return j;
}

}  // namespace fabricfit::cli
