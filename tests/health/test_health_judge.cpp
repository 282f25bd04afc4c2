// SPDX-License-Identifier: GPL-2.0-or-later
// A port's state over sweeps: rates, resets, saturation, flapping and the hysteresis, on
// hand-computed counters (default thresholds: BER 1e-12, enter after 2 sweeps, leave
// after 3, flapping at 2 LinkDowned increments within 3600 s, congestion over 0.1).
#include <gtest/gtest.h>

#include <initializer_list>
#include <utility>

#include "health/health_judge.hpp"

using namespace fabricfit;

namespace {

constexpr std::size_t idx(Counter c) {
  return static_cast<std::size_t>(c);
}

// A read at `t` seconds with the given counters set (the rest 0), at PortCounters widths.
PortReading read_at(std::int64_t t, std::initializer_list<std::pair<Counter, std::uint64_t>> values,
                    double gbps = 100) {
  PortReading r;
  r.kind = PortReading::Kind::Read;
  r.now_unix = t;
  r.link_gbps = gbps;
  for (std::size_t i = 0; i < kCounterCount; ++i)
    r.sample.bits[i] = static_cast<std::uint8_t>(counter_bits(static_cast<Counter>(i)));
  for (const auto& [c, v] : values) r.sample.value[idx(c)] = v;
  r.sample.time_unix_ms = t * 1000;
  return r;
}

PortReading event_at(std::int64_t t, PortReading::Kind kind) {
  PortReading r;
  r.kind = kind;
  r.now_unix = t;
  return r;
}

const HealthThresholds kDefaults;

}  // namespace

TEST(HealthJudge, SymbolErrorsOverTheBitErrorRateEnterAfterTwoSweeps) {
  PortHealth p;
  update_port_health(p, read_at(0, {}), kDefaults);  // the baseline
  EXPECT_EQ(p.state, HealthState::Healthy);
  // 1000 errors in 3600 s at 100 Gb/s: 1000 / (3600 * 1e11) = 2.78e-12 > 1e-12.
  update_port_health(p, read_at(3600, {{Counter::SymbolErrors, 1000}}), kDefaults);
  EXPECT_EQ(p.state, HealthState::Healthy) << "one sweep over is not enough";
  EXPECT_EQ(p.pending, HealthState::SubHealthy);
  update_port_health(p, read_at(7200, {{Counter::SymbolErrors, 2000}}), kDefaults);
  ASSERT_EQ(p.state, HealthState::SubHealthy);
  EXPECT_EQ(p.since_unix, 7200);
  ASSERT_EQ(p.evidence.size(), 1u);
  EXPECT_EQ(p.evidence[0].counter, "SymbolErrorCounter");
  EXPECT_EQ(p.evidence[0].unit, "ber");
  EXPECT_NEAR(p.evidence[0].rate, 1000.0 / (3600 * 1e11), 1e-18);
  EXPECT_EQ(p.evidence[0].since_unix, 3600) << "over since the first sweep that saw it";
}

TEST(HealthJudge, ErrorsUnderTheBitErrorRateAreHealthy) {
  PortHealth p;
  update_port_health(p, read_at(0, {}), kDefaults);
  // 300 an hour at 100 Gb/s: 8.3e-13, under 1e-12; at 25 Gb/s the same is 3.3e-12, over.
  update_port_health(p, read_at(3600, {{Counter::SymbolErrors, 300}}), kDefaults);
  update_port_health(p, read_at(7200, {{Counter::SymbolErrors, 600}}), kDefaults);
  EXPECT_EQ(p.state, HealthState::Healthy);
  EXPECT_EQ(p.pending_sweeps, 0);
  update_port_health(p, read_at(10800, {{Counter::SymbolErrors, 900}}, 25), kDefaults);
  EXPECT_EQ(p.pending, HealthState::SubHealthy);
}

