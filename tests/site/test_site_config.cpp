// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <unistd.h>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>

#include "config_error.hpp"
#include "site/site_config.hpp"

using fabricfit::ConfigError;
using fabricfit::parse_site_config;
using fabricfit::PatternKind;
using fabricfit::testing::config_error;

TEST(SiteConfig, KeysAreCaseInsensitiveAndCommentsIgnored) {
  const auto c = parse_site_config(
      "# site settings\n\n  snapshotfile = /srv/ff/fabric.snap  # where discover writes\n"
      "DefaultPattern=tp=4,dp=2\n",
      "x");
  EXPECT_EQ(c.snapshot_file, "/srv/ff/fabric.snap");
  EXPECT_EQ(c.default_pattern.kind, PatternKind::Parallel);
  EXPECT_EQ(c.default_pattern.tp, 4);
}

TEST(SiteConfig, EmptyTextGivesDefaults) {
  const auto c = parse_site_config("", "x");
  EXPECT_EQ(c.default_pattern.kind, PatternKind::Ring);
  EXPECT_FALSE(c.snapshot_file.empty());
}

TEST(SiteConfig, ErrorsNameFileLineAndReason) {
  EXPECT_EQ(config_error("SnapshotFile=/a\nSnapshotPth=/b\n"), "fabricfit.conf:2: unknown key 'SnapshotPth'");
  EXPECT_EQ(config_error("\n\nDefaultPattern\n"), "fabricfit.conf:3: 'DefaultPattern' is not Key=Value");
  EXPECT_EQ(config_error("DefaultPattern=\n"), "fabricfit.conf:1: DefaultPattern has no value");
  EXPECT_NE(config_error("DefaultPattern=rings\n")
                .find("fabricfit.conf:1: DefaultPattern: unknown pattern 'rings'"),
            std::string::npos);
}

