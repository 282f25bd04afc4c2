// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm hostlist expressions: {"gpu001", "gpu002", "gpu004"} -> "gpu[001-002,004]",
// written exactly as Slurm's own hostlist functions write them (hostlist_sort, then
// hostlist_ranged_string: what `scontrol show hostlistsorted` prints), so that a node
// list fabricfit writes and one Slurm writes for the same names are the same string.
// docs/fabric-model.md, "Host lists", says what that means and how it is tested.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fabricfit {

// Natural order, as Slurm's strnatcmp: runs of digits compare as numbers ("node9" <
// "node10"), a run starting with 0 compares digit by digit. Negative, 0 or positive.
[[nodiscard]] int natural_compare(std::string_view a, std::string_view b);
[[nodiscard]] inline bool natural_less(std::string_view a, std::string_view b) {
  return natural_compare(a, b) < 0;
}

// Names split into prefix and trailing number; names of one prefix share one bracket
// expression, consecutive numbers one range ("node[1-24]" for node1..node24, whatever
// their digit counts; zero-padded numbers keep their padding: "n[01-10]"). Sorted in
// natural order, duplicates dropped.
[[nodiscard]] std::string compress_hostlist(const std::vector<std::string>& names);

}  // namespace fabricfit
