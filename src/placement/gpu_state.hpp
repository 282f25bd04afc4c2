// SPDX-License-Identifier: GPL-2.0-or-later
// The GPUs of every host, free and in total: the state a placement decision reads and
// the replay changes. Indexed like Fabric::hosts (and LocalityIndex hosts).
#pragma once

#include <algorithm>
#include <vector>

namespace fabricfit {

struct GpuState {
  std::vector<int> total;  // GPUs on the host; 0 for a host that is not a GPU node
  std::vector<int> free;   // GPUs no job holds

  [[nodiscard]] static GpuState uniform(int hosts, int gpus_per_host) {
    return GpuState{std::vector<int>(hosts, gpus_per_host), std::vector<int>(hosts, gpus_per_host)};
  }
  [[nodiscard]] int host_count() const { return static_cast<int>(total.size()); }
  [[nodiscard]] bool whole_free(int host) const { return total[host] > 0 && free[host] == total[host]; }
  [[nodiscard]] int max_gpus_per_host() const {
    return total.empty() ? 0 : *std::max_element(total.begin(), total.end());
  }
};

}  // namespace fabricfit
