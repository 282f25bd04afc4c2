// SPDX-License-Identifier: GPL-2.0-or-later
// Snapshots: round trips give an equal Fabric; truncated, damaged, forged and
// wrong-version snapshots are refused whole with an error naming the file; writes are
// atomic even when the writer is killed.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/byte_io.hpp"
#include "common/crc32c.hpp"
#include "generated_fabric.hpp"
#include "message_of.hpp"
#include "raw_fixtures.hpp"
#include "topology/fabric_builder.hpp"
#include "topology/readers/ibnetdiscover_reader.hpp"
#include "topology/snapshot.hpp"

namespace fabricfit {
namespace {

namespace fs = std::filesystem;

SnapshotInfo info() {
  return {"fabricfit test", 1700000000, {{"host_pattern", R"(^(\S+)\s+(\S+))"}, {"node_name_map", ""}}};
}

Fabric rails_three_tier() {
  RawFabric raw = testing::make_clos(
      testing::clos_spec({.pods = 2, .leaves = 2, .hosts_per_leaf = 3, .uplinks = 2, .rails = 2}));
  testing::set_rate(raw, "ib-leaf-002-r1", 5, LinkRate{1, "HDR"});  // a degraded link
  testing::add_ca_on(raw, "MT4129 ConnectX7   Mellanox Technologies", "ib-leaf-001-r0", 30);  // a warning
  return build_fabric(raw, {});
}

std::string error_of(std::string_view bytes) {
  return testing::message_of<SnapshotError>([&] { (void)decode_snapshot(bytes, "fabric.snap"); },
                                            "(accepted)");
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("ff-snap-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

TEST(Crc32c, KnownValue) {
  EXPECT_EQ(crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(crc32c(""), 0u);
  std::string bytes;
  for (int i = 0; i < 1000; ++i) bytes += static_cast<char>(i * 31);
  for (std::size_t n : {0, 1, 7, 8, 9, 63, 1000}) {
    EXPECT_EQ(crc32c(std::string_view(bytes).substr(0, n)),
              crc32c_without_hardware(std::string_view(bytes).substr(0, n)));
  }
  EXPECT_EQ(crc32c_without_hardware("123456789"), 0xE3069283u);
}

TEST(Snapshot, RoundTripGivesAnEqualFabric) {
  const Fabric f = rails_three_tier();
  ASSERT_EQ(f.degraded_links.size(), 1u);
  ASSERT_FALSE(f.warnings.empty());
  ASSERT_FALSE(f.pods.empty());
  const Snapshot s = decode_snapshot(encode_snapshot(f, info()), "mem");
  EXPECT_TRUE(s.fabric == f);
  EXPECT_EQ(s.info, info());
  // And stable: encoding the loaded one gives the same bytes.
  EXPECT_EQ(encode_snapshot(s.fabric, s.info), encode_snapshot(f, info()));
}

TEST(Snapshot, EqualityNoticesADifference) {
  const Fabric f = rails_three_tier();
  Snapshot s = decode_snapshot(encode_snapshot(f, info()), "mem");
  auto [e, end] = boost::edges(s.fabric.graph);
  s.fabric.graph[*e].gbps += 1;
  EXPECT_FALSE(s.fabric == f);
}

TEST(Snapshot, PartialFlagAndNullVerticesSurvive) {
  RawFabric raw = testing::make_clos(ClosSpec{});
  raw.partial = true;
  raw.unreachable = {"x"};
  const Fabric f = build_fabric(raw, {});
  const Snapshot s = decode_snapshot(encode_snapshot(f, info()), "mem");
  EXPECT_TRUE(s.fabric.partial);
  EXPECT_TRUE(s.fabric == f);
}

TEST(Snapshot, TheRealDumpRoundTrips) {
  const Fabric f = build_fabric(
      read_ibnetdiscover_file(FF_SOURCE_DIR "/tests/fixtures/topograph-example.ibnetdiscover"), {});
  EXPECT_TRUE(decode_snapshot(encode_snapshot(f, info()), "mem").fabric == f);
}

TEST(Snapshot, TruncatedAnywhereIsRefused) {
  const std::string bytes = encode_snapshot(rails_three_tier(), info());
  for (std::size_t n = 0; n < bytes.size(); n += (n < 64 ? 1 : 97)) {
    const std::string e = error_of(std::string_view(bytes).substr(0, n));
    EXPECT_TRUE(e.starts_with("fabric.snap: truncated") ||
                (n == 0 && e.find("not a fabricfit snapshot") != std::string::npos))
        << n << ": " << e;
  }
  EXPECT_EQ(error_of(std::string_view(bytes).substr(0, 100)),
            fmt::format("fabric.snap: truncated: the header announces {} bytes of body, the file has 68",
                        bytes.size() - 32));
  EXPECT_EQ(error_of(std::string_view(bytes).substr(0, 20)),
            "fabric.snap: truncated: 20 bytes, shorter than the 32-byte header");
}

TEST(Snapshot, EveryFlippedBitIsRefused) {
  const std::string bytes = encode_snapshot(rails_three_tier(), info());
  for (std::size_t i = 0; i < bytes.size(); i += (i < 64 ? 1 : 13)) {
    for (int bit : {0, 5}) {
      std::string damaged = bytes;
      damaged[i] = static_cast<char>(damaged[i] ^ (1 << bit));
      const std::string e = error_of(damaged);
      EXPECT_TRUE(e.starts_with("fabric.snap: ")) << e;
      EXPECT_NE(e, "(accepted)") << "byte " << i << " bit " << bit;
      if (i >= kSnapshotHeaderBytes) {
        EXPECT_EQ(e, "fabric.snap: corrupt body (CRC-32C mismatch): the file was damaged");
      }
    }
  }
}

TEST(Snapshot, OtherVersionsAndFilesAreRefused) {
  const std::string bytes = encode_snapshot(rails_three_tier(), info());
  // A version 3 header, checksummed as a newer fabricfit would write it.
  std::string v3 = bytes;
  v3[8] = 3;
  const std::uint32_t crc = crc32c(std::string_view(v3).substr(0, 28));
  std::memcpy(v3.data() + 28, &crc, 4);
  EXPECT_EQ(error_of(v3),
            "fabric.snap: format version 3; this fabricfit reads versions 1 to 2 only (rerun `fabricfit "
            "discover` with this version)");
  EXPECT_EQ(error_of("#\n# Topology file: generated on ...\n"),
            "fabric.snap: not a fabricfit snapshot (no snapshot magic at the start)");
  EXPECT_EQ(error_of(bytes + "x"),
            "fabric.snap: 1 unexpected bytes after the " + std::to_string(bytes.size() - 32) + "-byte body");
}

TEST(Snapshot, ForgedBodyWithAValidChecksumIsStillChecked) {
  // A body whose checksum is right but whose host points past the vertices.
  ByteWriter w;
  w.str("forger");
  w.i64(0);
  w.u32(0);    // options
  w.str("x");  // origin
  w.u8(0);     // partial
  w.i32(1);    // rails
  w.i32(1);    // tiers
  w.i32(0);    // sharp
  w.u32(0);    // vertices
  w.u32(0);    // edges
  w.u32(1);    // hosts
  w.str("gpu001");
  w.i32(-1);
  w.u32(1);
  w.u32(7);  // HCA vertex 7 of 0
  const std::string body = w.bytes();
  ByteWriter h;
  h.bytes().append(
      "\x89"
      "FFSNAP\n",
      8);
  h.u32(1);
  h.u32(0);
  h.u64(body.size());
  h.u32(crc32c(body));
  h.u32(crc32c(h.bytes()));
  const std::string e = error_of(h.bytes() + body);
  EXPECT_NE(e.find("invalid body at byte"), std::string::npos) << e;
  EXPECT_NE(e.find("vertex 7 out of range (0 vertices)"), std::string::npos) << e;
}

TEST(Snapshot, FileErrorsNameTheFile) {
  TempDir dir;
  const fs::path p = dir.path / "fabric.snap";
  try {
    (void)load_snapshot(p);
    ADD_FAILURE();
  } catch (const SnapshotError& e) {
    EXPECT_EQ(std::string(e.what()), p.string() + ": cannot read: No such file or directory");
  }
  const Fabric f = rails_three_tier();
  save_snapshot(p, f, info());
  EXPECT_TRUE(load_snapshot(p).fabric == f);
  fs::resize_file(p, fs::file_size(p) - 10);
  try {
    (void)load_snapshot(p);
    ADD_FAILURE();
  } catch (const SnapshotError& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with(p.string() + ": truncated")) << e.what();
  }
}

TEST(Snapshot, FailedSaveKeepsTheOldFile) {
  TempDir dir;
  // Renaming over a non-empty directory fails: nothing may be left half-written.
  fs::create_directories(dir.path / "fabric.snap" / "x");
  EXPECT_THROW(save_snapshot(dir.path / "fabric.snap", rails_three_tier(), info()), std::system_error);
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path)) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(Snapshot, AWriterKilledMidWayNeverLeavesAHalfFile) {
  TempDir dir;
  const fs::path p = dir.path / "fabric.snap";
  ClosSpec big = testing::clos_spec({.leaves = 64, .hosts_per_leaf = 32, .spines = 16, .uplinks = 32});
  big.host_digits = 4;
  const Fabric a = build_fabric(testing::make_clos(big), {});
  const Fabric b = rails_three_tier();
  save_snapshot(p, b, info());
  for (int round = 0; round < 6; ++round) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      for (;;) {
        save_snapshot(p, a, info());
        save_snapshot(p, b, info());
      }
    }
    ::usleep(20000 + 15000 * round);
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    const Snapshot s = load_snapshot(p);  // throws on a half file
    EXPECT_TRUE(s.fabric == a || s.fabric == b);
  }
}

// The last good copy (load_snapshot_keeping_last_good): slurmctld's watcher and every
// step's slurmstepd read through it.
struct LastGood {
  TempDir dir;
  fs::path snap = dir.path / "fabric.snap", copy = dir.path / "fabricfit.snapshot.last-good";
  std::vector<std::string> used;  // the origin of every snapshot handed over
  Fabric taken;

