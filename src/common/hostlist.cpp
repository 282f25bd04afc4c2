// SPDX-License-Identifier: GPL-2.0-or-later
// Written from the behaviour of Slurm's hostlist.c (src/common/hostlist.c, GPL), not
// copied from it: a name is a prefix and an optional number of a given width; numbers
// join into ranges when consecutive and of compatible zero padding; ranges of one
// prefix share a bracket. tests/integration/test_hostlist_slurm.sh compares the result
// with `scontrol show hostlistsorted` over many name shapes.
#include "common/hostlist.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <tuple>

namespace fabricfit {
namespace {

bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}
bool is_space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}
char at(std::string_view s, std::size_t i) {
  return i < s.size() ? s[i] : '\0';
}

// Two runs of digits without leading zeros: the longer run is larger, else the first
// digit that differs decides.
int compare_magnitude(std::string_view a, std::size_t i, std::string_view b, std::size_t j) {
  int bias = 0;
  for (;; ++i, ++j) {
    const char x = at(a, i), y = at(b, j);
    if (!is_digit(x) && !is_digit(y)) return bias;
    if (!is_digit(x)) return -1;
    if (!is_digit(y)) return +1;
    if (bias == 0 && x != y) bias = x < y ? -1 : +1;
  }
}

// Runs with a leading zero compare like decimal fractions: the first digit that differs.
int compare_fraction(std::string_view a, std::size_t i, std::string_view b, std::size_t j) {
  for (;; ++i, ++j) {
    const char x = at(a, i), y = at(b, j);
    if (!is_digit(x) && !is_digit(y)) return 0;
    if (!is_digit(x)) return -1;
    if (!is_digit(y)) return +1;
    if (x != y) return x < y ? -1 : +1;
  }
}

struct Name {
  std::string prefix;
  bool single = true;  // no trailing number
  unsigned long number = 0;
  int width = 0;  // digits written, with any leading zeros
};

int digits_of(unsigned long n) {
  int d = 1;
  while (n /= 10) ++d;
  return d;
}
int padding(unsigned long n, int width) {
  return std::max(0, width - digits_of(n));
}

Name split(const std::string& s) {
  std::size_t d = s.size();
  while (d > 0 && is_digit(s[d - 1])) --d;
  // Slurm reads the number with strtoul: more digits than an unsigned long holds is
  // not a number it can range (and no host name has them).
  if (d == s.size() || s.size() - d > 18) return Name{s, true, 0, 0};
  return Name{s.substr(0, d), false, std::stoul(s.substr(d)), static_cast<int>(s.size() - d)};
}

struct Range {
  std::string prefix;
  bool single;
  unsigned long lo, hi;
  int width;
};

}  // namespace

int natural_compare(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (true) {
    while (is_space(at(a, i))) ++i;
    while (is_space(at(b, j))) ++j;
    const char x = at(a, i), y = at(b, j);
    if (is_digit(x) && is_digit(y)) {
      const int r = (x == '0' || y == '0') ? compare_fraction(a, i, b, j) : compare_magnitude(a, i, b, j);
      if (r != 0) return r;
    }
    if (x == '\0' && y == '\0') return 0;
    if (x != y) return static_cast<signed char>(x) < static_cast<signed char>(y) ? -1 : +1;
    ++i;
    ++j;
  }
}

std::string compress_hostlist(const std::vector<std::string>& names) {
  std::vector<Name> parsed;
  parsed.reserve(names.size());
  for (const auto& n : names) parsed.push_back(split(n));

  // Each padded width of a prefix is a class of its own; a number written without
  // padding joins the widest class it is compatible with, or the unpadded class (0),
  // which sorts first, as Slurm sorts incompatible widths by width.
  std::sort(parsed.begin(), parsed.end(), [](const Name& x, const Name& y) {
    const int c = natural_compare(x.prefix, y.prefix);
    return c != 0 ? c < 0 : x.single > y.single;
  });
  for (std::size_t k = 0; k < parsed.size();) {
    std::size_t end = k;
    while (end < parsed.size() && !parsed[end].single && parsed[end].prefix == parsed[k].prefix) ++end;
    // Distinct widths only (at most 18): one entry per name made this quadratic.
    std::vector<int> padded_widths;
    for (std::size_t i = k; i < end; ++i) {
      if (padding(parsed[i].number, parsed[i].width) > 0) padded_widths.push_back(parsed[i].width);
    }
    std::sort(padded_widths.begin(), padded_widths.end());
    padded_widths.erase(std::unique(padded_widths.begin(), padded_widths.end()), padded_widths.end());
    for (std::size_t i = k; i < end; ++i) {
      Name& n = parsed[i];
      if (padding(n.number, n.width) > 0) continue;
      int cls = 0;
      for (int w : padded_widths) {
        if (w <= n.width) cls = std::max(cls, w);
      }
      n.width = cls;  // 0: unpadded
    }
    k = std::max(end, k + 1);
  }
  std::sort(parsed.begin(), parsed.end(), [](const Name& x, const Name& y) {
    const int c = natural_compare(x.prefix, y.prefix);
    if (c != 0) return c < 0;
    if (x.single != y.single) return x.single;
    return std::tie(x.width, x.number) < std::tie(y.width, y.number);
  });

  std::vector<Range> ranges;
  for (const Name& n : parsed) {
    if (!ranges.empty()) {
      Range& last = ranges.back();
      if (last.prefix == n.prefix && last.single == n.single) {
        if (n.single) continue;  // a duplicate
        if (last.width == n.width && n.number <= last.hi + 1) {
          last.hi = std::max(last.hi, n.number);
          continue;
        }
      }
    }
    ranges.push_back(Range{n.prefix, n.single, n.number, n.number, n.width});
  }

  std::string out;
  const auto number = [](unsigned long v, int width) {
    return fmt::format("{:0{}d}", v, std::max(width, 1));
  };
  for (std::size_t i = 0; i < ranges.size();) {
    if (!out.empty()) out += ',';
    const Range& first = ranges[i];
    out += first.prefix;
    if (first.single) {
      ++i;
      continue;
    }
    std::size_t end = i + 1;
    while (end < ranges.size() && !ranges[end].single && ranges[end].prefix == first.prefix) ++end;
    const bool brackets = end - i > 1 || first.hi > first.lo;
    if (brackets) out += '[';
    for (std::size_t k = i; k < end; ++k) {
      if (k > i) out += ',';
      out += number(ranges[k].lo, ranges[k].width);
      if (ranges[k].hi > ranges[k].lo) out += '-' + number(ranges[k].hi, ranges[k].width);
    }
    if (brackets) out += ']';
    i = end;
  }
  return out;
}

}  // namespace fabricfit
