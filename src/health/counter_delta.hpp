// SPDX-License-Identifier: GPL-2.0-or-later
// How much a counter counted between two reads. Never judges an absolute count: only
// what changed. A counter that went down was reset (by an admin's perfquery -R, a reboot,
// a replaced cable): the new value is a new baseline and counts for nothing, so a reset
// never raises an alarm. A 64-bit counter that went down from its upper half to its lower
// half wrapped. A PortCounters counter stops at all ones (it saturates, IBA 16.1.3.5):
// at its ceiling the delta is only a lower bound, and once it sits there nothing more can
// be learnt until it is cleared (`fabricfit health --clear`).
#pragma once

#include <cstdint>

namespace fabricfit {

enum class DeltaKind : std::uint8_t {
  Counted,    // cur - prev
  Reset,      // went down: new baseline, delta 0
  Wrapped,    // a wrapping counter passed its ceiling once
  Saturated,  // reached its ceiling: delta is a lower bound (0 when it was there already)
};

struct CounterDelta {
  DeltaKind kind = DeltaKind::Counted;
  std::uint64_t delta = 0;
  friend bool operator==(const CounterDelta&, const CounterDelta&) = default;
};

// `bits`: the counter's width (1..64); `wraps`: it wraps (64-bit extended counters) rather
// than saturating (every PortCounters counter).
[[nodiscard]] CounterDelta counter_delta(std::uint64_t prev, std::uint64_t cur, int bits, bool wraps);

[[nodiscard]] constexpr std::uint64_t counter_ceiling(int bits) {
  return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

}  // namespace fabricfit
