// SPDX-License-Identifier: GPL-2.0-or-later
// fabricfit's placement record in a job's AdminComment: an admin's text survives, fabricfit
// replaces only its own segment (placement/slurm/admin_comment.hpp, ff_admin_comment_merge).
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "capi/fabricfit_api.h"
#include "placement/slurm/admin_comment.hpp"

using namespace fabricfit;

namespace {
const std::string kRec =
    "fabricfit placement=fabricfit pattern=ring leaf_groups=1 groups=L1 cross_spine_gb=0";
const std::string kRec2 = "fabricfit placement=slurm pattern=ring reason=no-fit";
}  // namespace

TEST(AdminComment, AnEmptyCommentGetsTheRecord) {
  EXPECT_EQ(merge_admin_comment("", kRec), kRec);
  EXPECT_EQ(merge_admin_comment("   ", kRec), kRec);
}

TEST(AdminComment, AnAdminsTextIsKeptAndTheRecordAppended) {
  EXPECT_EQ(merge_admin_comment("burn-in by ops", kRec), "burn-in by ops; " + kRec);
}

TEST(AdminComment, ARequeuedJobGetsItsRecordReplacedAndTheAdminTextKept) {
  const auto once = merge_admin_comment("ticket 42", kRec);
  const auto twice = merge_admin_comment(once, kRec2);
  EXPECT_EQ(twice, "ticket 42; " + kRec2);
  // An admin who wrote after the record keeps that text too.
  EXPECT_EQ(merge_admin_comment(kRec + "; checked by bob", kRec2), kRec2 + "; checked by bob");
}

TEST(AdminComment, TheMarkerInsideAnAdminsSentenceIsNotTheRecord) {
  const std::string admin = "see fabricfit placement=fabricfit docs";
  EXPECT_EQ(placement_record_of(admin), "");
  EXPECT_EQ(merge_admin_comment(admin, kRec), admin + "; " + kRec);
}

TEST(AdminComment, ASemicolonInTheRecordCannotSwallowTheAdminsText) {
  const auto merged = merge_admin_comment("a", "fabricfit placement=slurm reason=x;y");
  EXPECT_EQ(merged, "a; fabricfit placement=slurm reason=x,y");
  EXPECT_EQ(placement_record_of(merged), "fabricfit placement=slurm reason=x,y");
}

TEST(AdminComment, TheRecordAndItsValuesAreFound) {
  const auto merged = merge_admin_comment("ticket 42 pattern=bogus", kRec);
  EXPECT_EQ(placement_record_of(merged), kRec);
  EXPECT_EQ(record_value(placement_record_of(merged), "pattern"), "ring");
  EXPECT_EQ(record_value(kRec, "groups"), "L1");
  EXPECT_EQ(record_value(kRec, "reason"), "");
  EXPECT_EQ(placement_record_of("no record here"), "");
}

TEST(AdminComment, TheCEdgeChecksTheBufferSize) {
  const char* existing = "ticket 42";
  char out[256];
  ASSERT_EQ(ff_admin_comment_merge(existing, kRec.c_str(), out, sizeof out), FF_OK);
  EXPECT_EQ(std::string(out), "ticket 42; " + kRec);
  ASSERT_EQ(ff_admin_comment_merge(nullptr, kRec2.c_str(), out, sizeof out), FF_OK);
  EXPECT_EQ(std::string(out), kRec2);
  EXPECT_EQ(ff_admin_comment_merge(existing, kRec.c_str(), out, std::strlen(existing) + kRec.size()),
            FF_EINVAL);
}
