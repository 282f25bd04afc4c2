// SPDX-License-Identifier: GPL-2.0-or-later
// The format as Slurm reads it (its data_parser, TOPOLOGY_CONF and TOPOLOGY_BLOCK, 25.05 to
// 26.05): the file is one topology (a mapping) or a list of them; `blocks` a list of blocks
// or one block; `block_sizes` a list of numbers or one number; `nodes` one hostlist string.
// Slurm warns about a key it does not know and goes on; fabricfit refuses one inside a
// block section, where a misspelt `nodes` would leave a block without its nodes.
#include "topology/readers/slurm_topology_yaml.hpp"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <optional>
#include <sstream>
#include <vector>

#include "topology/slurm_block_set.hpp"

namespace fabricfit {
namespace {

// yaml-cpp counts lines from 0. A null value (`nodes:` and nothing) is marked where the
// next token starts, often the next line, so values are located by their key.
int line_of(const YAML::Node& n) {
  return n.Mark().line + 1;
}

struct Entry {
  std::string key;
  int line = 0;  // the key's
  YAML::Node value;
};

struct Topology {
  std::string name;
  int line = 0;
  bool cluster_default = false;
  std::string kind;  // its plugin section's key, for errors ("" when none is known)
  std::optional<SlurmBlocks> blocks;
};

// Where each document of a YAML stream starts, up to `most` of them, events otherwise
// ignored. Not YAML::LoadAll: yaml-cpp 0.7's loops on a stray ',' (",- a"), adding empty
// documents until memory runs out (fixed upstream after 0.8, jbeder/yaml-cpp#1319; found by
// fuzz_slurm_topology_yaml). Throws YAML::ParserException as the parser does.
class DocumentStarts : public YAML::EventHandler {
 public:
  static std::vector<YAML::Mark> of(const std::string& text, std::size_t most) {
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentStarts starts;
    while (starts.marks_.size() < most && parser.HandleNextDocument(starts)) {
    }
    return std::move(starts.marks_);
  }

  void OnDocumentStart(const YAML::Mark& mark) override { marks_.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
  }
  void OnMapEnd() override {}

 private:
  std::vector<YAML::Mark> marks_;
};

class Reader {
 public:
  explicit Reader(const std::string& origin) : origin_(origin) {}

  [[noreturn]] void fail(int line, const std::string& why) const {
    throw SlurmBlocksError(fmt::format("{}:{}: {}", origin_, line, why));
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw SlurmBlocksError(fmt::format("{}: {}", origin_, why));
  }

  // The key-value pairs of a mapping, each key once.
  std::vector<Entry> entries(const YAML::Node& map) const {
    std::vector<Entry> out;
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) fail(line_of(kv.first), "a key that is not a plain word");
      Entry e{kv.first.Scalar(), line_of(kv.first), kv.second};
      for (const Entry& seen : out) {
        if (seen.key == e.key)
          fail(e.line, fmt::format("key '{}' twice (first on line {})", e.key, seen.line));
      }
      out.push_back(std::move(e));
    }
    return out;
  }

  Topology topology(const YAML::Node& node) const {
    if (!node.IsMap()) {
      fail(line_of(node), "a topology is a mapping (topology: NAME, then block:, tree: or another type)");
    }
    Topology t{.name = {}, .line = line_of(node), .cluster_default = false, .kind = {}, .blocks = {}};
    const std::vector<Entry> keys = entries(node);
    for (const Entry& e : keys) {
      if (e.key == "topology") {
        if (!e.value.IsScalar() || e.value.Scalar().empty()) fail(e.line, "topology: without a name");
        t.name = e.value.Scalar();
      } else if (e.key == "cluster_default") {
        bool yes = false;
        if (!e.value.IsScalar() || !YAML::convert<bool>::decode(e.value, yes)) {
          fail(e.line, fmt::format("cluster_default: '{}' is not true or false",
                                   e.value.IsScalar() ? e.value.Scalar() : "(not a word)"));
        }
        t.cluster_default = yes;
      } else if (e.key == "block" || e.key == "flat" || e.key == "ring" || e.key == "torus3d" ||
                 e.key == "tree") {
        t.kind = e.key;
      }
    }
    if (t.name.empty()) fail(t.line, "a topology without a name (topology: NAME)");
    for (const Entry& e : keys) {
      if (e.key != "block") continue;
      if (!e.value.IsMap())
        fail(e.line, fmt::format("topology {}: block: is not a mapping (block_sizes:, blocks:)", t.name));
      // As Slurm: an empty block section is none.
      if (e.value.size() > 0) t.blocks = block_section(e.value, e.line, t.name);
    }
    return t;
  }

