// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include "topology/link_rate.hpp"

using fabricfit::parse_link_rate;

TEST(LinkRate, CapacityFollowsWidthAndSpeed) {
  EXPECT_DOUBLE_EQ(parse_link_rate("4xHDR")->gbps(), 200.0);
  EXPECT_DOUBLE_EQ(parse_link_rate("4xNDR")->gbps(), 400.0);
  EXPECT_DOUBLE_EQ(parse_link_rate("4xEDR")->gbps(), 100.0);
  EXPECT_DOUBLE_EQ(parse_link_rate("1xHDR")->gbps(), 50.0);
  EXPECT_DOUBLE_EQ(parse_link_rate("4xQDR")->gbps(), 32.0);
  EXPECT_DOUBLE_EQ(parse_link_rate("4xXDR")->gbps(), 800.0);  // newer than rdma-core 44
  EXPECT_DOUBLE_EQ(parse_link_rate("2xXDR")->gbps(), 400.0);
}

TEST(LinkRate, RejectsWhatIbnetdiscoverNeverPrints) {
  EXPECT_FALSE(parse_link_rate("HDR"));
  EXPECT_FALSE(parse_link_rate("3xHDR"));
  EXPECT_FALSE(parse_link_rate("4xGDR"));
  EXPECT_FALSE(parse_link_rate("x4HDR"));
  EXPECT_FALSE(parse_link_rate(""));
  EXPECT_EQ(parse_link_rate("12xEDR")->to_string(), "12xEDR");
}