TEST(SiteConfig, MissingFileGivesDefaultsUnreadableFileIsAnError) {
  const auto dir = std::filesystem::temp_directory_path() / ("ff-conf-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  EXPECT_EQ(fabricfit::load_site_config(dir / "absent.conf").default_pattern.kind, PatternKind::Ring);
  // A directory exists but cannot be read as a file.
  EXPECT_THROW((void)fabricfit::load_site_config(dir), ConfigError);
  std::ofstream(dir / "bad.conf") << "DefaultPattern=alltoall\nBogus=1\n";
  try {
    (void)fabricfit::load_site_config(dir / "bad.conf");
    ADD_FAILURE() << "bad.conf was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "bad.conf").string() + ":2: unknown key 'Bogus'");
  }
  std::filesystem::remove_all(dir);
}

TEST(SiteConfig, BadFileFallsBackToLastGoodCopyThenDefaults) {
  namespace fs = std::filesystem;
  const auto dir = fs::temp_directory_path() / ("ff-lastgood-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto conf = dir / "fabricfit.conf";
  const auto keep = dir / "state";
  fs::create_directories(keep);
  const auto last_good = keep / "fabricfit.conf.last-good";

  std::ofstream(conf) << "DefaultPattern=alltoall\n";
  auto load = fabricfit::load_site_config_keeping_last_good(conf, last_good);
  EXPECT_EQ(load.source, fabricfit::SiteConfigLoad::Source::File);
  EXPECT_TRUE(load.error.empty());
  EXPECT_TRUE(fs::exists(last_good));

  std::ofstream(conf) << "DefaultPattern=tree\nOops\n";
  load = fabricfit::load_site_config_keeping_last_good(conf, last_good);
  EXPECT_EQ(load.source, fabricfit::SiteConfigLoad::Source::LastGood);
  EXPECT_EQ(load.config.default_pattern.kind, PatternKind::AllToAll) << "the bad file must not win";
  EXPECT_EQ(load.error, conf.string() + ":2: 'Oops' is not Key=Value");

  // The bad file did not overwrite the copy; without the copy, defaults.
  load = fabricfit::load_site_config_keeping_last_good(conf, last_good);
  EXPECT_EQ(load.config.default_pattern.kind, PatternKind::AllToAll);
  fs::remove(last_good);
  load = fabricfit::load_site_config_keeping_last_good(conf, last_good);
  EXPECT_EQ(load.source, fabricfit::SiteConfigLoad::Source::Defaults);
  EXPECT_EQ(load.config.default_pattern.kind, PatternKind::Ring);
  fs::remove_all(dir);
}

TEST(SiteConfig, DebugFlagsPlacementSwitchesDecisionLogging) {
  EXPECT_FALSE(parse_site_config("", "x").debug_placement);
  EXPECT_TRUE(parse_site_config("DebugFlags=Placement\n", "x").debug_placement);
  EXPECT_TRUE(parse_site_config("debugflags = none, placement\n", "x").debug_placement);
  EXPECT_FALSE(parse_site_config("DebugFlags=none\n", "x").debug_placement);
  EXPECT_EQ(config_error("DebugFlags=Placement,Route\n"),
            "fabricfit.conf:1: DebugFlags: unknown flag 'Route' (known: Placement)");
}

TEST(SiteConfig, LocalityWaitSettings) {
  const auto defaults = parse_site_config("", "x");
  EXPECT_DOUBLE_EQ(defaults.locality_wait_max_s, 3600);
  EXPECT_DOUBLE_EQ(defaults.locality_wait_comm_share, 0.3);
  const auto c = parse_site_config("LocalityWaitMax=0\nlocalitywaitcommshare=0.5\n", "x");
  EXPECT_DOUBLE_EQ(c.locality_wait_max_s, 0);
  EXPECT_DOUBLE_EQ(c.locality_wait_comm_share, 0.5);
  EXPECT_EQ(config_error("\nLocalityWaitMax=1h\n"),
            "fabricfit.conf:2: LocalityWaitMax=1h is not a number of seconds from 0 to 604800");
  EXPECT_EQ(config_error("LocalityWaitMax=-5\n"),
            "fabricfit.conf:1: LocalityWaitMax=-5 is not a number of seconds from 0 to 604800");
  EXPECT_EQ(config_error("LocalityWaitCommShare=1.5\n"),
            "fabricfit.conf:1: LocalityWaitCommShare=1.5 is not a number from 0 to 1");
}

namespace {

// A key of two words: off by default, on by its word in any case, the last line wins, and
// a third word is refused with the file and line.
void expect_two_words(const std::string& key, const std::string& off, const std::string& on,
                      bool fabricfit::SiteConfig::*field) {
  SCOPED_TRACE(key);
  EXPECT_FALSE(parse_site_config("", "x").*field);
  EXPECT_TRUE(parse_site_config(key + "=" + on + "\n", "x").*field);
  EXPECT_FALSE(parse_site_config(fmt::format("{0}={1}\n{0}={2}\n", key, on, off), "x").*field);
  std::string upper = off;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_FALSE(parse_site_config(fmt::format("{0}={1}\n{0}={2}\n", key, on, upper), "x").*field);
  EXPECT_EQ(config_error(fmt::format("\n{}=guess\n", key)),
            fmt::format("fabricfit.conf:2: {}=guess is not {} or {}", key, off, on));
}

}  // namespace

TEST(SiteConfig, LocalityWaitTwoWordSettings) {
  expect_two_words("LocalityWaitRouting", "ecmp", "static",
                   &fabricfit::SiteConfig::locality_wait_static_routing);
  expect_two_words("LocalityWaitEstimate", "limit", "history",
                   &fabricfit::SiteConfig::locality_wait_history_estimate);
}

// The admin command finds fabricfit.conf where slurmctld does: beside slurm.conf.
TEST(SiteConfig, DefaultPathIsBesideSlurmConf) {
  using fabricfit::default_site_config_path;
  EXPECT_EQ(default_site_config_path(nullptr), "/etc/slurm/fabricfit.conf");
  EXPECT_EQ(default_site_config_path(""), "/etc/slurm/fabricfit.conf");
  EXPECT_EQ(default_site_config_path("/srv/lab/etc/slurm.conf"), "/srv/lab/etc/fabricfit.conf");
  EXPECT_EQ(default_site_config_path("slurm.conf"), "./fabricfit.conf");
}

TEST(SiteConfig, HealthMaxAgeIsSecondsWithFileAndLineErrors) {
  EXPECT_EQ(parse_site_config("", "x").health_max_age_s, 180);
  EXPECT_EQ(parse_site_config("HealthMaxAge=0\n", "x").health_max_age_s, 0);
  EXPECT_EQ(parse_site_config("healthmaxage=600\n", "x").health_max_age_s, 600);
  EXPECT_EQ(config_error("\n\nHealthMaxAge=3m\n"),
            "fabricfit.conf:3: HealthMaxAge=3m is not a number of seconds from 0 to 604800");
  EXPECT_EQ(config_error("HealthMaxAge=-1\n"),
            "fabricfit.conf:1: HealthMaxAge=-1 is not a number of seconds from 0 to 604800");
  EXPECT_EQ(config_error("HealthMaxAge=604801\n"),
            "fabricfit.conf:1: HealthMaxAge=604801 is not a number of seconds from 0 to 604800");
}

TEST(SiteConfig, HealthDrainIsOffByDefaultAndCapped) {
  const fabricfit::SiteConfig defaults = parse_site_config("", "x");
  EXPECT_FALSE(defaults.health_drain);
  EXPECT_EQ(defaults.health_drain_max, 2);
  const fabricfit::SiteConfig on = parse_site_config("HealthDrain=yes\nHealthDrainMax=5\n", "x");
  EXPECT_TRUE(on.health_drain);
  EXPECT_EQ(on.health_drain_max, 5);
  EXPECT_EQ(config_error("HealthDrain=sometimes\n"),
            "fabricfit.conf:1: HealthDrain=sometimes is not yes or no");
  EXPECT_EQ(config_error("\nHealthDrainMax=-1\n"),
            "fabricfit.conf:2: HealthDrainMax=-1 is not a number of nodes from 0 to 100000");
}
