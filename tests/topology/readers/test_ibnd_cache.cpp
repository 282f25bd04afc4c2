// SPDX-License-Identifier: GPL-2.0-or-later
// ibnd cache files (`ibnetdiscover --cache`), captured from ibsim by
// tests/fixtures/ibsim-captures/make-fixtures.sh next to ibnetdiscover's text of the same
// discovery: the cache reader and the text reader must agree, and a cache of a partial
// discovery must come back partial.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include "reader_test_util.hpp"
#include "topology/readers/ibnd_cache_check.hpp"
#include "topology/readers/ibnd_reader.hpp"
#include "topology/readers/raw_fabric_dump.hpp"
#include "topology/readers/raw_fabric_order.hpp"

namespace fabricfit::test {
namespace {

std::string capture(const std::string& name) {
  return fixture("ibsim-captures/" + name);
}

TEST(IbndCache, AgreesWithTheTextOfTheSameDiscoveryAndWithTheNetFile) {
  for (const char* fabric : {"two-tier", "two-rail-edr"}) {
    SCOPED_TRACE(fabric);
    const RawFabric cache = load_ibnd_cache(capture(std::string(fabric) + ".ibnd"));
    const RawFabric text = read_ibnetdiscover_file(capture(std::string(fabric) + ".ibnetdiscover"));
    const RawFabric declared = read_ibnetdiscover_file(capture(std::string(fabric) + ".net"));
    EXPECT_FALSE(cache.partial);
    EXPECT_TRUE(cache.unreachable.empty());
    EXPECT_EQ(cache.nodes, text.nodes);
    EXPECT_EQ(cache.nodes, declared.nodes);
    EXPECT_EQ(cache.origin, "ibnd cache " + capture(std::string(fabric) + ".ibnd"));
    EXPECT_GT(count_links(cache), 0u);
  }
  const RawFabric edr = load_ibnd_cache(capture("two-rail-edr.ibnd"));
  for (const auto& n : edr.nodes) {
    for (const auto& p : n.ports) EXPECT_EQ(p.rate, (LinkRate{4, "EDR"}));
  }
}

// Every MAD to spine 1 failed: the leaf ports cabled to it were up but led nowhere.
TEST(IbndCache, PartialDiscoveryIsReportedAsPartial) {
  const RawFabric declared = read_ibnetdiscover_file(capture("two-tier.net"));
  const RawNode* spine = find_node(declared, "ib-spine-01");
  ASSERT_NE(spine, nullptr);
  std::set<std::string> expected;
  for (const auto& n : declared.nodes) {
    for (const auto& p : n.ports) {
      if (&declared.nodes[static_cast<std::size_t>(p.peer)] != spine) continue;
      char id[24];
      std::snprintf(id, sizeof id, "S-%016llx", static_cast<unsigned long long>(n.guid));
      expected.insert(std::string(id) + " \"" + n.description + "\" port " + std::to_string(p.number) +
                      ": link is up but the node behind it was not reached");
    }
  }
  ASSERT_EQ(expected.size(), 2u);

  const RawFabric cache = load_ibnd_cache(capture("two-tier-partial.ibnd"));
  EXPECT_TRUE(cache.partial);
  EXPECT_EQ(std::set<std::string>(cache.unreachable.begin(), cache.unreachable.end()), expected);
  EXPECT_EQ(find_node(cache, "ib-spine-01"), nullptr);
  EXPECT_EQ(cache.nodes.size(), declared.nodes.size() - 1);
  EXPECT_EQ(count_links(cache), count_links(declared) - spine->ports.size());

  // The text of the same discovery has the same nodes and links, but a text file cannot
  // say what its discovery missed.
  const RawFabric text = read_ibnetdiscover_file(capture("two-tier-partial.ibnetdiscover"));
  EXPECT_EQ(text.nodes, cache.nodes);
  EXPECT_FALSE(text.partial);

  const std::string dump = dump_raw_fabric(cache);
  EXPECT_NE(dump.find("\nPARTIAL\nUNREACHABLE S-"), std::string::npos) << dump;
}

void expect_load_error(const std::string& path, const std::string& part) {
  try {
    (void)load_ibnd_cache(path);
    ADD_FAILURE() << path << " loaded";
  } catch (const DiscoveryError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(IbndCache, BadFilesAreErrorsNamingTheFile) {
  expect_load_error("/nonexistent/fabric.ibnd", "cannot open");
  expect_load_error(capture("two-tier.ibnetdiscover"), "byte 0: not an ibnd cache (magic 0x");

  const std::string whole = slurp(capture("two-tier.ibnd"));
  ASSERT_GT(whole.size(), 1000u);
  const std::pair<std::size_t, const char*> cuts[] = {
      {0, "byte 0: 0 bytes, shorter than an ibnd cache's 28-byte header"},
      {16, "shorter than an ibnd cache's 28-byte header"},
      {whole.size() / 2, "ports, the file ends in port "},
      {whole.size() - 1, "ports, the file ends in port "}};
  for (const auto& [keep, why] : cuts) {
    SCOPED_TRACE(keep);
    const std::string path = ::testing::TempDir() + "/truncated-" + std::to_string(keep) + ".ibnd";
    std::ofstream(path, std::ios::binary) << whole.substr(0, keep);
    expect_load_error(path, why);
    std::remove(path.c_str());
  }
}

// A cache with one byte changed, written to a scratch file.
std::string changed_cache(const std::string& name, std::size_t at, char to) {
  std::string bytes = slurp(capture("two-tier.ibnd"));
  EXPECT_LT(at, bytes.size());
  bytes[at] = to;
  const std::string path = ::testing::TempDir() + "/" + name + ".ibnd";
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// libibnetdisc trusts the cache: an LMC above 7 made its loader allocate until the process
// ran out of memory (found by fuzz_ibnd_cache), and a port number above the node's port count
// made it write past the node's port array. Both are refused before libibnetdisc sees them.
TEST(IbndCache, FilesLibibnetdiscWouldMishandleAreRefusedFirst) {
  expect_load_error(fixture("../fuzz/findings/ibnd_cache-oom-in-libibnetdisc.ibnd"),
                    "byte 3193: port 0x0002c90302000001/3 has LMC 61; an LMC is at most 7");

  // A port no node lists, which a link still leads to: libibnetdisc freed it after loading
  // and the link pointed at freed memory (fuzz_ibnd_cache, under ASan).
  expect_load_error(fixture("../fuzz/findings/ibnd_cache-use-after-free-unlisted-port.ibnd"),
                    "port 0x0000000000100004/1 is listed by no node");

  // The first node (a host HCA with 1 port) starts after the 28-byte header; its first port
  // key follows its 207 bytes: 8 bytes of GUID, then the port number.
  const std::string past = changed_cache("port-past-the-node", 28 + 207 + 8, 2);
  expect_load_error(past, "byte 235: node 0x");
  expect_load_error(past, " has 1 ports but lists port 2");
  std::remove(past.c_str());

  // The header counts one port more than the file holds.
  const std::string more =
      changed_cache("one-port-more", 12, static_cast<char>(slurp(capture("two-tier.ibnd"))[12] + 1));
  expect_load_error(more, "ports, the file ends in port ");
  std::remove(more.c_str());

  // The discovery's first node (its GUID at byte 16 of the header) is not in the file.
  const std::string lost = changed_cache("first-node-lost", 16, 0x55);
  expect_load_error(lost, "byte 16: the discovery's first node 0x");
  std::remove(lost.c_str());

  std::string bytes = slurp(capture("two-tier.ibnd"));
  bytes += std::string(5, '\0');
  const std::string tail = ::testing::TempDir() + "/tail.ibnd";
  std::ofstream(tail, std::ios::binary) << bytes;
  expect_load_error(tail, "5 bytes after the last of the ");
  std::remove(tail.c_str());
}

TEST(IbndCache, EveryCapturedCachePassesTheCheck) {
  for (const char* name : {"two-tier.ibnd", "two-rail-edr.ibnd", "two-tier-partial.ibnd"}) {
    SCOPED_TRACE(name);
    EXPECT_NO_THROW(check_ibnd_cache_file(capture(name)));
  }
}

}  // namespace
}  // namespace fabricfit::test
