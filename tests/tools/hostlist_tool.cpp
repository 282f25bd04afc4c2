// SPDX-License-Identifier: GPL-2.0-or-later
// fabricfit-hostlist: host names (one per line, or comma-separated, on standard input)
// as the node list fabricfit writes, so that tests/integration/test_hostlist_slurm.sh can
// compare it with `scontrol show hostlistsorted` for the same names.
//   fabricfit-hostlist < names          -> gpu[001-032],login1
//   fabricfit-hostlist --expand < list  -> one name per line
// A developer tool, not installed.
#include <fmt/format.h>
#include <iostream>
#include <string>
#include <vector>

#include "common/hostlist.hpp"
#include "common/hostlist_expand.hpp"

int main(int argc, char** argv) {
  const bool expand = argc > 1 && std::string(argv[1]) == "--expand";
  try {
    std::vector<std::string> names;
    std::string line;
    while (std::getline(std::cin, line)) {
      if (expand) {
        if (!line.empty()) {
          for (auto& n : fabricfit::expand_hostlist(line)) names.push_back(std::move(n));
        }
        continue;
      }
      std::size_t start = 0;
      while (start <= line.size()) {
        const auto comma = line.find(',', start);
        const auto end = comma == std::string::npos ? line.size() : comma;
        if (end > start) names.push_back(line.substr(start, end - start));
        start = end + 1;
      }
    }
    if (expand) {
      for (const auto& n : names) fmt::print("{}\n", n);
    } else {
      fmt::print("{}\n", fabricfit::compress_hostlist(names));
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "fabricfit-hostlist: {}\n", e.what());
    return 1;
  }
  return 0;
}