  SlurmBlocks block_section(const YAML::Node& section, int line, const std::string& topology) const {
    SlurmBlockSet set(origin_);
    std::vector<int> sizes;
    bool have_blocks = false;
    for (const Entry& e : entries(section)) {
      if (e.key == "block_sizes") {
        sizes = block_sizes(e);
      } else if (e.key == "blocks") {
        have_blocks = true;
        if (e.value.IsMap()) {
          block(set, e.value);  // Slurm takes a mapping as a list of one block
        } else if (e.value.IsSequence() && e.value.size() > 0) {
          for (const YAML::Node& b : e.value) block(set, b);
        } else {
          fail(e.line, fmt::format("topology {}: blocks: is not a list of blocks (- block: NAME)", topology));
        }
      } else {
        fail(e.line, fmt::format("unknown key '{}' in the block section of topology {} (it takes block_sizes "
                                 "and blocks)",
                                 e.key, topology));
      }
    }
    if (!have_blocks) fail(line, fmt::format("topology {}: block section without blocks", topology));
    SlurmBlocks out = set.take();
    out.block_sizes = std::move(sizes);
    out.topology = topology;
    return out;
  }

  std::vector<int> block_sizes(const Entry& e) const {
    std::vector<int> sizes;
    const auto one = [&](const YAML::Node& n, int line) {
      const auto size = n.IsScalar() ? parse_block_size(n.Scalar()) : std::nullopt;
      if (!size) {
        fail(line, fmt::format("block_sizes: '{}' is not a positive number",
                               n.IsScalar() ? n.Scalar() : "(a list)"));
      }
      sizes.push_back(*size);
    };
    if (e.value.IsSequence()) {
      for (const YAML::Node& n : e.value) one(n, line_of(n));
    } else {
      one(e.value, e.line);  // one number, as Slurm reads a list of one
    }
    return sizes;
  }

  void block(SlurmBlockSet& set, const YAML::Node& node) const {
    if (!node.IsMap()) fail(line_of(node), "a block is a mapping (block: NAME, nodes: HOSTLIST)");
    const int line = line_of(node);
    const std::vector<Entry> keys = entries(node);
    const Entry* name = nullptr;
    const Entry* nodes = nullptr;
    for (const Entry& e : keys) {
      if (e.key == "block") name = &e;
      if (e.key == "nodes") nodes = &e;
    }
    if (!name || !name->value.IsScalar() || name->value.Scalar().empty()) {
      fail(name ? name->line : line, "a block without a name (block: NAME)");
    }
    const std::string& b = name->value.Scalar();
    for (const Entry& e : keys) {
      if (e.key != "block" && e.key != "nodes") {
        fail(e.line, fmt::format("unknown key '{}' in block {} (it takes block and nodes)", e.key, b));
      }
    }
    set.open(b, line);
    if (!nodes) fail(line, fmt::format("block {} has no nodes", b));
    if (nodes->value.IsSequence() || nodes->value.IsMap()) {
      fail(nodes->line, fmt::format("block {}: nodes: is not one hostlist (nodes: gpu[001-018])", b));
    }
    if (!nodes->value.IsScalar() || nodes->value.Scalar().empty()) {
      fail(nodes->line, fmt::format("block {}: nodes: without nodes", b));
    }
    set.add_nodes(nodes->value.Scalar(), "nodes: ", nodes->line);
    set.close();
  }

