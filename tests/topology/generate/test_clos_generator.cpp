// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "generated_fabric.hpp"
#include "topology/generate/clos_generator.hpp"

using fabricfit::ClosSpec;
using fabricfit::generate_ibnetdiscover;
using fabricfit::SpecError;
using fabricfit::testing::clos_spec;

namespace {

// What a generated net file declares: nodes by id and every (node, port) -> (peer, port).
struct Declared {
  std::map<std::string, std::string> desc;  // id -> node description
  std::map<std::string, bool> is_switch;
  std::map<std::pair<std::string, int>, std::pair<std::string, int>> links;
};

Declared read_back(const std::string& net) {
  Declared d;
  const std::regex header(R"re(^(Switch|Ca)\t(\d+) "([^"]+)"\t\t# "([^"]+)")re");
  const std::regex port(R"re(^\[(\d+)\](?:\([0-9a-f]+\))?\s*"([^"]+)"\[(\d+)\])re");
  std::istringstream in(net);
  std::string line, current;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, header)) {
      current = m[3];
      d.desc[current] = m[4];
      d.is_switch[current] = m[1] == "Switch";
    } else if (std::regex_search(line, m, port)) {
      d.links[{current, std::stoi(m[1])}] = {m[2], std::stoi(m[3])};
    }
  }
  return d;
}

int count_if_desc(const Declared& d, const std::string& prefix) {
  int n = 0;
  for (const auto& [id, desc] : d.desc) n += desc.rfind(prefix, 0) == 0 ? 1 : 0;
  return n;
}

void expect_symmetric(const Declared& d) {
  for (const auto& [end, peer] : d.links) {
    const auto back = d.links.find(peer);
    ASSERT_NE(back, d.links.end()) << end.first << "[" << end.second << "] has no reverse entry";
    EXPECT_EQ(back->second, end);
  }
}

}  // namespace

TEST(ClosGenerator, TwoTierHasEveryHostLeafAndUplink) {
  ClosSpec s;  // 4 leaves x 8 hosts, 2 spines, 1:1
  const auto d = read_back(generate_ibnetdiscover(s));
  EXPECT_EQ(count_if_desc(d, "gpu"), 32);
  EXPECT_EQ(count_if_desc(d, "ib-leaf-"), 4);
  EXPECT_EQ(count_if_desc(d, "ib-spine-"), 2);
  // 32 host links and 4*8 uplinks, each declared on both ends.
  EXPECT_EQ(d.links.size(), 2u * (32 + 32));
  expect_symmetric(d);
  EXPECT_EQ(d.desc.at("H-0002c90310000000"), "gpu001 mlx5_0");
}

TEST(ClosGenerator, UplinksSpreadRoundRobinOverSpines) {
  // 4 hosts over 2 uplinks: 2:1 oversubscribed
  const auto d =
      read_back(generate_ibnetdiscover(clos_spec({.leaves = 2, .hosts_per_leaf = 4, .uplinks = 2})));
  std::map<std::string, int> per_spine;
  for (const auto& [end, peer] : d.links) {
    if (d.desc.at(end.first).rfind("ib-leaf-", 0) == 0 && d.is_switch.at(peer.first)) {
      ++per_spine[d.desc.at(peer.first)];
    }
  }
  EXPECT_EQ(per_spine.size(), 2u);
  EXPECT_EQ(per_spine["ib-spine-01"], 2);
  EXPECT_EQ(per_spine["ib-spine-02"], 2);
}

TEST(ClosGenerator, RailsPutHcaROnTheRailRLeafOfItsGroup) {
  const auto d = read_back(generate_ibnetdiscover(clos_spec({.leaves = 2, .hosts_per_leaf = 2, .rails = 4})));
  EXPECT_EQ(count_if_desc(d, "gpu"), 4 * 4);
  EXPECT_EQ(count_if_desc(d, "ib-leaf-"), 2 * 4);
  expect_symmetric(d);
  for (const auto& [end, peer] : d.links) {
    const auto& desc = d.desc.at(end.first);
    if (d.is_switch.at(end.first)) continue;
    // "gpu003 mlx5_2" -> host 3 (group 2), rail 2 -> "ib-leaf-002-r2"
    const int host = std::stoi(desc.substr(3, 3));
    const int rail = desc.back() - '0';
    const std::string leaf = d.desc.at(peer.first);
    EXPECT_EQ(leaf, "ib-leaf-00" + std::to_string((host - 1) / 2 + 1) + "-r" + std::to_string(rail)) << desc;
  }
}

TEST(ClosGenerator, ThreeTierHasPodsUnderCores) {
  const auto d =
      read_back(generate_ibnetdiscover(clos_spec({.pods = 2, .leaves = 2, .hosts_per_leaf = 4, .cores = 2})));
  EXPECT_EQ(count_if_desc(d, "gpu"), 16);
  EXPECT_EQ(count_if_desc(d, "ib-p01-spine-"), 2);
  EXPECT_EQ(count_if_desc(d, "ib-p02-spine-"), 2);
  EXPECT_EQ(count_if_desc(d, "ib-core-"), 2);
  expect_symmetric(d);
  // Leaves of pod 1 reach only pod 1 spines.
  for (const auto& [end, peer] : d.links) {
    const auto& a = d.desc.at(end.first);
    const auto& b = d.desc.at(peer.first);
    if (a == "ib-leaf-001" && d.is_switch.at(peer.first)) {
      EXPECT_EQ(b.rfind("ib-p01-spine-", 0), 0u) << b;
    }
    if (a == "ib-leaf-003" && d.is_switch.at(peer.first)) {
      EXPECT_EQ(b.rfind("ib-p02-spine-", 0), 0u) << b;
    }
  }
  // Each spine: 2 leaves x 4 uplinks / 2 spines = 4 downlinks, so 4 core uplinks (1:1).
  int spine_core = 0;
  for (const auto& [end, peer] : d.links) {
    if (d.desc.at(end.first) == "ib-p01-spine-01" && d.desc.at(peer.first).rfind("ib-core-", 0) == 0)
      ++spine_core;
  }
  EXPECT_EQ(spine_core, 4);
}

TEST(ClosGenerator, RateAppearsOnEveryLink) {
  ClosSpec s = clos_spec({.leaves = 1, .hosts_per_leaf = 2, .spines = 1});
  s.rate = *fabricfit::parse_link_rate("4xEDR");
  const auto net = generate_ibnetdiscover(s);
  EXPECT_EQ(net.find("4xHDR"), std::string::npos);
  EXPECT_NE(net.find("4xEDR"), std::string::npos);
}

TEST(ClosGenerator, RefusesFabricsThatDoNotFitTheSwitches) {
  ClosSpec s;
  s.hosts_per_leaf = 40;
  s.switch_ports = 64;  // 40 hosts + 40 uplinks
  EXPECT_THROW((void)generate_ibnetdiscover(s), SpecError);
  ClosSpec t;
  t.leaves = 20;
  t.spines = 2;  // 20 leaves x 8 uplinks / 2 spines = 80 ports each
  try {
    (void)generate_ibnetdiscover(t);
    ADD_FAILURE() << "accepted";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("ib-spine-0"), std::string::npos) << e.what();
  }
  ClosSpec u;
  u.cores = 2;  // cores without pods
  EXPECT_THROW(fabricfit::validate(u), SpecError);
  ClosSpec w;
  w.spines = 4;
  w.uplinks = 2;  // two spines would be left without a cable from this leaf
  EXPECT_THROW(fabricfit::validate(w), SpecError);
  ClosSpec v;
  v.host_digits = 2;
  v.leaves = 20;
  v.hosts_per_leaf = 5;
  v.uplinks = 1;  // 100 hosts need 3 digits
  EXPECT_THROW(fabricfit::validate(v), SpecError);
}

TEST(ClosGenerator, SlurmNodeList) {
  ClosSpec s;
  EXPECT_EQ(fabricfit::slurm_node_list(s), "gpu[001-032]");
  ClosSpec t = clos_spec({.leaves = 1, .hosts_per_leaf = 1, .spines = 1, .uplinks = 1});
  t.first_host = 7;
  EXPECT_EQ(fabricfit::slurm_node_list(t), "gpu007");
  EXPECT_EQ(fabricfit::format_range("n", 2, 7, 7), "n07");
}
