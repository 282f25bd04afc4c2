// SPDX-License-Identifier: GPL-2.0-or-later
// The 32-byte header of fabricfit's binary files (the fabric snapshot, the health file):
//   magic (8 bytes) | u32 version | u32 flags (0) | u64 body bytes |
//   u32 CRC-32C of the body | u32 CRC-32C of the 28 header bytes before it
// One writer for both, so that the two formats cannot drift apart in how they frame a body.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/byte_io.hpp"
#include "common/crc32c.hpp"

namespace fabricfit {

inline std::string encode_file_header(std::string_view magic, std::uint32_t version, std::string_view body) {
  ByteWriter w;
  w.bytes().append(magic);
  w.u32(version);
  w.u32(0);  // flags
  w.u64(body.size());
  w.u32(crc32c(body));
  w.u32(crc32c(w.bytes()));
  return std::move(w.bytes());
}

}  // namespace fabricfit
