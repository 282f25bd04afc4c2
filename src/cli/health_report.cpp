// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli/health_report.hpp"

#include <fmt/format.h>
#include <array>
#include <nlohmann/json.hpp>

#include "cli/prom_label.hpp"

namespace fabricfit::cli {
namespace {

using nlohmann::ordered_json;

// Evidence keyed by counter; a counter over on both ends shows the end with the higher rate.
ordered_json evidence_json(const std::vector<Evidence>& list) {
  ordered_json out = ordered_json::object();
  for (const auto& e : list) {
    if (out.contains(e.counter) && out[e.counter]["rate"].get<double>() >= e.rate) continue;
    out[e.counter] = {{"rate", e.rate},
                      {"unit", e.unit},
                      {"threshold", e.threshold},
                      {"since", e.since_unix},
                      {"at", e.at}};
  }
  return out;
}

std::string evidence_text(const Evidence& e) {
  if (e.unit == "down") return fmt::format("{} {} is down", e.counter, e.at);
  return fmt::format("{} at {}: {:.3g} {} (threshold {:.3g}), since {}", e.counter, e.at, e.rate, e.unit,
                     e.threshold, e.since_unix);
}

// The host end of a host's HCA cable.
const std::string& hca_of(const LinkStatus& l) {
  return l.a.starts_with(l.host) ? l.a : l.b;
}

ordered_json ports_json(const HealthFile& h) {
  ordered_json out = ordered_json::array();
  for (const auto& p : h.ports) {
    ordered_json counters = ordered_json::object();
    if (p.last) {
      for (std::size_t i = 0; i < kCounterCount; ++i)
        counters[std::string(counter_name(static_cast<Counter>(i)))] = p.last->value[i];
    }
    out.push_back({{"guid", fmt::format("{:#018x}", p.id.guid)},
                   {"port", p.id.port},
                   {"state", state_name(p.state)},
                   {"since", p.since_unix},
                   {"pending", state_name(p.pending)},
                   {"pending_sweeps", p.pending_sweeps},
                   {"clear_sweeps", p.clear_sweeps},
                   {"missed", p.missed},
                   {"saturated", p.saturated},
                   {"counters", counters}});
  }
  return out;
}

}  // namespace

ordered_json health_json_value(const HealthFile& h, bool ports) {
  ordered_json links = ordered_json::array();
  ordered_json hosts = ordered_json::array();
  for (const auto& l : h.links) {
    links.push_back({{"a", l.a},
                     {"a_port", l.a_port},
                     {"b", l.b},
                     {"b_port", l.b_port},
                     {"state", state_name(l.state)},
                     {"since", l.since_unix},
                     {"evidence", evidence_json(l.evidence)}});
    if (!l.host.empty()) {
      hosts.push_back({{"host", l.host},
                       {"hca", hca_of(l)},
                       {"state", state_name(l.state)},
                       {"since", l.since_unix},
                       {"evidence", evidence_json(l.evidence)}});
    }
  }
  ordered_json missed = ordered_json::array();
  for (const auto& m : h.missed)
    missed.push_back({{"guid", fmt::format("{:#018x}", m.guid)}, {"port", m.port}});
  ordered_json out = {
      {"sweep", h.sweep_unix}, {"sweeps", h.sweeps}, {"snapshot", h.snapshot}, {"port_count", h.ports.size()},
      {"missed", missed},      {"links", links},     {"hosts", hosts}};
  ordered_json nvlink = ordered_json::array();
  for (const auto& n : h.nvlink) {
    nvlink.push_back({{"host", n.host},
                      {"state", nvlink_state_name(n.state)},
                      {"since", n.since_unix},
                      {"reason", n.reason},
                      {"at", n.at}});
  }
  out["nvlink_report"] = h.nvlink_report;
  out["nvlink"] = nvlink;
  if (ports) out["ports"] = ports_json(h);
  return out;
}

std::string health_json(const HealthFile& h, bool ports) {
  return health_json_value(h, ports).dump(2) + "\n";
}

std::string health_text(const HealthFile& h) {
  std::string out =
      fmt::format("Fabric health: sweep {} at {}, {} ports, {} missed{}\n", h.sweeps, h.sweep_unix,
                  h.ports.size(), h.missed.size(), h.missed.empty() ? "" : " (their last state kept)");
  if (h.links.empty()) return out + "All links healthy.\n" + nvlink_health_text(h);
  out += fmt::format("\nLinks not healthy ({}):\n", h.links.size());
  for (const auto& l : h.links) {
    out += fmt::format("  {}[{}] -- {}[{}]  {}  since {}{}\n", l.a, l.a_port, l.b, l.b_port,
                       state_name(l.state), l.since_unix, l.host.empty() ? "" : "  host " + l.host);
    for (const auto& e : l.evidence) out += "    " + evidence_text(e) + "\n";
  }
  std::string hosts;
  int n = 0;
  for (const auto& l : h.links) {
    if (l.host.empty()) continue;
    ++n;
    hosts += fmt::format("  {}  {} ({}[{}])\n", l.host, state_name(l.state), hca_of(l),
                         &hca_of(l) == &l.a ? l.a_port : l.b_port);
  }
  if (n > 0) out += fmt::format("\nHosts whose HCA link is not healthy ({}):\n{}", n, hosts);
  return out + nvlink_health_text(h);
}

std::string health_prom(const HealthFile& h) {
  std::string out =
      "# HELP fabricfit_health_links Cables of the snapshot by health state.\n"
      "# TYPE fabricfit_health_links gauge\n";
  std::array<std::size_t, 5> by_state{};
  for (const auto& l : h.links) ++by_state[static_cast<std::size_t>(l.state)];
  std::size_t unhealthy = 0;
  for (std::size_t s = 1; s < by_state.size(); ++s) unhealthy += by_state[s];
  // Healthy cables are every port pair not listed: ports / 2 less the listed ones.
  by_state[0] = h.ports.size() / 2 > unhealthy ? h.ports.size() / 2 - unhealthy : 0;
  for (std::size_t s = 0; s < by_state.size(); ++s)
    out += fmt::format("fabricfit_health_links{{state=\"{}\"}} {}\n", state_name(static_cast<HealthState>(s)),
                       by_state[s]);
  out += fmt::format(
      "# HELP fabricfit_health_missed_ports Ports the last sweep did not read.\n"
      "# TYPE fabricfit_health_missed_ports gauge\nfabricfit_health_missed_ports {}\n"
      "# HELP fabricfit_health_last_sweep_seconds When the last sweep ended (Unix time).\n"
      "# TYPE fabricfit_health_last_sweep_seconds gauge\nfabricfit_health_last_sweep_seconds {}\n",
      h.missed.size(), h.sweep_unix);
  out +=
      "# HELP fabricfit_health_link_state A cable that is not healthy (1), by its state.\n"
      "# TYPE fabricfit_health_link_state gauge\n";
  for (const auto& l : h.links)
    out += fmt::format(
        "fabricfit_health_link_state{{a=\"{}\",a_port=\"{}\",b=\"{}\",b_port=\"{}\",state=\"{}\"}} 1\n",
        prom_label(l.a), l.a_port, prom_label(l.b), l.b_port, state_name(l.state));
  out +=
      "# HELP fabricfit_health_counter_rate The rate over its threshold that makes a cable unhealthy, per "
      "end.\n"
      "# TYPE fabricfit_health_counter_rate gauge\n";
  for (const auto& l : h.links)
    for (const auto& e : l.evidence)
      if (e.unit != "down")
        out += fmt::format("fabricfit_health_counter_rate{{at=\"{}\",counter=\"{}\",unit=\"{}\"}} {}\n",
                           prom_label(e.at), e.counter, e.unit, e.rate);
  if (h.nvlink_report.empty()) return out;
  std::size_t degraded = 0;
  for (const auto& n : h.nvlink) degraded += n.state == HealthState::SubHealthy ? 1 : 0;
  out += fmt::format(
      "# HELP fabricfit_health_nvlink_hosts Hosts whose NVLink is not healthy, by state (their own "
      "reports).\n"
      "# TYPE fabricfit_health_nvlink_hosts gauge\n"
      "fabricfit_health_nvlink_hosts{{state=\"degraded\"}} {}\n"
      "fabricfit_health_nvlink_hosts{{state=\"failing\"}} {}\n"
      "# HELP fabricfit_health_nvlink_host_state A host whose NVLink is not healthy (1), by its state.\n"
      "# TYPE fabricfit_health_nvlink_host_state gauge\n",
      degraded, h.nvlink.size() - degraded);
  for (const auto& n : h.nvlink) {
    out += fmt::format("fabricfit_health_nvlink_host_state{{host=\"{}\",state=\"{}\"}} 1\n",
                       prom_label(n.host), nvlink_state_name(n.state));
  }
  return out;
}

// Placement's words for a host's NVLink: it runs slower, or its multi-GPU traffic fails.
std::string_view nvlink_state_name(HealthState s) {
  return s == HealthState::SubHealthy ? "degraded" : s == HealthState::Healthy ? "healthy" : "failing";
}

std::string nvlink_health_text(const HealthFile& h) {
  if (h.nvlink_report.empty()) return "";
  if (h.nvlink.empty())
    return fmt::format("\nNVLink: every host healthy (reports in {}).\n", h.nvlink_report);
  std::string out = fmt::format("\nHosts whose NVLink is not healthy ({}, reports in {}):\n", h.nvlink.size(),
                                h.nvlink_report);
  for (const auto& n : h.nvlink) {
    out += fmt::format("  {}  {}  since {}\n    {} ({})\n", n.host, nvlink_state_name(n.state), n.since_unix,
                       n.reason, n.at);
  }
  return out;
}

}  // namespace fabricfit::cli
