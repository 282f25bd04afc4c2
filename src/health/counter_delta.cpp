// SPDX-License-Identifier: GPL-2.0-or-later
#include "health/counter_delta.hpp"

namespace fabricfit {

CounterDelta counter_delta(std::uint64_t prev, std::uint64_t cur, int bits, bool wraps) {
  const std::uint64_t ceiling = counter_ceiling(bits);
  if (cur >= prev) {
    const std::uint64_t delta = cur - prev;
    if (!wraps && cur == ceiling) return {DeltaKind::Saturated, delta};
    return {DeltaKind::Counted, delta};
  }
  // Down. A wrap passes the ceiling once: from the upper half to the lower one. Anything
  // else (and every decrease of a saturating counter) is a reset: a new baseline.
  const std::uint64_t half = ceiling / 2;
  if (wraps && prev > half && cur <= half) return {DeltaKind::Wrapped, (ceiling - prev) + cur + 1};
  return {DeltaKind::Reset, 0};
}

}  // namespace fabricfit
