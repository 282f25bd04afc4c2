// SPDX-License-Identifier: GPL-2.0-or-later
// CRC-32C (Castagnoli, as in iSCSI and ext4): in hardware where the CPU has it (x86-64
// SSE 4.2), else through Boost.CRC.
#pragma once

#include <cstdint>
#include <string_view>

namespace fabricfit {

[[nodiscard]] std::uint32_t crc32c(std::string_view bytes);

// The same checksum, always through Boost.CRC (to test one against the other).
[[nodiscard]] std::uint32_t crc32c_without_hardware(std::string_view bytes);

}  // namespace fabricfit
