// SPDX-License-Identifier: GPL-2.0-or-later
// The health file: what `fabricfit health` sweeps keep between runs and what placement
// reads. Versioned and checksummed like the snapshot (docs/health-format.md), written
// atomically beside it. A file that is truncated, corrupt or of another version is
// refused whole, with an error naming the file and what is wrong.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include "health/health_model.hpp"

namespace fabricfit {

// Version 2 adds the NVLink section; version 1 files are still read (no NVLink hosts), and
// a file with no NVLink report is still written as version 1.
inline constexpr std::uint32_t kHealthVersion = 2;
inline constexpr std::size_t kHealthHeaderBytes = 32;

class HealthFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[nodiscard]] std::string encode_health(const HealthFile& health);
// `origin` names the bytes in errors. Throws HealthFileError.
[[nodiscard]] HealthFile decode_health(std::string_view bytes, const std::string& origin);

// Through a temporary file and a rename. Throws std::system_error.
void save_health(const std::filesystem::path& path, const HealthFile& health);
// Throws HealthFileError (an unreadable file too).
[[nodiscard]] HealthFile load_health(const std::filesystem::path& path);

// The health file beside a snapshot: fabric.snapshot -> fabric.health.
[[nodiscard]] std::filesystem::path health_path_beside(const std::filesystem::path& snapshot);

}  // namespace fabricfit
