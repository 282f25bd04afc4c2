// SPDX-License-Identifier: GPL-2.0-or-later
// rdma-core's node-name-map (`ibnetdiscover --node-name-map`): node GUID -> name, used
// instead of the NodeDescription the node reports. Same syntax as rdma-core:
//   # comment
//   0x0002c90300001234 "gpu001 mlx5_0"
// A GUID is read as C's strtoull(..., 0) reads it (0x... hex, 0... octal, else decimal).
// Unlike rdma-core, which skips what it cannot use, a line without a name, an
// unterminated quote, text after the name or a GUID named twice with different names
// is an error: a silently ignored line would leave a host with the wrong name.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

namespace fabricfit {

using NodeNameMap = std::unordered_map<std::uint64_t, std::string>;

// what() is "FILE:LINE: reason" (LINE counts from 1), or "FILE: reason" when the
// file cannot be read.
class NodeNameMapError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses the text of a node-name-map; `origin` names it in errors.
[[nodiscard]] NodeNameMap parse_node_name_map(std::string_view text, const std::string& origin);

// Reads and parses a node-name-map file. Throws NodeNameMapError.
[[nodiscard]] NodeNameMap load_node_name_map(const std::filesystem::path& path);

}  // namespace fabricfit
