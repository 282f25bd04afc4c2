// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <filesystem>
#include <string_view>

namespace fabricfit {

// Writes `content` to `path` through a temporary file in the same directory and a
// rename, so that readers see the old file or the whole new one, never a part.
// Throws std::system_error naming the path.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace fabricfit
