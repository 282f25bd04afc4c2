// SPDX-License-Identifier: GPL-2.0-or-later
// PortInfo's width and speed codes as a LinkRate, decoded the way ibnetdiscover prints
// them, so that live discovery and ibnetdiscover text agree on every link.
#pragma once

#include <cstdint>

#include "topology/link_rate.hpp"

namespace fabricfit {

// The fields of one port that decide its rate.
struct PortRateCodes {
  std::uint32_t width_active = 0;      // LinkWidthActive: 1=1x 2=4x 4=8x 8=12x 16=2x
  std::uint32_t speed_active = 0;      // LinkSpeedActive: 1=SDR 2=DDR 4=QDR
  std::uint32_t ext_speed_active = 0;  // LinkSpeedExtActive: 1=FDR 2=EDR 4=HDR 8=NDR
  bool has_ext_speeds = false;         // CapabilityMask.IsExtendedSpeedsSupported (port 0 of a switch)
  bool fdr10 = false;                  // Mellanox ExtendedPortInfo: link runs FDR10
};

// CapabilityMask bit: IsExtendedSpeedsSupported (IBA 14.2.5.6, bit 14).
inline constexpr std::uint32_t kCapHasExtSpeeds = 1u << 14;
// Mellanox ExtendedPortInfo LinkSpeedActive bit for FDR10.
inline constexpr std::uint32_t kMlnxFdr10 = 1u << 0;

// The rate, or unknown_link_rate() when a code is not one ibnetdiscover knows (it
// prints "??" or "???" for those). LinkSpeedExtActive counts only when the port says
// it supports extended speeds, and a QDR LinkSpeedActive with no extended speed may
// be FDR10, as in ibnetdiscover.
[[nodiscard]] LinkRate decode_link_rate(const PortRateCodes& codes);

}  // namespace fabricfit
