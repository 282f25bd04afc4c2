// SPDX-License-Identifier: GPL-2.0-or-later
// The Health* keys of fabricfit.conf: defaults, values, and bad lines named by file and line.
#include <gtest/gtest.h>

#include "config_error.hpp"
#include "site/site_config.hpp"

using fabricfit::parse_site_config;
using fabricfit::testing::config_error;

TEST(HealthSettings, DefaultsAreTheDocumentedOnes) {
  const auto c = parse_site_config("", "x");
  EXPECT_EQ(c.health.symbol_ber, 1e-12);
  EXPECT_EQ(c.health.flap_count, 2);
  EXPECT_EQ(c.health.enter_sweeps, 2);
  EXPECT_EQ(c.health.leave_sweeps, 3);
  EXPECT_TRUE(c.health_file.empty());
  EXPECT_TRUE(c.nvlink_report.empty()) << "no NVLink health unless the site says where the reports are";
  EXPECT_EQ(c.nvlink_report_max_age_s, 3600);
}

TEST(HealthSettings, KeysSetTheirThresholds) {
  const auto c = parse_site_config(
      "HealthSymbolBer=1e-14\nhealthflapcount=3\nHealthFlapWindow=600\nHealthCongestionShare=0.25\n"
      "HealthLinkErrorsPerHour=0\nHealthPacketErrorsPerHour=100\nHealthEnterSweeps=1\nHealthLeaveSweeps=5\n"
      "HealthSweepTimeout=20\nHealthQueryTimeout=250\nHealthFile=/srv/ff/fabric.health\n"
      "NvlinkReport=/srv/ff/nvlink\nNvlinkReportMaxAge=0\n",
      "x");
  EXPECT_EQ(c.health.symbol_ber, 1e-14);
  EXPECT_EQ(c.health.flap_count, 3);
  EXPECT_EQ(c.health.flap_window_s, 600);
  EXPECT_EQ(c.health.congestion_share, 0.25);
  EXPECT_EQ(c.health.link_errors_per_hour, 0);
  EXPECT_EQ(c.health.packet_errors_per_hour, 100);
  EXPECT_EQ(c.health.enter_sweeps, 1);
  EXPECT_EQ(c.health.leave_sweeps, 5);
  EXPECT_EQ(c.health.sweep_timeout_s, 20);
  EXPECT_EQ(c.health.query_timeout_ms, 250);
  EXPECT_EQ(c.health_file, "/srv/ff/fabric.health");
  EXPECT_EQ(c.nvlink_report, "/srv/ff/nvlink");
  EXPECT_EQ(c.nvlink_report_max_age_s, 0);
}

TEST(HealthSettings, BadValuesNameFileLineAndReason) {
  EXPECT_EQ(config_error("NvlinkReportMaxAge=soon\n"),
            "fabricfit.conf:1: NvlinkReportMaxAge=soon is not a number of seconds from 0 to 604800");
  EXPECT_EQ(config_error("\nHealthCongestionShare=1.5\n"),
            "fabricfit.conf:2: HealthCongestionShare=1.5 is not a number from 0 to 1");
  EXPECT_EQ(config_error("HealthFlapCount=0\n"),
            "fabricfit.conf:1: HealthFlapCount=0 is not a whole number from 1 to 255");
  EXPECT_EQ(config_error("HealthSymbolBer=often\n"),
            "fabricfit.conf:1: HealthSymbolBer=often is not a number from 0 to 1");
  EXPECT_EQ(config_error("HealthFlapWindw=60\n"), "fabricfit.conf:1: unknown key 'HealthFlapWindw'");
}
