// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm hostlist expressions: {"gpu001", "gpu002", "gpu004"} -> "gpu[001-002,004]".
#pragma once

#include <string>
#include <vector>

namespace fabricfit {

// Names with the same prefix and the same number of trailing digits share one bracket
// expression; names without trailing digits are listed as they are. Sorted, no
// duplicates.
[[nodiscard]] std::string compress_hostlist(const std::vector<std::string>& names);

}  // namespace fabricfit
