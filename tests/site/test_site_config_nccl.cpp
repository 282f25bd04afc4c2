// SPDX-License-Identifier: GPL-2.0-or-later
// fabricfit.conf's NCCL keys: values, ranges and the errors that name file and line.
#include <gtest/gtest.h>

#include "config_error.hpp"
#include "site/site_config.hpp"

using fabricfit::parse_site_config;
using fabricfit::testing::config_error;

TEST(SiteConfigNccl, DefaultsSetNothingButAllowNccl) {
  const auto c = parse_site_config("", "x");
  EXPECT_TRUE(c.nccl_settings);
  EXPECT_FALSE(c.sharp);
  EXPECT_FALSE(c.imex);
  EXPECT_FALSE(c.nccl_ib_sl.has_value());
  EXPECT_FALSE(c.nccl_ib_tc.has_value());
  EXPECT_FALSE(c.nccl_ib_gid_index.has_value());
  EXPECT_TRUE(c.nccl_socket_ifname.empty());
}

TEST(SiteConfigNccl, KeysAreRead) {
  const auto c = parse_site_config(
      "NcclSettings=No\nSharp=yes\nimex=Yes\nNcclIbSl=15\nncclibtc=106\nNcclIbGidIndex=3\nNcclSocketIfname=^"
      "lo,"
      "docker\n",
      "x");
  EXPECT_FALSE(c.nccl_settings);
  EXPECT_TRUE(c.sharp);
  EXPECT_TRUE(c.imex);
  EXPECT_EQ(c.nccl_ib_sl, 15);
  EXPECT_EQ(c.nccl_ib_tc, 106);
  EXPECT_EQ(c.nccl_ib_gid_index, 3);
  EXPECT_EQ(c.nccl_socket_ifname, "^lo,docker");
}

TEST(SiteConfigNccl, BadValuesNameTheLine) {
  EXPECT_EQ(config_error("\nNcclIbSl=16\n"), "fabricfit.conf:2: NcclIbSl=16 is not a number from 0 to 15");
  EXPECT_EQ(config_error("NcclIbTc=-1"), "fabricfit.conf:1: NcclIbTc=-1 is not a number from 0 to 255");
  EXPECT_EQ(config_error("NcclIbGidIndex=3x"),
            "fabricfit.conf:1: NcclIbGidIndex=3x is not a number from 0 to 255");
  EXPECT_EQ(config_error("Sharp=maybe"), "fabricfit.conf:1: Sharp=maybe is not yes or no");
  EXPECT_EQ(config_error("\n\nImex=on-domains"), "fabricfit.conf:3: Imex=on-domains is not yes or no");
  EXPECT_EQ(config_error("NcclSettings=2"), "fabricfit.conf:1: NcclSettings=2 is not yes or no");
}