  LastGoodLoad load(const SnapshotUse& refuse = nullptr) {
    return load_snapshot_keeping_last_good(snap, copy, [&](Snapshot&& s, const std::string& origin) {
      if (refuse) refuse(Snapshot(s), origin);
      used.push_back(origin);
      taken = std::move(s.fabric);
    });
  }
  static std::string bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
  }
  static ino_t inode(const fs::path& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 ? st.st_ino : 0;
  }
};

TEST(SnapshotLastGood, AGoodSnapshotIsCopiedOnceAndNotRewrittenWhileUnchanged) {
  LastGood t;
  const Fabric f = rails_three_tier();
  save_snapshot(t.snap, f, info());
  const auto first = t.load();
  EXPECT_FALSE(first.from_last_good);
  EXPECT_EQ(first.error, "");
  EXPECT_TRUE(t.taken == f);
  EXPECT_EQ(t.used, std::vector<std::string>{t.snap.string()});
  ASSERT_TRUE(fs::exists(t.copy));
  EXPECT_EQ(LastGood::bytes(t.copy), LastGood::bytes(t.snap)) << "the file's own bytes";
  // Every step reads it: an unchanged snapshot leaves the copy alone (a rewrite renames a
  // new file over it: another inode).
  const ino_t before = LastGood::inode(t.copy);
  for (int i = 0; i < 3; ++i) (void)t.load();
  EXPECT_EQ(LastGood::inode(t.copy), before);
  // A new snapshot replaces the copy.
  Fabric g = rails_three_tier();
  g.warnings.push_back("another discovery");
  save_snapshot(t.snap, g, info());
  (void)t.load();
  EXPECT_TRUE(t.taken == g);
  EXPECT_EQ(LastGood::bytes(t.copy), LastGood::bytes(t.snap));
  EXPECT_NE(LastGood::inode(t.copy), before);
}

