// SPDX-License-Identifier: GPL-2.0-or-later
// The Performance Management counters fabricfit watches on every port (IBA vol. 1,
// 16.1.3.5 PortCounters and 16.1.4.11 PortCountersExtended), with their widths: the
// PortCounters error counters are narrow and saturate at all ones, the extended data
// counters are 64 bits wide and wrap.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fabricfit {

enum class Counter : std::uint8_t {
  SymbolErrors,            // SymbolErrorCounter, 16 bits
  LinkErrorRecovery,       // LinkErrorRecoveryCounter, 8 bits: retrains
  LinkDowned,              // LinkDownedCounter, 8 bits: the link went down
  RcvErrors,               // PortRcvErrors, 16 bits: bad packets received
  LocalLinkIntegrity,      // LocalLinkIntegrityErrors, 4 bits
  ExcessiveBufferOverrun,  // ExcessiveBufferOverrunErrors, 4 bits
  XmitDiscards,            // PortXmitDiscards, 16 bits: packets dropped on the way out
  XmitWait,                // PortXmitWait, 32 bits: ticks with data to send and no credit
  XmitData,                // PortXmitData in 4-byte words: 32 bits, or 64 when extended
};
inline constexpr std::size_t kCounterCount = 9;

// The names perfquery prints (PortCounters field names), as the health file and the
// evidence say them.
[[nodiscard]] std::string_view counter_name(Counter c);
// The PortCounters width of `c` (XmitData: 32; the extended one is 64).
[[nodiscard]] int counter_bits(Counter c);

// One read of a port's counters.
struct PortSample {
  std::array<std::uint64_t, kCounterCount> value{};
  // Width each value was read at (XmitData: 64 when read from PortCountersExtended).
  std::array<std::uint8_t, kCounterCount> bits{};
  std::int64_t time_unix_ms = 0;
  [[nodiscard]] std::uint64_t operator[](Counter c) const { return value[static_cast<std::size_t>(c)]; }
  friend bool operator==(const PortSample&, const PortSample&) = default;
};

// A port as the fabric model names it: node GUID and port number.
struct PortId {
  std::uint64_t guid = 0;
  int port = 0;
  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy misreads the 0 of a defaulted <=>
  friend auto operator<=>(const PortId&, const PortId&) = default;
};

}  // namespace fabricfit
