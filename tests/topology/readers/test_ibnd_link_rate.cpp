// SPDX-License-Identifier: GPL-2.0-or-later
// PortInfo codes to link rates, as ibnetdiscover prints them.
#include <gtest/gtest.h>

#include "topology/readers/ibnd_link_rate.hpp"
#include "topology/readers/raw_link_rate.hpp"

namespace fabricfit {
namespace {

PortRateCodes codes(std::uint32_t width, std::uint32_t speed, std::uint32_t ext, bool cap,
                    bool fdr10 = false) {
  return PortRateCodes{width, speed, ext, cap, fdr10};
}

TEST(IbndLinkRate, WidthCodes) {
  EXPECT_EQ(decode_link_rate(codes(1, 1, 0, false)), (LinkRate{1, "SDR"}));
  EXPECT_EQ(decode_link_rate(codes(2, 1, 0, false)), (LinkRate{4, "SDR"}));
  EXPECT_EQ(decode_link_rate(codes(4, 1, 0, false)), (LinkRate{8, "SDR"}));
  EXPECT_EQ(decode_link_rate(codes(8, 1, 0, false)), (LinkRate{12, "SDR"}));
  EXPECT_EQ(decode_link_rate(codes(16, 1, 0, false)), (LinkRate{2, "SDR"}));
  for (std::uint32_t bad : {0u, 3u, 32u})
    EXPECT_TRUE(is_unknown(decode_link_rate(codes(bad, 1, 0, false)))) << bad;
}

TEST(IbndLinkRate, BaseSpeeds) {
  EXPECT_EQ(decode_link_rate(codes(2, 2, 0, false)), (LinkRate{4, "DDR"}));
  EXPECT_EQ(decode_link_rate(codes(2, 4, 0, false)), (LinkRate{4, "QDR"}));
  EXPECT_TRUE(is_unknown(decode_link_rate(codes(2, 0, 0, false))));
  EXPECT_TRUE(is_unknown(decode_link_rate(codes(2, 8, 0, false))));
}

// HDR and NDR live in LinkSpeedExtActive, which counts only when the port (port 0 of a
// switch) says it supports extended speeds.
TEST(IbndLinkRate, ExtendedSpeeds) {
  EXPECT_EQ(decode_link_rate(codes(2, 4, 1, true)), (LinkRate{4, "FDR"}));
  EXPECT_EQ(decode_link_rate(codes(2, 4, 2, true)), (LinkRate{4, "EDR"}));
  EXPECT_EQ(decode_link_rate(codes(2, 4, 4, true)), (LinkRate{4, "HDR"}));
  EXPECT_EQ(decode_link_rate(codes(16, 4, 4, true)), (LinkRate{2, "HDR"}));
  EXPECT_EQ(decode_link_rate(codes(2, 4, 8, true)), (LinkRate{4, "NDR"}));
  EXPECT_EQ(decode_link_rate(codes(2, 1, 8, true)), (LinkRate{4, "NDR"}));   // extended wins over base
  EXPECT_EQ(decode_link_rate(codes(2, 4, 8, false)), (LinkRate{4, "QDR"}));  // not supported: ignored
  EXPECT_TRUE(is_unknown(decode_link_rate(codes(2, 4, 16, true))));          // unknown extended code
  EXPECT_TRUE(is_unknown(decode_link_rate(codes(2, 4, 3, true))));
}

TEST(IbndLinkRate, Fdr10ShowsOnlyOverQdr) {
  EXPECT_EQ(decode_link_rate(codes(2, 4, 0, true, true)), (LinkRate{4, "FDR10"}));
  EXPECT_EQ(decode_link_rate(codes(2, 4, 0, false, true)), (LinkRate{4, "FDR10"}));
  EXPECT_EQ(decode_link_rate(codes(2, 2, 0, false, true)), (LinkRate{4, "DDR"}));
  EXPECT_EQ(decode_link_rate(codes(2, 4, 4, true, true)), (LinkRate{4, "HDR"}));
}

}  // namespace
}  // namespace fabricfit