TEST(SnapshotLastGood, ABadOrMissingSnapshotGivesTheCopyAndLeavesItAlone) {
  LastGood t;
  const Fabric f = rails_three_tier();
  save_snapshot(t.snap, f, info());
  (void)t.load();
  const std::string good = LastGood::bytes(t.copy);
  const ino_t before = LastGood::inode(t.copy);

  std::ofstream(t.snap, std::ios::binary | std::ios::trunc) << good.substr(0, good.size() / 2);
  t.taken = Fabric{};
  const auto bad = t.load();
  EXPECT_TRUE(bad.from_last_good);
  EXPECT_TRUE(bad.error.starts_with(t.snap.string() + ": truncated")) << bad.error;
  EXPECT_EQ(t.used.back(), t.copy.string());
  EXPECT_TRUE(t.taken == f);
  EXPECT_EQ(LastGood::bytes(t.copy), good);
  EXPECT_EQ(LastGood::inode(t.copy), before);

  fs::remove(t.snap);
  const auto missing = t.load();
  EXPECT_TRUE(missing.from_last_good);
  EXPECT_EQ(missing.error, t.snap.string() + ": cannot read: No such file or directory");
  EXPECT_EQ(LastGood::bytes(t.copy), good);

  // A snapshot that loads but is refused (another fabric's) is not copied either.
  Fabric other = rails_three_tier();
  other.warnings.push_back("another fabric");
  save_snapshot(t.snap, other, info());
  const auto refused = t.load([&](Snapshot&&, const std::string& origin) {
    if (origin == t.snap.string()) throw SnapshotError(origin + ": another fabric");
  });
  EXPECT_TRUE(refused.from_last_good);
  EXPECT_EQ(refused.error, t.snap.string() + ": another fabric");
  EXPECT_TRUE(t.taken == f);
  EXPECT_EQ(LastGood::bytes(t.copy), good);
}

