// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/slurm_block_set.hpp"

#include <fmt/format.h>
#include <charconv>

#include "common/hostlist_expand.hpp"

namespace fabricfit {
namespace {

// As many nodes as one hostlist may name (hostlist_expand.cpp), far more than any cluster
// has: without a bound on the whole file, a few lines of wide ranges (a[0-262143],
// b[0-262143], ...) would take gigabytes to read, as the fuzz target found.
constexpr std::size_t kMaxNodes = std::size_t{1} << 18;

// A name a topology.conf can hold, as Slurm's names are: a YAML string can be anything, but
// a space, '#' (a comment), '\\' (a continued line) or a control character would not read
// back from the BlockName lines fabricfit writes, and no Slurm node is so named.
bool conf_word(std::string_view name) {
  for (const char c : name) {
    if (static_cast<unsigned char>(c) <= ' ' || c == '\x7f' || c == '#' || c == '\\') return false;
  }
  return true;
}

}  // namespace

void SlurmBlockSet::fail(int line, const std::string& why) const {
  throw SlurmBlocksError(fmt::format("{}:{}: {}", out_.origin, line, why));
}

void SlurmBlockSet::open(const std::string& name, int line) {
  if (const auto it = block_line_.find(name); it != block_line_.end()) {
    fail(line, fmt::format("block {} is named twice (first on line {})", name, it->second));
  }
  if (!conf_word(name))
    fail(line, fmt::format("block name '{}' has a space, '#', '\\' or a control character", name));
  block_ = SlurmBlock{.name = name, .nodes = {}, .line = line};
}

void SlurmBlockSet::add_nodes(std::string_view hostlist, std::string_view key, int line) {
  std::vector<std::string> names;
  try {
    names = expand_hostlist(hostlist);
  } catch (const HostlistError& e) {
    fail(line, fmt::format("block {}: bad hostlist {}{}: {}", block_.name, key, hostlist, e.what()));
  }
  if (names.size() > kMaxNodes - node_block_.size()) {
    fail(line, fmt::format("block {}: more than {} nodes in all blocks", block_.name, kMaxNodes));
  }
  for (std::string& n : names) {
    if (!conf_word(n)) {
      fail(line, fmt::format("block {}: node name '{}' has a space, '#', '\\' or a control character",
                             block_.name, n));
    }
    const auto [it, fresh] = node_block_.emplace(n, block_.name);
    if (!fresh) {
      fail(line, it->second == block_.name
                     ? fmt::format("node {} is listed twice in block {}", n, block_.name)
                     : fmt::format("node {} of block {} is already in block {} (line {})", n, block_.name,
                                   it->second, block_line_.at(it->second)));
    }
    block_.nodes.push_back(std::move(n));
  }
}

void SlurmBlockSet::close() {
  block_line_.emplace(block_.name, block_.line);
  out_.blocks.push_back(std::move(block_));
  block_ = {};
}

std::optional<int> parse_block_size(std::string_view text) {
  int n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || n <= 0) return std::nullopt;
  return n;
}

}  // namespace fabricfit
