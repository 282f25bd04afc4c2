// SPDX-License-Identifier: GPL-2.0-or-later
#include "health/health_judge.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "health/counter_delta.hpp"

namespace fabricfit {
namespace {

constexpr std::size_t idx(Counter c) {
  return static_cast<std::size_t>(c);
}
// A port flapping without end would grow its list: the window needs no more than this.
constexpr std::size_t kMaxDownedEvents = 255;

struct Verdict {
  HealthState state = HealthState::Healthy;
  std::vector<Evidence> evidence;
  void over(HealthState s, Evidence e) {
    state = std::max(state, s);
    evidence.push_back(std::move(e));
  }
};

// The deltas of every counter since `prev`, and which counters sit at their ceiling.
struct Deltas {
  std::array<std::uint64_t, kCounterCount> delta{};
  std::uint16_t saturated = 0;
};

Deltas deltas_between(const PortSample& prev, const PortSample& cur) {
  Deltas d;
  for (std::size_t i = 0; i < kCounterCount; ++i) {
    // A counter read at another width (the port started answering PortCountersExtended)
    // cannot be compared: a new baseline.
    if (prev.bits[i] != cur.bits[i]) continue;
    const bool wraps = cur.bits[i] >= 64;
    const CounterDelta cd = counter_delta(prev.value[i], cur.value[i], cur.bits[i], wraps);
    d.delta[i] = cd.delta;
    if (cd.kind == DeltaKind::Saturated) d.saturated |= static_cast<std::uint16_t>(1u << i);
  }
  return d;
}

// The evidence's `since`: kept from the port's earlier evidence on the same counter.
std::int64_t since_of(const PortHealth& port, const std::string& counter, std::int64_t now) {
  for (const auto& e : port.evidence)
    if (e.counter == counter) return e.since_unix;
  return now;
}

Verdict judge(PortHealth& port, const PortReading& r, const Deltas& d, double seconds,
              const HealthThresholds& t) {
  Verdict v;
  const auto ev = [&](Counter c, double rate, const char* unit, double threshold) {
    const std::string name(counter_name(c));
    return Evidence{name, rate, unit, threshold, since_of(port, name, r.now_unix), {}};
  };
  // Flapping: LinkDowned increments within the window (a reset counted none).
  for (std::uint64_t k = 0;
       k < d.delta[idx(Counter::LinkDowned)] && port.downed_unix.size() < kMaxDownedEvents; ++k)
    port.downed_unix.push_back(r.now_unix);
  std::erase_if(port.downed_unix, [&](std::int64_t at) { return at + t.flap_window_s < r.now_unix; });
  if (static_cast<int>(port.downed_unix.size()) >= t.flap_count) {
    Evidence e = ev(Counter::LinkDowned, static_cast<double>(port.downed_unix.size()), "in_window",
                    static_cast<double>(t.flap_count));
    e.since_unix = port.downed_unix.front();
    v.over(HealthState::Flapping, std::move(e));
  }
  if (seconds <= 0) return v;
  const double hours = seconds / 3600;
  // Symbol errors against the specification's bit error rate at the link's rate.
  const double gbps = r.link_gbps > 0 ? r.link_gbps : 100;
  const double ber = static_cast<double>(d.delta[idx(Counter::SymbolErrors)]) / (seconds * gbps * 1e9);
  if (ber > t.symbol_ber)
    v.over(HealthState::SubHealthy, ev(Counter::SymbolErrors, ber, "ber", t.symbol_ber));
  for (const Counter c :
       {Counter::LinkErrorRecovery, Counter::LocalLinkIntegrity, Counter::ExcessiveBufferOverrun}) {
    const double per_hour = static_cast<double>(d.delta[idx(c)]) / hours;
    if (per_hour > t.link_errors_per_hour)
      v.over(HealthState::SubHealthy, ev(c, per_hour, "per_hour", t.link_errors_per_hour));
  }
  for (const Counter c : {Counter::RcvErrors, Counter::XmitDiscards}) {
    const double per_hour = static_cast<double>(d.delta[idx(c)]) / hours;
    if (per_hour > t.packet_errors_per_hour)
      v.over(HealthState::SubHealthy, ev(c, per_hour, "per_hour", t.packet_errors_per_hour));
  }
  const double wait = static_cast<double>(d.delta[idx(Counter::XmitWait)]);
  const double data = static_cast<double>(d.delta[idx(Counter::XmitData)]);
  if (wait + data > 0 && wait / (wait + data) > t.congestion_share)
    v.over(HealthState::Congested, ev(Counter::XmitWait, wait / (wait + data), "share", t.congestion_share));
  return v;
}

// Hysteresis: a rate-based state needs enter_sweeps in a row; down and flapping are
// events and enter at once; healthy returns after leave_sweeps clear sweeps. The evidence
// is what is over now (kept while a port counts its clear sweeps, so that it says why it
// is still not healthy; kept while pending too, so that `since` is the first sweep over).
void step(PortHealth& port, Verdict v, std::int64_t now, const HealthThresholds& t) {
  const auto enter = [&](HealthState s) {
    port.state = s;
    port.since_unix = now;
    port.pending = s;
    port.pending_sweeps = 0;
    port.clear_sweeps = 0;
  };
  if (v.state == port.state) {
    port.pending = port.state;
    port.pending_sweeps = 0;
    port.clear_sweeps = 0;
  } else if (port.state == HealthState::Down) {
    // A down port that answers again is up: a fact, like going down, so no hysteresis.
    enter(v.state);
  } else if (v.state == HealthState::Healthy) {
    port.pending = HealthState::Healthy;
    port.pending_sweeps = 0;
    if (++port.clear_sweeps >= t.leave_sweeps) enter(HealthState::Healthy);
  } else {
    port.clear_sweeps = 0;
    port.pending_sweeps = port.pending == v.state ? port.pending_sweeps + 1 : 1;
    port.pending = v.state;
    const bool event = v.state == HealthState::Down || v.state == HealthState::Flapping;
    if (event || port.pending_sweeps >= t.enter_sweeps) enter(v.state);
  }
  if (v.state != HealthState::Healthy) {
    port.evidence = std::move(v.evidence);
  } else if (port.state == HealthState::Healthy) {
    port.evidence.clear();
  }
}

}  // namespace

void update_port_health(PortHealth& port, const PortReading& r, const HealthThresholds& t) {
  if (r.kind == PortReading::Kind::Missed) {
    port.missed = true;
    return;
  }
  port.missed = false;
  if (r.kind == PortReading::Kind::Down) {
    Verdict v;
    v.over(HealthState::Down,
           Evidence{"PortState", 0, "down", 0, since_of(port, "PortState", r.now_unix), {}});
    step(port, std::move(v), r.now_unix, t);
    return;
  }
  Deltas d;
  double seconds = 0;
  if (port.last) {
    d = deltas_between(*port.last, r.sample);
    seconds = static_cast<double>(r.sample.time_unix_ms - port.last->time_unix_ms) / 1000;
  }
  port.saturated = d.saturated;
  Verdict v = judge(port, r, d, seconds, t);
  port.last = r.sample;
  step(port, std::move(v), r.now_unix, t);
}

}  // namespace fabricfit
