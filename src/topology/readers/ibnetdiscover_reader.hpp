// SPDX-License-Identifier: GPL-2.0-or-later
// Reads `ibnetdiscover` topology output (and ibsim net files, the same format) into a
// RawFabric. See docs/readers.md for what is accepted and what is an error.
#pragma once

#include <string>
#include <string_view>

#include "topology/raw_fabric.hpp"
#include "topology/readers/reader_error.hpp"

namespace fabricfit {

// Parses the text of a topology file. `source` names it in errors ("FILE:LINE: reason")
// and in RawFabric::origin. Throws ParseError. Every link must be listed on both of its
// ends, consistently; nodes come out in canonical order (raw_fabric_order.hpp).
// A text file never yields a partial RawFabric: ibnetdiscover prints only what it
// reached, so a file cannot say what it missed.
[[nodiscard]] RawFabric read_ibnetdiscover_text(std::string_view text, const std::string& source);

// Reads and parses a file. Throws ParseError, or ReaderError if it cannot be read.
[[nodiscard]] RawFabric read_ibnetdiscover_file(const std::string& path);

}  // namespace fabricfit