  // The topology to take, as the header says.
  SlurmBlocks choose(std::vector<Topology> all, const std::string& wanted) const {
    const auto names = [&](bool with_blocks) {
      std::string out;
      for (const Topology& t : all) {
        if (with_blocks && !t.blocks) continue;
        if (!out.empty()) out += ", ";
        out += t.kind.empty() || with_blocks ? t.name : fmt::format("{} ({})", t.name, t.kind);
      }
      return out;
    };
    if (!wanted.empty()) {
      for (Topology& t : all) {
        if (t.name != wanted) continue;
        if (!t.blocks) {
          fail(t.line, fmt::format("topology {} has no block section{}", t.name,
                                   t.kind.empty() ? "" : fmt::format(" (it is {})", t.kind)));
        }
        return std::move(*t.blocks);
      }
      fail(fmt::format("no topology {} (the file has {})", wanted, names(false)));
    }
    for (Topology& t : all) {
      if (t.cluster_default) {
        if (t.blocks) return std::move(*t.blocks);
        break;  // Slurm's default is the first one marked
      }
    }
    std::vector<Topology*> with_blocks;
    for (Topology& t : all) {
      if (t.blocks) with_blocks.push_back(&t);
    }
    if (with_blocks.empty())
      fail(fmt::format("no topology with a block section (the file has {})", names(false)));
    if (with_blocks.size() > 1) {
      fail(
          fmt::format("topologies {} have block sections and none is the cluster default: name one "
                      "(--blocks-topology)",
                      names(true)));
    }
    return std::move(*with_blocks.front()->blocks);
  }

  SlurmBlocks read(std::string_view text, const std::string& wanted) const {
    const std::string yaml(text);
    YAML::Node top;
    try {
      const std::vector<YAML::Mark> starts = DocumentStarts::of(yaml, 2);
      if (starts.size() > 1) {
        // yaml-cpp stuck where it began (a stray ','), or a real second document further on
        const YAML::Mark& at = starts[1];
        if (at.pos <= starts[0].pos && static_cast<std::size_t>(at.pos) < yaml.size()) {
          fail(at.line + 1, fmt::format("'{}' cannot start a YAML node", yaml[at.pos]));
        }
        fail(at.line + 1, "a second YAML document (a topology.yaml is one)");
      }
      top = YAML::Load(yaml);
    } catch (const YAML::Exception& e) {  // ParserException, DeepRecursion: a mark, a reason
      if (e.mark.is_null()) fail(e.msg);
      fail(e.mark.line + 1, e.msg);
    }
    if (!top.IsDefined() || top.IsNull()) fail("no topology (the file is empty)");
    std::vector<Topology> all;
    if (top.IsMap()) {
      all.push_back(topology(top));  // Slurm takes a mapping as a list of one topology
    } else if (top.IsSequence()) {
      for (const YAML::Node& t : top) all.push_back(topology(t));
    } else {
      fail(line_of(top), "not a list of topologies (- topology: NAME)");
    }
    for (std::size_t i = 0; i < all.size(); ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        if (all[j].name == all[i].name) {
          fail(all[i].line,
               fmt::format("topology {} is named twice (first on line {})", all[i].name, all[j].line));
        }
      }
    }
    SlurmBlocks out = choose(std::move(all), wanted);
    out.origin = origin_;
    return out;
  }

 private:
  std::string origin_;
};

// The first line that is neither blank nor a comment.
std::string_view first_line(std::string_view text) {
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    const auto start = line.find_first_not_of(" \t\r");
    if (start != std::string_view::npos && line[start] != '#') return line.substr(start);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return {};
}

}  // namespace

SlurmBlocks parse_slurm_topology_yaml(std::string_view text, const std::string& origin,
                                      const std::string& topology) {
  return Reader(origin).read(text, topology);
}

bool is_topology_yaml(const std::filesystem::path& path, std::string_view text) {
  const std::string ext = path.extension().string();
  if (ext == ".yaml" || ext == ".yml") return true;
  std::string_view line = first_line(text);
  if (line.starts_with("---") || line.starts_with("%YAML") || line.starts_with("topology:")) return true;
  if (!line.starts_with('-')) return false;
  line.remove_prefix(1);
  const auto word = line.find_first_not_of(" \t");
  return word != 0 && word != std::string_view::npos && line.substr(word).starts_with("topology:");
}

SlurmBlocks load_slurm_block_file(const std::filesystem::path& path, const std::string& topology) {
  const std::string text = read_slurm_blocks_file(path);
  if (is_topology_yaml(path, text)) return parse_slurm_topology_yaml(text, path.string(), topology);
  if (!topology.empty()) {
    throw SlurmBlocksError(
        fmt::format("{}: a topology.conf has no named topologies (topology {} is one of a "
                    "topology.yaml)",
                    path.string(), topology));
  }
  return parse_slurm_blocks(text, path.string());
}

}  // namespace fabricfit