TEST(SnapshotLastGood, WithoutAGoodCopyTheFilesErrorIsThrown) {
  LastGood t;
  std::ofstream(t.snap) << "not a snapshot";
  try {
    (void)t.load();
    ADD_FAILURE() << "accepted";
  } catch (const SnapshotError& e) {
    EXPECT_EQ(std::string(e.what()),
              t.snap.string() + ": not a fabricfit snapshot (no snapshot magic at the start)");
  }
  EXPECT_FALSE(fs::exists(t.copy)) << "a bad file never becomes the copy";
  EXPECT_TRUE(t.used.empty());
  // A damaged copy is no better than none: still the file's own error.
  std::ofstream(t.copy) << "damaged";
  EXPECT_THROW((void)t.load(), SnapshotError);
  // No copy kept at all (an empty path): the file's error, as load_snapshot gives it.
  EXPECT_THROW((void)load_snapshot_keeping_last_good(t.snap, "", [](Snapshot&&, const std::string&) {}),
               SnapshotError);
  // A fabric without hosts is refused like a damaged one.
  save_snapshot(t.snap, Fabric{}, info());
  try {
    (void)load_snapshot_keeping_last_good(t.snap, "", [](Snapshot&&, const std::string&) {});
    ADD_FAILURE() << "accepted";
  } catch (const SnapshotError& e) {
    EXPECT_EQ(std::string(e.what()), t.snap.string() + ": the fabric has no hosts");
  }
}

}  // namespace
}  // namespace fabricfit
