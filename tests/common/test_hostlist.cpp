// SPDX-License-Identifier: GPL-2.0-or-later
// compress_hostlist writes what Slurm's hostlist_ranged_string writes after hostlist_sort
// (tests/integration/test_hostlist_slurm.sh checks the same against scontrol itself).
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "common/hostlist.hpp"
#include "common/hostlist_expand.hpp"

namespace fabricfit {
namespace {

std::vector<std::string> numbered(const std::string& prefix, int first, int last, int width = 0) {
  std::vector<std::string> out;
  for (int i = first; i <= last; ++i) out.push_back(fmt::format("{}{:0{}d}", prefix, i, std::max(width, 1)));
  return out;
}

TEST(Hostlist, DigitCountsDoNotSplitARange) {
  // Issue 8: a 24-node switch was written node[1-9],node[10-24].
  EXPECT_EQ(compress_hostlist(numbered("node", 1, 24)), "node[1-24]");
  EXPECT_EQ(compress_hostlist({"login", "gpu9", "gpu10", "gpu7"}), "gpu[7,9-10],login");
  EXPECT_EQ(compress_hostlist({"gpu998", "gpu999", "gpu1000"}), "gpu[998-1000]");
}

TEST(Hostlist, ZeroPaddingIsKept) {
  EXPECT_EQ(compress_hostlist({"gpu003", "gpu001", "gpu002", "gpu005"}), "gpu[001-003,005]");
  EXPECT_EQ(compress_hostlist({"gpu099", "gpu998", "gpu999", "gpu1000"}), "gpu[099,998-1000]");
  EXPECT_EQ(compress_hostlist({"a08-p1-dgx-04-c01", "a08-p1-dgx-04-c02"}), "a08-p1-dgx-04-c[01-02]");
  auto mixed = numbered("n", 1, 9, 2);
  for (auto& n : numbered("n", 10, 12)) mixed.push_back(n);
  EXPECT_EQ(compress_hostlist(mixed), "n[01-12]");
}

TEST(Hostlist, NaturalOrderAndSingles) {
  EXPECT_EQ(compress_hostlist({"rack10-n1", "rack2-n1", "rack2-n2"}), "rack2-n[1-2],rack10-n1");
  EXPECT_EQ(compress_hostlist({"node1", "node", "login"}), "login,node,node1");
  EXPECT_EQ(compress_hostlist({"n1", "n1", "n2"}), "n[1-2]");
  EXPECT_EQ(compress_hostlist({"n1"}), "n1");
  EXPECT_EQ(compress_hostlist({}), "");
  EXPECT_TRUE(natural_less("gpu9", "gpu10"));
  EXPECT_TRUE(natural_less("a2-b", "a10-b"));
  EXPECT_FALSE(natural_less("gpu10", "gpu9"));
}

TEST(Hostlist, ThousandsOfHostsRoundTrip) {
  std::vector<std::string> names;
  for (const char* p : {"dgx-a", "dgx-b"}) {
    for (auto& n : numbered(p, 1, 3000, 4)) names.push_back(n);
  }
  names.erase(std::remove(names.begin(), names.end(), "dgx-a0100"), names.end());
  std::shuffle(names.begin(), names.end(), std::mt19937(8));
  const std::string list = compress_hostlist(names);
  EXPECT_EQ(list, "dgx-a[0001-0099,0101-3000],dgx-b[0001-3000]");
  auto back = expand_hostlist(list);
  std::sort(back.begin(), back.end());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(back, names);
}

// Found by fuzz_hostlist: a range ending at the largest long stepped past it (signed
// overflow, undefined behaviour).
TEST(Hostlist, RangeEndingAtTheLargestNumber) {
  EXPECT_EQ(expand_hostlist("a[9223372036854775806-9223372036854775807]"),
            (std::vector<std::string>{"a9223372036854775806", "a9223372036854775807"}));
}

// Found by fuzz_hostlist: the name limit held per range, not per bracket, so many big
// ranges in one bracket (or a long name times a big range) took gigabytes.
TEST(Hostlist, ExpansionIsBoundedAcrossRangesAndNameLength) {
  std::string many = "a[0-4000000";
  for (int i = 0; i < 11; ++i) many += ",0-4000000";
  EXPECT_THROW((void)expand_hostlist(many + "]"), HostlistError);
  EXPECT_THROW((void)expand_hostlist(std::string(1000, 'n') + "[0-70000]"), HostlistError);
  EXPECT_EQ(expand_hostlist(std::string(100, 'n') + "[0-70000]").size(), 70001U);
  // 256 Ki names at most: in CI a fuzzer input of 4 Mi short names ran it out of memory.
  EXPECT_THROW((void)expand_hostlist("node[000000-300000]"), HostlistError);
  EXPECT_THROW((void)expand_hostlist("n[0-999][0-999]"), HostlistError);
  EXPECT_EQ(expand_hostlist("n[0-499][0-499]").size(), 250000U);
}

}  // namespace
}  // namespace fabricfit
