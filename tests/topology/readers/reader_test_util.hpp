// SPDX-License-Identifier: GPL-2.0-or-later
// Helpers shared by the reader tests: fixture paths, a parse that must fail, and an
// independent, naive count of what a topology file declares (header and port lines),
// so that the reader's counts are checked against something it did not compute.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

#include "topology/raw_fabric.hpp"
#include "topology/readers/ibnetdiscover_reader.hpp"
#include "topology/readers/reader_error.hpp"

namespace fabricfit::test {

inline std::string fixture(const std::string& relative) {
  return std::string(FF_SOURCE_DIR) + "/tests/fixtures/" + relative;
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

inline RawFabric parse(std::string_view text, const std::string& name = "test.net") {
  return read_ibnetdiscover_text(text, name);
}

// The ParseError a text must raise; fails the test if it parses.
inline ParseError parse_error(std::string_view text, const std::string& name = "bad.net") {
  try {
    (void)read_ibnetdiscover_text(text, name);
  } catch (const ParseError& e) {
    return e;
  }
  ADD_FAILURE() << "parsed without error:\n" << text;
  return ParseError(name, 0, "(no error)");
}

// Counted line by line, with no knowledge of the grammar beyond "a header starts with
// its keyword, a port line with '['".
struct NaiveCounts {
  int switches = 0;
  int cas = 0;
  int routers = 0;
  int port_lines = 0;
};

inline NaiveCounts naive_counts(const std::string& text) {
  NaiveCounts c;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Switch", 0) == 0 && line.size() > 6 && (line[6] == ' ' || line[6] == '\t')) ++c.switches;
    if (line.rfind("Ca", 0) == 0 && line.size() > 2 && (line[2] == ' ' || line[2] == '\t')) ++c.cas;
    if (line.rfind("Hca", 0) == 0 && line.size() > 3 && (line[3] == ' ' || line[3] == '\t')) ++c.cas;
    if (line.rfind("Rt", 0) == 0 && line.size() > 2 && (line[2] == ' ' || line[2] == '\t')) ++c.routers;
    if (line.rfind('[', 0) == 0) ++c.port_lines;
  }
  return c;
}

inline const RawNode* find_node(const RawFabric& f, std::string_view description) {
  for (const auto& n : f.nodes) {
    if (n.description == description) return &n;
  }
  return nullptr;
}

// Every cable as {(description, port), (peer description, peer port)}, one entry per
// end: comparable between fabrics whose GUIDs differ (ibsim example nets have none).
inline std::set<std::pair<std::pair<std::string, int>, std::pair<std::string, int>>> cabling_by_description(
    const RawFabric& f) {
  std::set<std::pair<std::pair<std::string, int>, std::pair<std::string, int>>> out;
  for (const auto& n : f.nodes) {
    for (const auto& p : n.ports) {
      if (p.peer < 0) continue;
      out.insert(
          {{n.description, p.number}, {f.nodes[static_cast<std::size_t>(p.peer)].description, p.peer_port}});
    }
  }
  return out;
}

// Each port's peer names it back.
inline void expect_symmetric(const RawFabric& f) {
  for (std::size_t i = 0; i < f.nodes.size(); ++i) {
    for (const auto& p : f.nodes[i].ports) {
      ASSERT_GE(p.peer, 0);
      ASSERT_LT(static_cast<std::size_t>(p.peer), f.nodes.size());
      const auto& peer = f.nodes[static_cast<std::size_t>(p.peer)];
      bool back = false;
      for (const auto& q : peer.ports)
        back = back || (q.number == p.peer_port && q.peer == static_cast<int>(i) && q.peer_port == p.number);
      EXPECT_TRUE(back) << f.nodes[i].description << "[" << p.number << "] -> " << peer.description << "["
                        << p.peer_port << "] is not returned";
    }
  }
}

}  // namespace fabricfit::test
