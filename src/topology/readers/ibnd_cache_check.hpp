// SPDX-License-Identifier: GPL-2.0-or-later
// A structural check of an ibnd cache file (`ibnetdiscover --cache`) before libibnetdisc
// loads it. libibnetdisc trusts the file: a port's LMC above 7 sends its LID table loop
// round forever (allocating until memory runs out), and a node listing a port number above
// its port count makes it write past the node's port array. This check refuses such files
// with a reason that names the byte, so a damaged cache costs an error, not the process.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace fabricfit {

// Checks the bytes of an ibnd cache; `path` names it in errors. Throws DiscoveryError
// "PATH: byte N: reason" for a file libibnetdisc must not be given.
void check_ibnd_cache(std::span<const std::uint8_t> bytes, const std::string& path);

// Reads the file and checks it (above). Throws DiscoveryError if it cannot be read.
void check_ibnd_cache_file(const std::string& path);

}  // namespace fabricfit
