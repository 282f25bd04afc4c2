// SPDX-License-Identifier: GPL-2.0-or-later
#include "common/hostlist.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace fabricfit {

std::string compress_hostlist(const std::vector<std::string>& names) {
  // (prefix, digit count) -> numbers; plain names apart.
  std::map<std::pair<std::string, std::size_t>, std::set<unsigned long long>> numbered;
  std::set<std::string> plain;
  for (const std::string& n : names) {
    std::size_t d = n.size();
    while (d > 0 && std::isdigit(static_cast<unsigned char>(n[d - 1]))) --d;
    const std::size_t digits = n.size() - d;
    if (digits == 0 || digits > 18) {
      plain.insert(n);
      continue;
    }
    numbered[{n.substr(0, d), digits}].insert(std::stoull(n.substr(d)));
  }
  std::vector<std::string> parts(plain.begin(), plain.end());
  for (const auto& [key, numbers] : numbered) {
    const auto& [prefix, width] = key;
    const auto pad = [w = width](unsigned long long v) { return fmt::format("{:0{}d}", v, w); };
    if (numbers.size() == 1) {
      parts.push_back(prefix + pad(*numbers.begin()));
      continue;
    }
    std::vector<std::string> ranges;
    auto it = numbers.begin();
    while (it != numbers.end()) {
      const unsigned long long first = *it;
      unsigned long long last = first;
      while (std::next(it) != numbers.end() && *std::next(it) == last + 1) last = *++it;
      ranges.push_back(first == last ? pad(first) : pad(first) + "-" + pad(last));
      ++it;
    }
    std::string joined;
    for (const auto& r : ranges) {
      if (!joined.empty()) joined += ',';
      joined += r;
    }
    parts.push_back(prefix + "[" + joined + "]");
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

}  // namespace fabricfit
