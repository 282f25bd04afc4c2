// SPDX-License-Identifier: GPL-2.0-or-later
// When a port's counters make its link unhealthy: the site's settings (fabricfit.conf,
// Health* keys; docs/configuration.md says where each default comes from).
#pragma once

namespace fabricfit {

struct HealthThresholds {
  // HealthSymbolBer: symbol errors per bit at the link's rate. The InfiniBand
  // specification's bit error rate target is 1e-12 (IBA vol. 2, 5.6/6.6); ibdiagnet's
  // default BER threshold is the same.
  double symbol_ber = 1e-12;
  // HealthLinkErrorsPerHour: LinkErrorRecovery, LocalLinkIntegrity and
  // ExcessiveBufferOverrun together. ibdiagnet reports any increase of these; one an hour
  // keeps a single retrain from marking a link.
  double link_errors_per_hour = 1;
  // HealthPacketErrorsPerHour: PortRcvErrors and PortXmitDiscards together (ibqueryerrors
  // reports any; a few an hour are a loaded fabric's normal drops).
  double packet_errors_per_hour = 10;
  // HealthFlapCount, HealthFlapWindow: LinkDowned increments within the window (s) that
  // make a link flapping. One is a repair or a reboot; two within an hour is a pattern.
  int flap_count = 2;
  double flap_window_s = 3600;
  // HealthCongestionShare: PortXmitWait ticks over (ticks + PortXmitData words) in a
  // sweep interval above which a link is congested.
  double congestion_share = 0.1;
  // HealthEnterSweeps, HealthLeaveSweeps: the hysteresis. A rate must be over its
  // threshold in this many sweeps in a row to change the state, and clear in this many
  // to return to healthy. Down and flapping enter at once: they are events, not rates.
  int enter_sweeps = 2;
  int leave_sweeps = 3;
  // HealthSweepTimeout (s): a whole sweep's bound; ports not read by then are missed.
  // HealthQueryTimeout (ms): one MAD's.
  double sweep_timeout_s = 60;
  int query_timeout_ms = 500;
  friend bool operator==(const HealthThresholds&, const HealthThresholds&) = default;
};

}  // namespace fabricfit
