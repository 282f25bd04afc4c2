// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace fabricfit {

// Writes `content` to `path` through a temporary file in the same directory and a
// rename, so that readers see the old file or the whole new one, never a part.
// Throws std::system_error naming the path.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

// Removes the temporaries of write_file_atomically(path) older than `older_than`: a
// writer that died between its write and its rename leaves one. Younger ones may be
// another writer's, still at work. Never throws; how many it removed.
std::size_t remove_stale_temporaries(const std::filesystem::path& path,
                                     std::chrono::seconds older_than) noexcept;

// Appends the whole file at `path` to `out`: the reader of what write_file_atomically
// wrote. False with errno set when it cannot be opened or read (a directory fails with
// EISDIR); `out` may then hold a part, for the caller to drop.
bool read_whole_file(const char* path, std::string& out);

}  // namespace fabricfit
