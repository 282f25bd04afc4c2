// SPDX-License-Identifier: GPL-2.0-or-later
// The C edge: status codes and messages, never an exception.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "capi/fabricfit_api.h"
#include "pattern_value.hpp"

TEST(FabricfitApi, PatternParsesToAValueOrAMessage) {
  ff_pattern_t p{};
  char err[256] = "";
  EXPECT_EQ(ff_pattern_parse("pp=2,tp=4", &p, err, sizeof err), FF_OK);
  EXPECT_EQ(p.kind, FF_PATTERN_PARALLEL);
  EXPECT_EQ(p.tp, 4U);
  EXPECT_EQ(p.pp, 2U);
  EXPECT_EQ(p.dp, 1U);
  EXPECT_EQ(pattern_name(p), "tp=4,pp=2,dp=1");
  EXPECT_EQ(ff_pattern_parse("alltoall", &p, err, sizeof err), FF_OK);
  EXPECT_EQ(p.kind, FF_PATTERN_ALLTOALL);
  EXPECT_EQ(pattern_name(p), "alltoall");
  EXPECT_EQ(ff_pattern_parse("allreduce", &p, err, sizeof err), FF_EINVAL);
  EXPECT_NE(std::string(err).find("unknown pattern 'allreduce'"), std::string::npos);
  EXPECT_EQ(ff_pattern_parse(nullptr, &p, err, sizeof err), FF_EINVAL);
  EXPECT_EQ(ff_pattern_parse("ring", nullptr, err, sizeof err), FF_EINTERNAL);
  char name[FF_PATTERN_MAX] = "";
  ff_pattern_name(nullptr, name, sizeof name);
  EXPECT_STREQ(name, "-") << "a pattern not known";
}

// A zeroed value is ring; a value the core does not know is refused where it is used,
// never read as some other pattern.
TEST(FabricfitApi, PatternValuesAreCheckedWhereUsed) {
  EXPECT_EQ(pattern_name(ff_pattern_t{}), "ring");
  ff_settings_t s;
  char err[256] = "";
  ASSERT_EQ(ff_settings_load(nullptr, nullptr, &s, err, sizeof err), FF_OK);
  ff_pattern_t out{};
  const ff_pattern_t unknown{.kind = 42, .tp = 1, .pp = 1, .dp = 1};
  EXPECT_EQ(ff_effective_pattern(&unknown, 4, &s, &out, err, sizeof err), FF_EINVAL);
  EXPECT_NE(std::string(err).find("unknown pattern kind 42"), std::string::npos) << err;
  const ff_pattern_t no_groups{.kind = FF_PATTERN_PARALLEL, .tp = 0, .pp = 1, .dp = 1};
  EXPECT_EQ(ff_effective_pattern(&no_groups, 4, &s, &out, err, sizeof err), FF_EINVAL);
  EXPECT_NE(std::string(err).find("tp=0 is not a group size"), std::string::npos) << err;
}

TEST(FabricfitApi, MessagesAreTruncatedNotOverflowed) {
  ff_pattern_t p{};
  char err[16];
  std::memset(err, 'z', sizeof err);
  EXPECT_EQ(ff_pattern_parse("tp=1,pp=1,bogus=3", &p, err, sizeof err), FF_EINVAL);
  EXPECT_EQ(std::strlen(err), sizeof err - 1);
}

TEST(FabricfitApi, BadSettingsFileKeepsDefaults) {
  const auto path =
      std::filesystem::temp_directory_path() / ("ff-api-" + std::to_string(::getpid()) + ".conf");
  std::ofstream(path) << "DefaultPattern=alltoall\nSnapshotFile=/x\nNoSuchKey=1\n";
  ff_settings_t s;
  char err[512] = "";
  EXPECT_EQ(ff_settings_load(path.c_str(), nullptr, &s, err, sizeof err), FF_EINVAL);
  EXPECT_EQ(pattern_name(s.default_pattern), "ring") << "a half-read file must not replace the defaults";
  EXPECT_NE(std::string(err).find(":3: unknown key 'NoSuchKey'"), std::string::npos);

  std::ofstream(path) << "DefaultPattern=alltoall\n";
  EXPECT_EQ(ff_settings_load(path.c_str(), nullptr, &s, err, sizeof err), FF_OK);
  EXPECT_EQ(pattern_name(s.default_pattern), "alltoall");
  std::filesystem::remove(path);
}

