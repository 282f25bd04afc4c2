// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include "message_of.hpp"
#include "placement/comm_pattern.hpp"

using fabricfit::CommPattern;
using fabricfit::make_comm_pattern;
using fabricfit::parse_comm_pattern;
using fabricfit::PatternError;
using fabricfit::PatternKind;

TEST(CommPattern, NamedPatternsParse) {
  EXPECT_EQ(parse_comm_pattern("ring").kind, PatternKind::Ring);
  EXPECT_EQ(parse_comm_pattern("tree").kind, PatternKind::Tree);
  EXPECT_EQ(parse_comm_pattern("alltoall").kind, PatternKind::AllToAll);
  EXPECT_EQ(parse_comm_pattern("none").kind, PatternKind::None);
}

TEST(CommPattern, ParallelGroupsInAnyOrderAndDefaultToOne) {
  const CommPattern p = parse_comm_pattern("dp=4,tp=8");
  EXPECT_EQ(p.kind, PatternKind::Parallel);
  EXPECT_EQ(p.tp, 8);
  EXPECT_EQ(p.pp, 1);
  EXPECT_EQ(p.dp, 4);
  EXPECT_EQ(p.to_string(), "tp=8,pp=1,dp=4");
}

TEST(CommPattern, CanonicalSpellingRoundTrips) {
  for (const char* text : {"ring", "tree", "alltoall", "none", "tp=2,pp=4,dp=16"}) {
    EXPECT_EQ(parse_comm_pattern(text).to_string(), text);
    EXPECT_EQ(parse_comm_pattern(parse_comm_pattern(text).to_string()), parse_comm_pattern(text));
  }
}

TEST(CommPattern, MalformedValuesAreRefusedWithAReason) {
  const auto message_of = [](const char* text) {
    return fabricfit::testing::message_of<PatternError>([&] { (void)parse_comm_pattern(text); },
                                                        "(accepted)");
  };
  EXPECT_NE(message_of("").find("empty"), std::string::npos);
  EXPECT_NE(message_of("Ring").find("unknown pattern 'Ring'"), std::string::npos);
  EXPECT_NE(message_of("all-to-all").find("unknown pattern"), std::string::npos);
  EXPECT_NE(message_of("tp=0,dp=2").find("tp=0"), std::string::npos);
  EXPECT_NE(message_of("tp=x").find("tp=x"), std::string::npos);
  EXPECT_NE(message_of("tp=2,tp=4").find("twice"), std::string::npos);
  EXPECT_NE(message_of("tp=2,ep=4").find("unknown key 'ep'"), std::string::npos);
  EXPECT_NE(message_of("tp=2,").find("trailing comma"), std::string::npos);
  EXPECT_NE(message_of("tp=2,dp").find("KEY=VALUE"), std::string::npos);
  EXPECT_NE(message_of("tp=99999999999").find("group size"), std::string::npos);
}

TEST(CommPattern, EffectivePatternPrefersTheRequestThenNodeCount) {
  const CommPattern site_default{PatternKind::Tree};
  const CommPattern asked{PatternKind::AllToAll};
  EXPECT_EQ(fabricfit::effective_pattern(&asked, 1, site_default), asked);
  EXPECT_EQ(fabricfit::effective_pattern(nullptr, 1, site_default).kind, PatternKind::None);
  EXPECT_EQ(fabricfit::effective_pattern(nullptr, 4, site_default), site_default);
  EXPECT_EQ(fabricfit::effective_pattern(nullptr, 0, site_default), site_default) << "unknown size";
}

// A pattern carried as parts (the C edge's value) is checked as its text would be: every
// value parse_comm_pattern makes comes back the same; anything else is refused.
TEST(CommPattern, PartsAreCheckedAsTheTextIs) {
  for (const char* text : {"ring", "tree", "alltoall", "none", "tp=4,pp=2,dp=8", "tp=1048576"}) {
    const CommPattern p = parse_comm_pattern(text);
    EXPECT_EQ(make_comm_pattern(static_cast<int>(p.kind), p.tp, p.pp, p.dp), p) << text;
  }
  EXPECT_EQ(make_comm_pattern(static_cast<int>(PatternKind::Tree), 0, 0, 0).kind, PatternKind::Tree)
      << "sizes are read only for tp/pp/dp";
  EXPECT_THROW((void)make_comm_pattern(-1, 1, 1, 1), PatternError);
  EXPECT_THROW((void)make_comm_pattern(5, 1, 1, 1), PatternError);
  EXPECT_THROW((void)make_comm_pattern(static_cast<int>(PatternKind::Parallel), 2, 0, 1), PatternError);
  EXPECT_THROW((void)make_comm_pattern(static_cast<int>(PatternKind::Parallel), 1, 1, (1 << 20) + 1),
               PatternError);
}
