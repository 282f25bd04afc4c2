// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm hostlist expressions expanded: "gpu[001-003,007],login1" -> gpu001, gpu002, gpu003,
// gpu007, login1. (compress_hostlist in common/hostlist.hpp goes the other way.)
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fabricfit {

class HostlistError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Names in the order written (ranges ascending), duplicates kept. A range keeps the
// zero padding of its first number ("[08-10]" -> 08, 09, 10); several bracket groups in
// one name expand as a product ("r[1-2]n[1-2]"). Throws HostlistError naming the fault.
[[nodiscard]] std::vector<std::string> expand_hostlist(std::string_view text);

}  // namespace fabricfit