TEST(FabricfitApi, EffectivePattern) {
  ff_settings_t s;
  char err[256] = "";
  ASSERT_EQ(ff_settings_load(nullptr, nullptr, &s, err, sizeof err), FF_OK);
  ff_pattern_t out{};
  const ff_pattern_t asked = pattern_value("dp=2,tp=4");
  EXPECT_EQ(ff_effective_pattern(&asked, 8, &s, &out, err, sizeof err), FF_OK);
  EXPECT_EQ(pattern_name(out), "tp=4,pp=1,dp=2");
  EXPECT_EQ(ff_effective_pattern(&asked, 1, &s, &out, err, sizeof err), FF_OK);
  EXPECT_EQ(pattern_name(out), "tp=4,pp=1,dp=2") << "what the user asked for, even on one node";
  EXPECT_EQ(ff_effective_pattern(nullptr, 1, &s, &out, err, sizeof err), FF_OK);
  EXPECT_EQ(pattern_name(out), "none");
  s.default_pattern = pattern_value("tree");
  EXPECT_EQ(ff_effective_pattern(nullptr, 3, &s, &out, err, sizeof err), FF_OK);
  EXPECT_EQ(pattern_name(out), "tree");
  EXPECT_EQ(ff_effective_pattern(nullptr, 3, nullptr, &out, err, sizeof err), FF_OK);
  EXPECT_EQ(pattern_name(out), "ring") << "no settings: ring";
}

// The pattern slurmctld places and counts a job with: the effective one, and `ring` for a
// recorded request that does not parse (the one default the glue used to repeat).
TEST(FabricfitApi, JobPatternNeverFails) {
  ff_settings_t s;
  char err[256] = "";
  ASSERT_EQ(ff_settings_load(nullptr, nullptr, &s, err, sizeof err), FF_OK);
  s.default_pattern = pattern_value("alltoall");
  EXPECT_EQ(pattern_name(ff_job_pattern("rings", 3, &s)), "ring")
      << "a bad request is placed as a ring, not the site default";
  EXPECT_EQ(pattern_name(ff_job_pattern(nullptr, 3, &s)), "alltoall");
  EXPECT_EQ(pattern_name(ff_job_pattern("", 3, &s)), "alltoall") << "empty: none given";
  EXPECT_EQ(pattern_name(ff_job_pattern("tree", 1, &s)), "tree");
  EXPECT_EQ(pattern_name(ff_job_pattern(nullptr, 1, &s)), "none");
  s.default_pattern.kind = 42;  // settings no reader made: the job is still placed, as a ring
  EXPECT_EQ(pattern_name(ff_job_pattern(nullptr, 3, &s)), "ring");
}

// What slurmctld's locality wait gets through the C edge: the limit unless the site asks
// for history, and then the user's last two jobs' share of their limits.
TEST(FabricfitApi, PredictorGivesTheLimitUntilAskedAndTaught) {
  EXPECT_DOUBLE_EQ(ff_predictor_run(nullptr, 1, 5, 3600), 3600) << "no predictor: the limit";
  ff_predictor_t* p = ff_predictor_new();
  ASSERT_NE(p, nullptr);
  EXPECT_DOUBLE_EQ(ff_predictor_run(p, 1, 5, 3600), 3600) << "nothing learnt yet";
  ff_predictor_observe(p, 5, 100, 600, 60, 1000);   // a tenth of its limit
  ff_predictor_observe(p, 5, 101, 600, 180, 1100);  // three tenths: a fifth
  ff_predictor_observe(p, 5, 101, 600, 180, 1100);  // seen again: ignored
  EXPECT_DOUBLE_EQ(ff_predictor_run(p, 1, 5, 3600), 720);
  EXPECT_DOUBLE_EQ(ff_predictor_run(p, 0, 5, 3600), 3600) << "LocalityWaitEstimate=limit";
  EXPECT_DOUBLE_EQ(ff_predictor_run(p, 1, 6, 3600), 3600) << "another user";
  // A running job whose limit ends at 5000 (started at 1400): expected at 1400 + 720, and
  // at its limit once past that.
  EXPECT_DOUBLE_EQ(ff_predictor_end(p, 1, 5, 3600, 5000, 2000), 2120);
  EXPECT_DOUBLE_EQ(ff_predictor_end(p, 1, 5, 3600, 5000, 2120), 5000);
  EXPECT_DOUBLE_EQ(ff_predictor_end(p, 0, 5, 3600, 5000, 2000), 5000);
  EXPECT_DOUBLE_EQ(ff_predictor_end(p, 1, 5, 0, 5000, 2000), 5000) << "no limit: slurmctld's end time";
  ff_predictor_free(p);
}

