// SPDX-License-Identifier: GPL-2.0-or-later
// Slurm's config files (slurm.conf, topology.conf) as their parser reads them: a '#' starts
// a comment, a line ending in '\' goes on in the next one, a CRLF end is a line end. One
// reader for every parser of them, so they agree on what a line is.
#pragma once

#include <sstream>
#include <string>
#include <string_view>

namespace fabricfit {

// Calls on_line(text, first) for each logical line: comments removed, continuations joined
// with a space, `first` the number (from 1) of its first physical line.
template <typename OnLine>
void for_each_conf_line(std::string_view text, OnLine&& on_line) {
  std::istringstream in{std::string(text)};
  std::string line, joined;
  int number = 0, first = 0;
  while (std::getline(in, line)) {
    ++number;
    if (joined.empty()) first = number;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty() && line.back() == '\\') {
      line.pop_back();
      joined += line + ' ';
      continue;
    }
    joined += line;
    on_line(joined, first);
    joined.clear();
  }
  if (!joined.empty()) on_line(joined, first);  // the file ended inside a continuation
}

}  // namespace fabricfit
