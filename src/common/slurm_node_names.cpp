// SPDX-License-Identifier: GPL-2.0-or-later
#include "common/slurm_node_names.hpp"

#include <fmt/format.h>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "common/conf_lines.hpp"
#include "common/hostlist_expand.hpp"
#include "common/iequals.hpp"

namespace fabricfit {

std::vector<std::string> parse_slurm_node_lines(std::string_view text, const std::string& source) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for_each_conf_line(text, [&](const std::string& line, int first_line) {
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      const auto eq = word.find('=');
      if (eq == std::string::npos || !iequals(word.substr(0, eq), "NodeName")) continue;
      const std::string value = word.substr(eq + 1);
      if (value.empty()) {
        throw SlurmNodesError(fmt::format("{}:{}: NodeName= without a name", source, first_line));
      }
      if (iequals(value, "DEFAULT")) continue;
      try {
        for (auto& n : expand_hostlist(value)) {
          if (seen.insert(n).second) names.push_back(std::move(n));
        }
      } catch (const HostlistError& e) {
        throw SlurmNodesError(fmt::format("{}:{}: NodeName={}: {}", source, first_line, value, e.what()));
      }
    }
  });
  return names;
}

std::vector<std::string> load_slurm_nodes(const std::string& spec) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(spec, ec)) {
    std::ifstream in(spec);
    if (!in) throw SlurmNodesError(fmt::format("{}: cannot be read", spec));
    std::stringstream text;
    text << in.rdbuf();
    auto names = parse_slurm_node_lines(text.str(), spec);
    if (names.empty()) throw SlurmNodesError(fmt::format("{}: no NodeName= line names a node", spec));
    return names;
  }
  // A host name has no '/': a path that is not a file is a file gone, not a hostlist.
  if (spec.find('/') != std::string::npos) throw SlurmNodesError(fmt::format("{}: no such file", spec));
  try {
    std::vector<std::string> names;
    std::set<std::string> seen;
    for (auto& n : expand_hostlist(spec)) {
      if (seen.insert(n).second) names.push_back(std::move(n));
    }
    return names;
  } catch (const HostlistError& e) {
    throw SlurmNodesError(
        fmt::format("--slurm-nodes '{}' is neither a file nor a hostlist expression: {}", spec, e.what()));
  }
}

}  // namespace fabricfit