// What slurmctld learnt survives a restart: saved when something was learnt, read back
// into a new predictor; a file that does not read changes nothing and names its line.
TEST(FabricfitApi, PredictorHistorySurvivesARestart) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ff-history-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "fabricfit.runtime-history").string();
  char err[256] = "";
  int written = -1;
  unsigned jobs = 99;

  ff_predictor_t* before = ff_predictor_new();
  ASSERT_NE(before, nullptr);
  EXPECT_EQ(ff_predictor_save(before, path.c_str(), &written, err, sizeof err), FF_OK);
  EXPECT_EQ(written, 0) << "nothing learnt: nothing written";
  EXPECT_FALSE(fs::exists(path));
  ff_predictor_observe(before, 5, 100, 600, 60, 1000);
  ff_predictor_observe(before, 5, 101, 600, 180, 1100);
  EXPECT_EQ(ff_predictor_save(before, path.c_str(), &written, err, sizeof err), FF_OK) << err;
  EXPECT_EQ(written, 1);
  EXPECT_EQ(ff_predictor_save(before, path.c_str(), &written, err, sizeof err), FF_OK);
  EXPECT_EQ(written, 0) << "nothing new since";
  ff_predictor_free(before);

  ff_predictor_t* after = ff_predictor_new();
  EXPECT_EQ(ff_predictor_load(after, path.c_str(), &jobs, err, sizeof err), FF_OK) << err;
  EXPECT_EQ(jobs, 2U);
  EXPECT_DOUBLE_EQ(ff_predictor_run(after, 1, 5, 3600), 720) << "a fifth, as learnt before the restart";
  EXPECT_EQ(ff_predictor_save(after, path.c_str(), &written, err, sizeof err), FF_OK);
  EXPECT_EQ(written, 0) << "what was read is saved already";

  // A garbled file: FF_EINVAL naming the file and line; what was read stays.
  const std::string good = [&] {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  std::ofstream(path) << good << "5 102 1200 zero\n";
  ff_predictor_t* fresh = ff_predictor_new();
  EXPECT_EQ(ff_predictor_load(fresh, path.c_str(), &jobs, err, sizeof err), FF_EINVAL);
  EXPECT_EQ(std::string(err), path + ":4: share 'zero' is not a number from 0 to 1");
  EXPECT_EQ(jobs, 0U);
  EXPECT_DOUBLE_EQ(ff_predictor_run(fresh, 1, 5, 3600), 3600) << "no line of it was taken";
  EXPECT_EQ(ff_predictor_load(after, path.c_str(), &jobs, err, sizeof err), FF_EINVAL);
  EXPECT_DOUBLE_EQ(ff_predictor_run(after, 1, 5, 3600), 720);
  std::ofstream(path, std::ios::trunc).flush();
  EXPECT_EQ(ff_predictor_load(fresh, path.c_str(), &jobs, err, sizeof err), FF_EINVAL);
  EXPECT_EQ(std::string(err), path + ": empty, not a run-time history");
  // A file that cannot be read, or written: FF_EINTERNAL naming it.
  EXPECT_EQ(ff_predictor_load(fresh, (dir / "none").c_str(), &jobs, err, sizeof err), FF_EINTERNAL);
  EXPECT_NE(std::string(err).find((dir / "none").string() + ": cannot read it"), std::string::npos) << err;
  ff_predictor_observe(fresh, 5, 200, 600, 60, 1000);
  const std::string unwritable = (dir / "no-such-dir" / "history").string();
  EXPECT_EQ(ff_predictor_save(fresh, unwritable.c_str(), &written, err, sizeof err), FF_EINTERNAL);
  EXPECT_EQ(written, 0);
  EXPECT_NE(std::string(err).find(unwritable), std::string::npos) << err;
  ff_predictor_free(fresh);
  ff_predictor_free(after);
  fs::remove_all(dir);
}
