// SPDX-License-Identifier: GPL-2.0-or-later
// ff_engine_check_slurm_nodes(): the nodes Slurm has, against the fabric's hosts, for
// topology/fabricfit to log once at load and reconfigure. Only the public engine
// functions are used: the engine places on the hosts Slurm offers (allowed[]), so the
// nodes Slurm has are already exactly the compute hosts; this says which do not match.
#include <fmt/format.h>
#include <exception>
#include <set>
#include <string>
#include <vector>

#include "capi/c_edge.hpp"
#include "capi/fabricfit_api.h"
#include "common/hostlist.hpp"

extern "C" {

int ff_engine_check_slurm_nodes(const ff_engine_t* engine, const char* const* names, size_t count,
                                char* report, size_t report_len) {
  if (engine == nullptr || (names == nullptr && count > 0)) return -1;
  try {
    std::set<std::string> slurm;
    std::vector<std::string> missing;  // Slurm nodes without a fabric host
    int found = 0;
    for (size_t i = 0; i < count; ++i) {
      if (names[i] == nullptr) continue;
      slurm.insert(names[i]);
      if (ff_engine_host(engine, names[i]) >= 0)
        ++found;
      else
        missing.emplace_back(names[i]);
    }
    std::vector<std::string> unknown;  // fabric hosts Slurm does not have
    for (int h = 0; h < ff_engine_host_count(engine); ++h) {
      const char* name = ff_engine_host_name(engine, h);
      if (name != nullptr && !slurm.contains(name)) unknown.emplace_back(name);
    }
    std::string text;
    if (!missing.empty()) {
      text += fmt::format("{} Slurm node(s) not in the fabric, placed by Slurm's default selection: {}",
                          missing.size(), fabricfit::compress_hostlist(missing));
    }
    if (!unknown.empty()) {
      text += fmt::format("{}{} fabric host(s) Slurm does not have, never placed on: {}",
                          text.empty() ? "" : "; ", unknown.size(), fabricfit::compress_hostlist(unknown));
    }
    fabricfit::capi::copy_out(text, report, report_len);
    return found;
  } catch (...) {
    fabricfit::capi::copy_out("internal error", report, report_len);
    return -1;
  }
}

}  // extern "C"
