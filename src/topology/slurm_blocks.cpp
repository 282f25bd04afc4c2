// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/slurm_blocks.hpp"

#include <fmt/format.h>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <sstream>

#include "common/atomic_file.hpp"
#include "common/conf_lines.hpp"
#include "common/hostlist.hpp"
#include "common/hostlist_expand.hpp"
#include "common/iequals.hpp"

namespace fabricfit {
namespace {

struct Word {
  std::string key, value;
};

class Parser {
 public:
  explicit Parser(const std::string& origin) { out_.origin = origin; }

  // One logical line (continuations joined), `line` its first line's number.
  void line(const std::string& text, int line) {
    line_ = line;
    std::vector<Word> words;
    std::istringstream in(text);
    std::string w;
    while (in >> w) {
      const auto eq = w.find('=');
      if (eq == std::string::npos || eq == 0) fail(fmt::format("'{}' is not Key=Value", w));
      words.push_back({w.substr(0, eq), w.substr(eq + 1)});
    }
    if (words.empty()) return;
    const Word& first = words.front();
    if (iequals(first.key, "BlockName")) {
      block(words);
    } else if (iequals(first.key, "BlockSizes")) {
      if (words.size() > 1) fail(fmt::format("unknown key '{}' after BlockSizes=", words[1].key));
      sizes(first.value);
    } else if (iequals(first.key, "SwitchName")) {
      fail("SwitchName lines are topology/tree's; --blocks reads topology/block's BlockName lines");
    } else {
      fail(fmt::format("unknown key '{}' (a block topology.conf has BlockName and BlockSizes lines)",
                       first.key));
    }
  }

  SlurmBlocks finish() {
    if (out_.blocks.empty()) throw SlurmBlocksError(fmt::format("{}: no BlockName line", out_.origin));
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw SlurmBlocksError(fmt::format("{}:{}: {}", out_.origin, line_, why));
  }

  void block(const std::vector<Word>& words) {
    SlurmBlock b;
    b.name = words.front().value;
    b.line = line_;
    if (b.name.empty()) fail("BlockName= without a name");
    if (const auto it = block_line_.find(b.name); it != block_line_.end()) {
      fail(fmt::format("block {} is named twice (first on line {})", b.name, it->second));
    }
    bool have_nodes = false;
    for (std::size_t i = 1; i < words.size(); ++i) {
      const Word& w = words[i];
      if (!iequals(w.key, "Nodes")) {
        fail(fmt::format("unknown key '{}' on a BlockName line (it takes Nodes= only)", w.key));
      }
      if (have_nodes) fail(fmt::format("block {} has Nodes= twice", b.name));
      have_nodes = true;
      if (w.value.empty()) fail(fmt::format("block {}: Nodes= without nodes", b.name));
      std::vector<std::string> names;
      try {
        names = expand_hostlist(w.value);
      } catch (const HostlistError& e) {
        fail(fmt::format("block {}: bad hostlist Nodes={}: {}", b.name, w.value, e.what()));
      }
      for (std::string& n : names) {
        const auto [it, fresh] = node_block_.emplace(n, b.name);
        if (!fresh) {
          fail(it->second == b.name ? fmt::format("node {} is listed twice in block {}", n, b.name)
                                    : fmt::format("node {} of block {} is already in block {} (line {})", n,
                                                  b.name, it->second, block_line_.at(it->second)));
        }
        b.nodes.push_back(std::move(n));
      }
    }
    if (!have_nodes) fail(fmt::format("block {} has no Nodes=", b.name));
    block_line_.emplace(b.name, line_);
    out_.blocks.push_back(std::move(b));
  }

  void sizes(const std::string& value) {
    if (!out_.block_sizes.empty()) fail("BlockSizes= twice");
    std::string_view rest = value;
    while (true) {
      const auto comma = rest.find(',');
      const std::string_view item = rest.substr(0, comma);
      int n = 0;
      const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), n);
      if (item.empty() || ec != std::errc() || end != item.data() + item.size() || n <= 0) {
        fail(fmt::format("BlockSizes={}: '{}' is not a positive number", value, item));
      }
      out_.block_sizes.push_back(n);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }

  SlurmBlocks out_;
  int line_ = 0;
  std::map<std::string, int, std::less<>> block_line_;          // block -> its line
  std::map<std::string, std::string, std::less<>> node_block_;  // node -> its block
};

}  // namespace

SlurmBlocks parse_slurm_blocks(std::string_view text, const std::string& origin) {
  Parser parser(origin);
  for_each_conf_line(text, [&](const std::string& line, int first) { parser.line(line, first); });
  return parser.finish();
}

SlurmBlocks load_slurm_blocks(const std::filesystem::path& path) {
  std::string text;
  if (!read_whole_file(path.c_str(), text)) {
    throw SlurmBlocksError(fmt::format("{}: cannot read: {}", path.string(), std::strerror(errno)));
  }
  return parse_slurm_blocks(text, path.string());
}

std::vector<NvlinkDomain> domains_of_blocks(const SlurmBlocks& blocks, const Fabric& fabric) {
  std::vector<NvlinkDomain> domains;
  domains.reserve(blocks.blocks.size());
  for (const SlurmBlock& b : blocks.blocks) {
    NvlinkDomain d{.name = b.name, .hosts = {}};
    for (const std::string& node : b.nodes) {
      const auto h = fabric.host_index(node);
      if (!h) {
        throw SlurmBlocksError(fmt::format("{}:{}: node {} of block {} is not a host of the fabric",
                                           blocks.origin, b.line, node, b.name));
      }
      d.hosts.push_back(*h);
    }
    domains.push_back(std::move(d));
  }
  return domains;
}

std::string slurm_block_lines(const std::vector<SlurmBlock>& blocks, const std::string& origin) {
  std::string out;
  if (!origin.empty()) out += fmt::format("# NVLink domains of {} (topology/block), by fabricfit\n", origin);
  for (const SlurmBlock& b : blocks)
    out += fmt::format("BlockName={} Nodes={}\n", b.name, compress_hostlist(b.nodes));
  return out;
}

std::vector<SlurmBlock> blocks_of_domains(const Fabric& fabric) {
  std::vector<SlurmBlock> out;
  for (const NvlinkDomain& d : fabric.nvlink_domains) {
    SlurmBlock b{.name = d.name, .nodes = {}, .line = 0};
    for (int h : d.hosts) b.nodes.push_back(fabric.hosts[h].name);
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace fabricfit
