// SPDX-License-Identifier: GPL-2.0-or-later
// The health file: a round trip keeps every field; a damaged file is refused whole with
// an error naming the file and what is wrong.
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>

#include "common/atomic_file.hpp"
#include "common/crc32c.hpp"
#include "health/health_file.hpp"
#include "message_of.hpp"

using namespace fabricfit;
using fabricfit::testing::message_of;

namespace {

HealthFile sample_file() {
  HealthFile h;
  h.sweep_unix = 1'764'900'000;
  h.sweeps = 7;
  h.snapshot = "/var/lib/fabricfit/fabric.snapshot";
  h.missed = {{0x2c9030000aaaa, 3}};
  PortHealth a;
  a.id = {0x2c9030000aaaa, 3};
  a.state = HealthState::SubHealthy;
  a.since_unix = 1'764'899'000;
  a.pending = HealthState::SubHealthy;
  a.pending_sweeps = 1;
  a.clear_sweeps = 2;
  a.missed = true;
  a.saturated = 0x10;
  PortSample s;
  for (std::size_t i = 0; i < kCounterCount; ++i) {
    s.value[i] = 1000 + i;
    s.bits[i] = 16;
  }
  s.bits[static_cast<std::size_t>(Counter::XmitData)] = 64;
  s.value[static_cast<std::size_t>(Counter::XmitData)] = UINT64_MAX - 3;
  s.time_unix_ms = 1'764'899'999'123;
  a.last = s;
  a.downed_unix = {1'764'890'000, 1'764'895'000};
  a.evidence = {{"PortRcvErrors", 1800, "per_hour", 10, 1'764'898'000, ""}};
  PortHealth b;
  b.id = {0x2c9030000bbbb, 1};
  h.ports = {a, b};
  LinkStatus l{0x2c9030000aaaa, 3,        "ib-leaf-001",           0x2c9030000bbbb, 1,
               "gpu001 mlx5_0", "gpu001", HealthState::SubHealthy, 1'764'899'000,   a.evidence};
  l.evidence[0].at = "ib-leaf-001[3]";
  h.links = {l};
  h.nvlink_report = "/var/lib/fabricfit/nvlink";
  h.nvlink = {{"gpu002", HealthState::Down, 1'764'899'500, "GPU 00000009:01:00.0: Route Unhealthy True",
               "/var/lib/fabricfit/nvlink/gpu002:72"},
              {"gpu007", HealthState::SubHealthy, 1'764'899'600, "GPU 00000008:01:00.0: Bandwidth Degraded",
               "/var/lib/fabricfit/nvlink/gpu007:37"}};
  return h;
}

std::string decode_error(const std::string& bytes) {
  return message_of<HealthFileError>([&] { (void)decode_health(bytes, "fabric.health"); }, "(accepted)");
}

}  // namespace

TEST(HealthFile, RoundTripKeepsEveryField) {
  const HealthFile h = sample_file();
  EXPECT_EQ(decode_health(encode_health(h), "x"), h);
  EXPECT_EQ(decode_health(encode_health(HealthFile{}), "x"), HealthFile{});
}

TEST(HealthFile, SavedAtomicallyAndLoaded) {
  const auto dir = std::filesystem::temp_directory_path() / ("ff-health-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = health_path_beside(dir / "fabric.snapshot");
  EXPECT_EQ(path.filename(), "fabric.health");
  save_health(path, sample_file());
  EXPECT_EQ(load_health(path), sample_file());
  const std::string missing = (dir / "none.health").string();
  EXPECT_EQ(message_of<HealthFileError>([&] { (void)load_health(missing); }, "(accepted)"),
            missing + ": cannot read: No such file or directory");
  std::filesystem::remove_all(dir);
}

TEST(HealthFile, DamageIsRefusedNamingFileAndReason) {
  const std::string good = encode_health(sample_file());
  EXPECT_EQ(decode_error("garbage, not a health file"),
            "fabric.health: not a fabricfit health file (no health magic at the start)");
  EXPECT_EQ(decode_error(good.substr(0, 5)),
            "fabric.health: truncated: the file ends inside the health header");
  EXPECT_EQ(decode_error(good.substr(0, 20)),
            "fabric.health: truncated: 20 bytes, shorter than the 32-byte header");
  EXPECT_EQ(decode_error(good.substr(0, good.size() - 7)),
            "fabric.health: truncated: the header announces " + std::to_string(good.size() - 32) +
                " bytes of body, the file has " + std::to_string(good.size() - 39));
  std::string flipped = good;
  flipped[good.size() - 10] ^= 0x40;
  EXPECT_EQ(decode_error(flipped), "fabric.health: corrupt body (CRC-32C mismatch): the file was damaged");
  std::string header = good;
  header[9] ^= 1;  // the version, without fixing the header's checksum
  EXPECT_EQ(decode_error(header), "fabric.health: corrupt header (checksum mismatch)");
  EXPECT_EQ(decode_error(good + "x"), "fabric.health: 1 bytes after the body");
}

TEST(HealthFile, AnotherVersionIsRefusedSayingWhich) {
  std::string bytes = encode_health(sample_file());
  bytes[8] = 3;  // version 3, with a header checksum that matches
  const std::uint32_t crc = crc32c(std::string_view(bytes).substr(0, 28));
  bytes.replace(28, 4, reinterpret_cast<const char*>(&crc), 4);
  EXPECT_EQ(decode_error(bytes), "fabric.health: format version 3, this fabricfit reads versions 1 to 2");
}

TEST(HealthFile, ABodyWithABadStateIsRefused) {
  // A body whose checksum matches but whose state byte is out of range (a writer's bug).
  HealthFile h;
  h.links.push_back(LinkStatus{});
  std::string bytes = encode_health(h);
  // The link's state byte: after header(32) + sweep(8) + sweeps(4) + snapshot(4) + missed(4)
  // + ports(4) + links(4) + a_guid(8) + a_port(4) + a(4) + b_guid(8) + b_port(4) + b(4) + host(4).
  const std::size_t at = 32 + 8 + 4 + 4 + 4 + 4 + 4 + 8 + 4 + 4 + 8 + 4 + 4 + 4;
  bytes[at] = 9;
  std::string body = bytes.substr(32);
  const std::uint32_t body_crc = crc32c(body);
  bytes.replace(24, 4, reinterpret_cast<const char*>(&body_crc), 4);
  const std::uint32_t crc = crc32c(std::string_view(bytes).substr(0, 28));
  bytes.replace(28, 4, reinterpret_cast<const char*>(&crc), 4);
  EXPECT_EQ(decode_error(bytes), "fabric.health: malformed body at byte " + std::to_string(at - 32) +
                                     ": state 9 is not a health state");
}

TEST(HealthFile, TheLabFixtureLoads) {
  // Written by test_health_ibsim.sh: the fuzz target's seed, and the format's witness.
  const HealthFile h =
      load_health(std::string(FF_SOURCE_DIR) + "/tests/fixtures/health-files/lab-seven-sweeps.health");
  EXPECT_EQ(h.ports.size(), 32u);
  EXPECT_FALSE(h.links.empty());
  // A version-1 file (before the NVLink section): read with no NVLink hosts, and written
  // as version 1 again while it has none (a slurmctld on the older fabricfit still reads
  // it); with an NVLink report, as version 2.
  std::string bytes;
  ASSERT_TRUE(read_whole_file(FF_SOURCE_DIR "/tests/fixtures/health-files/lab-seven-sweeps.health", bytes));
  EXPECT_EQ(bytes[8], 1);
  EXPECT_TRUE(h.nvlink.empty());
  EXPECT_TRUE(h.nvlink_report.empty());
  EXPECT_EQ(encode_health(h), bytes);
  HealthFile with = h;
  with.nvlink_report = "/srv/nvlink";
  const std::string again = encode_health(with);
  EXPECT_EQ(again[8], 2);
  EXPECT_EQ(decode_health(again, "again"), with);
}

TEST(HealthFile, AVersionTwoBodyWithoutItsNvlinkSectionIsRefused) {
  // A version-2 body cut short of its NVLink section (a writer's bug).
  HealthFile h;
  h.nvlink_report = "x";
  std::string bytes = encode_health(h);
  ASSERT_EQ(bytes[8], 2);
  std::string body = bytes.substr(32, bytes.size() - 32 - 9);  // without str "x" and u32 0
  bytes = bytes.substr(0, 32) + body;
  const std::uint64_t size = body.size();
  bytes.replace(16, 8, reinterpret_cast<const char*>(&size), 8);
  const std::uint32_t body_crc = crc32c(body);
  bytes.replace(24, 4, reinterpret_cast<const char*>(&body_crc), 4);
  const std::uint32_t crc = crc32c(std::string_view(bytes).substr(0, 28));
  bytes.replace(28, 4, reinterpret_cast<const char*>(&crc), 4);
  EXPECT_TRUE(decode_error(bytes).starts_with("fabric.health: malformed body at byte "))
      << decode_error(bytes);
}