TEST(HealthJudge, ACounterResetRaisesNoAlarm) {
  PortHealth p;
  update_port_health(p, read_at(0, {{Counter::RcvErrors, 5000}, {Counter::LinkDowned, 7}}), kDefaults);
  // Cleared between sweeps (perfquery -R): every value lower. No rate, no LinkDowned event.
  update_port_health(p, read_at(60, {{Counter::RcvErrors, 2}}), kDefaults);
  update_port_health(p, read_at(120, {{Counter::RcvErrors, 2}}), kDefaults);
  EXPECT_EQ(p.state, HealthState::Healthy);
  EXPECT_EQ(p.pending_sweeps, 0);
  EXPECT_TRUE(p.downed_unix.empty());
  EXPECT_EQ(p.last->value[idx(Counter::RcvErrors)], 2u) << "the reset value is the new baseline";
}

TEST(HealthJudge, LeavesOnlyAfterThreeClearSweepsKeepingItsEvidence) {
  PortHealth p;
  // PortRcvErrors 30 a minute = 1800/h > 10/h, two sweeps: sub-healthy.
  update_port_health(p, read_at(0, {}), kDefaults);
  update_port_health(p, read_at(60, {{Counter::RcvErrors, 30}}), kDefaults);
  update_port_health(p, read_at(120, {{Counter::RcvErrors, 60}}), kDefaults);
  ASSERT_EQ(p.state, HealthState::SubHealthy);
  EXPECT_NEAR(p.evidence.at(0).rate, 1800, 1e-9);
  EXPECT_EQ(p.evidence.at(0).since_unix, 60);
  for (int k = 1; k <= 2; ++k) {
    update_port_health(p, read_at(120 + 60 * k, {{Counter::RcvErrors, 60}}), kDefaults);
    EXPECT_EQ(p.state, HealthState::SubHealthy) << "clear sweep " << k;
    EXPECT_EQ(p.evidence.size(), 1u);
  }
  update_port_health(p, read_at(300, {{Counter::RcvErrors, 60}}), kDefaults);
  EXPECT_EQ(p.state, HealthState::Healthy);
  EXPECT_EQ(p.since_unix, 300);
  EXPECT_TRUE(p.evidence.empty());
}

TEST(HealthJudge, OneSweepOverBetweenClearOnesChangesNothing) {
  PortHealth p;
  update_port_health(p, read_at(0, {}), kDefaults);
  update_port_health(p, read_at(60, {{Counter::XmitDiscards, 100}}), kDefaults);   // over
  update_port_health(p, read_at(120, {{Counter::XmitDiscards, 100}}), kDefaults);  // clear
  update_port_health(p, read_at(180, {{Counter::XmitDiscards, 200}}), kDefaults);  // over again
  EXPECT_EQ(p.state, HealthState::Healthy) << "over, clear, over is not two sweeps in a row";
}

TEST(HealthJudge, TwoLinkDownsWithinTheWindowFlapAtOnce) {
  PortHealth p;
  update_port_health(p, read_at(0, {}), kDefaults);
  update_port_health(p, read_at(60, {{Counter::LinkDowned, 1}}), kDefaults);
  EXPECT_EQ(p.state, HealthState::Healthy) << "one link down is a repair or a reboot";
  update_port_health(p, read_at(120, {{Counter::LinkDowned, 2}}), kDefaults);
  ASSERT_EQ(p.state, HealthState::Flapping);
  EXPECT_EQ(p.since_unix, 120);
  ASSERT_EQ(p.evidence.size(), 1u);
  EXPECT_EQ(p.evidence[0].counter, "LinkDownedCounter");
  EXPECT_EQ(p.evidence[0].rate, 2);
  EXPECT_EQ(p.evidence[0].since_unix, 60) << "since the first of the two";
  // From 3700 on the window holds fewer than two events (60 + 3600 < 3700): three clear sweeps.
  update_port_health(p, read_at(3700, {{Counter::LinkDowned, 2}}), kDefaults);
  update_port_health(p, read_at(3760, {{Counter::LinkDowned, 2}}), kDefaults);
  EXPECT_EQ(p.state, HealthState::Flapping);
  update_port_health(p, read_at(3820, {{Counter::LinkDowned, 2}}), kDefaults);
  EXPECT_EQ(p.state, HealthState::Healthy);
}

