// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli/placement_input.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "cli/model_options_cli.hpp"
#include "common/hostlist_expand.hpp"

namespace fabricfit::cli {

Fabric load_fabric(const std::string& source) {
  return open_fabric(source, SourceFormat::Auto, ModelOptions{}).fabric;
}

std::vector<int> hosts_of(const LocalityIndex& index, std::string_view hostlist) {
  std::vector<int> out;
  std::vector<std::string> unknown;
  for (const auto& name : expand_hostlist(hostlist)) {
    if (auto h = index.find_host(name)) {
      out.push_back(*h);
    } else {
      unknown.push_back(name);
    }
  }
  if (!unknown.empty()) {
    std::string names;
    for (std::size_t i = 0; i < unknown.size() && i < 5; ++i) names += (i ? ", " : "") + unknown[i];
    if (unknown.size() > 5) names += fmt::format(" and {} more", unknown.size() - 5);
    throw std::invalid_argument(fmt::format("not in the fabric: {}", names));
  }
  return out;
}

GpuState busy_state(const LocalityIndex& index, const std::string& spec, int gpus_per_node) {
  GpuState state = GpuState::uniform(index.host_count(), gpus_per_node);
  const auto mark = [&](const std::vector<int>& hosts, int busy, const std::string& where) {
    if (busy < 0 || busy > gpus_per_node) {
      throw std::invalid_argument(fmt::format("{}: {} busy GPUs on hosts of {}", where, busy, gpus_per_node));
    }
    for (int h : hosts) state.free[h] = gpus_per_node - busy;
  };
  if (spec.empty()) return state;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(spec, ec)) {
    mark(hosts_of(index, spec), gpus_per_node, "--busy");
    return state;
  }
  std::ifstream in(spec);
  if (!in) throw std::invalid_argument(fmt::format("{}: cannot open", spec));
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    const auto where = fmt::format("{}:{}", spec, no);
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    const auto end = line.find_first_of(" \t\r", first);
    const std::string list = line.substr(first, end - first);
    int busy = gpus_per_node;
    if (end != std::string::npos) {
      const auto count_at = line.find_first_not_of(" \t\r", end);
      if (count_at != std::string::npos) {
        const auto count_end = line.find_first_of(" \t\r", count_at);
        const std::string count = line.substr(count_at, count_end - count_at);
        auto [ptr, err] = std::from_chars(count.data(), count.data() + count.size(), busy);
        if (err != std::errc{} || ptr != count.data() + count.size()) {
          throw std::invalid_argument(fmt::format("{}: '{}' is not a GPU count", where, count));
        }
      }
    }
    try {
      mark(hosts_of(index, list), busy, where);
    } catch (const HostlistError& e) {
      throw std::invalid_argument(fmt::format("{}: {}", where, e.what()));
    } catch (const std::invalid_argument& e) {
      if (std::string_view(e.what()).starts_with(where)) throw;
      throw std::invalid_argument(fmt::format("{}: {}", where, e.what()));
    }
  }
  return state;
}

}  // namespace fabricfit::cli
