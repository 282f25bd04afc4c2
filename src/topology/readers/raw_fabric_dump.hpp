// SPDX-License-Identifier: GPL-2.0-or-later
// A RawFabric as sorted, line-oriented text: what the developer tool prints and what
// the tests diff, so that "these readers saw the same subnet" is a plain text compare.
#pragma once

#include <string>

#include "topology/raw_fabric.hpp"

namespace fabricfit {

// Lines, in canonical node order (see put_in_canonical_order):
//   # origin <where it came from>              (a comment: differs between readers)
//   NODE <type> <key> nports=N sysimg=0x... desc="..."
//     PORT <key>[p] -> <peer key>[q] rate=4xHDR lid=N guid=0x...
//   PARTIAL                                    (only for a partial discovery)
//   UNREACHABLE <what>                         (sorted)
// <key> is the node GUID as 0x%016x, or the quoted description when the source gave no
// GUID (ibsim example nets). An unknown rate prints as "?".
[[nodiscard]] std::string dump_raw_fabric(const RawFabric& fabric);

// The key used for a node in the dump.
[[nodiscard]] std::string node_key(const RawNode& node);

}  // namespace fabricfit
