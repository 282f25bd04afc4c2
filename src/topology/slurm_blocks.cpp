// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/slurm_blocks.hpp"

#include <fmt/format.h>
#include <cerrno>
#include <cstring>
#include <sstream>

#include "common/atomic_file.hpp"
#include "common/conf_lines.hpp"
#include "common/hostlist.hpp"
#include "common/iequals.hpp"
#include "topology/slurm_block_set.hpp"

namespace fabricfit {
namespace {

struct Word {
  std::string key, value;
};

class Parser {
 public:
  explicit Parser(const std::string& origin) : set_(origin) {}

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
    SlurmBlocks out = set_.take();
    if (out.blocks.empty()) throw SlurmBlocksError(fmt::format("{}: no BlockName line", out.origin));
    out.block_sizes = std::move(sizes_);
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const { set_.fail(line_, why); }

  void block(const std::vector<Word>& words) {
    const std::string& name = words.front().value;
    if (name.empty()) fail("BlockName= without a name");
    set_.open(name, line_);
    bool have_nodes = false;
    for (std::size_t i = 1; i < words.size(); ++i) {
      const Word& w = words[i];
      if (!iequals(w.key, "Nodes")) {
        fail(fmt::format("unknown key '{}' on a BlockName line (it takes Nodes= only)", w.key));
      }
      if (have_nodes) fail(fmt::format("block {} has Nodes= twice", name));
      have_nodes = true;
      if (w.value.empty()) fail(fmt::format("block {}: Nodes= without nodes", name));
      set_.add_nodes(w.value, "Nodes=", line_);
    }
    if (!have_nodes) fail(fmt::format("block {} has no Nodes=", name));
    set_.close();
  }

  void sizes(const std::string& value) {
    if (!sizes_.empty()) fail("BlockSizes= twice");
    std::string_view rest = value;
    while (true) {
      const auto comma = rest.find(',');
      const std::string_view item = rest.substr(0, comma);
      const auto n = parse_block_size(item);
      if (!n) fail(fmt::format("BlockSizes={}: '{}' is not a positive number", value, item));
      sizes_.push_back(*n);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }

  SlurmBlockSet set_;
  std::vector<int> sizes_;
  int line_ = 0;
};

}  // namespace

SlurmBlocks parse_slurm_blocks(std::string_view text, const std::string& origin) {
  Parser parser(origin);
  for_each_conf_line(text, [&](const std::string& line, int first) { parser.line(line, first); });
  return parser.finish();
}

std::string read_slurm_blocks_file(const std::filesystem::path& path) {
  std::string text;
  if (!read_whole_file(path.c_str(), text)) {
    throw SlurmBlocksError(fmt::format("{}: cannot read: {}", path.string(), std::strerror(errno)));
  }
  return text;
}

SlurmBlocks load_slurm_blocks(const std::filesystem::path& path) {
  return parse_slurm_blocks(read_slurm_blocks_file(path), path.string());
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