TEST(HealthJudge, CongestionIsTheWaitShareOverTheThreshold) {
  PortHealth p;
  update_port_health(p, read_at(0, {}), kDefaults);
  // 500 / (500 + 4500) = 0.1: not over 0.1.
  update_port_health(p, read_at(60, {{Counter::XmitWait, 500}, {Counter::XmitData, 4500}}), kDefaults);
  EXPECT_EQ(p.pending_sweeps, 0);
  // Then 1000 / (1000 + 4000) = 0.2, twice.
  update_port_health(p, read_at(120, {{Counter::XmitWait, 1500}, {Counter::XmitData, 8500}}), kDefaults);
  update_port_health(p, read_at(180, {{Counter::XmitWait, 2500}, {Counter::XmitData, 12500}}), kDefaults);
  ASSERT_EQ(p.state, HealthState::Congested);
  EXPECT_NEAR(p.evidence.at(0).rate, 0.2, 1e-12);
  EXPECT_EQ(p.evidence.at(0).unit, "share");
}

TEST(HealthJudge, DownAtOnceAndUpAtOnce) {
  PortHealth p;
  update_port_health(p, read_at(0, {}), kDefaults);
  update_port_health(p, event_at(60, PortReading::Kind::Down), kDefaults);
  ASSERT_EQ(p.state, HealthState::Down);
  EXPECT_EQ(p.evidence.at(0).counter, "PortState");
  update_port_health(p, event_at(120, PortReading::Kind::Down), kDefaults);
  EXPECT_EQ(p.since_unix, 60);
  // Back with LinkDowned at 1: up, and one link-down is not flapping.
  update_port_health(p, read_at(180, {{Counter::LinkDowned, 1}}), kDefaults);
  EXPECT_EQ(p.state, HealthState::Healthy);
  EXPECT_EQ(p.downed_unix.size(), 1u);
}

TEST(HealthJudge, AMissedPortKeepsItsStateAndBaseline) {
  PortHealth p;
  update_port_health(p, read_at(0, {}), kDefaults);
  update_port_health(p, event_at(60, PortReading::Kind::Down), kDefaults);
  const PortSample before = *p.last;
  update_port_health(p, event_at(120, PortReading::Kind::Missed), kDefaults);
  EXPECT_TRUE(p.missed);
  EXPECT_EQ(p.state, HealthState::Down);
  EXPECT_EQ(*p.last, before);
}

TEST(HealthJudge, SaturatedCountersAreMarkedAndCountAsALowerBound) {
  PortHealth p;
  update_port_health(p, read_at(0, {{Counter::RcvErrors, 65000}}), kDefaults);
  update_port_health(p, read_at(60, {{Counter::RcvErrors, 65535}}), kDefaults);
  EXPECT_EQ(p.saturated, 1u << idx(Counter::RcvErrors));
  EXPECT_EQ(p.pending, HealthState::SubHealthy) << "535 in a minute is over, even as a lower bound";
  update_port_health(p, read_at(120, {{Counter::RcvErrors, 65535}}), kDefaults);
  EXPECT_EQ(p.state, HealthState::Healthy) << "stuck at the ceiling: no rate, no alarm";
}

TEST(HealthJudge, A64BitDataCounterThatWrapsCountsAcrossTheWrap) {
  PortHealth p;
  auto r0 = read_at(0, {{Counter::XmitData, UINT64_MAX - 999}, {Counter::XmitWait, 0}});
  r0.sample.bits[idx(Counter::XmitData)] = 64;
  update_port_health(p, r0, kDefaults);
  // 1000 words to the wrap plus 8000 after it; 1000 wait ticks: 1000 / 10000 = 0.1, not over.
  auto r1 = read_at(60, {{Counter::XmitData, 8000}, {Counter::XmitWait, 1000}});
  r1.sample.bits[idx(Counter::XmitData)] = 64;
  update_port_health(p, r1, kDefaults);
  EXPECT_EQ(p.pending_sweeps, 0) << "a reset would have made the share 1000/1000 = 1";
}
