// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include <unistd.h>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

#include "common/atomic_file.hpp"

namespace fs = std::filesystem;

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST(AtomicFile, ReplacesWholeFileAndLeavesNoTemporary) {
  const auto dir = fs::temp_directory_path() / ("ff-atomic-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto target = dir / "fabric.net";
  fabricfit::write_file_atomically(target, "old contents\n");
  fabricfit::write_file_atomically(target, "new\n");
  EXPECT_EQ(slurp(target), "new\n");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1);
  fs::remove_all(dir);
}

TEST(AtomicFile, FailureKeepsTheOldFile) {
  const auto dir = fs::temp_directory_path() / ("ff-atomic2-" + std::to_string(::getpid()));
  fs::create_directories(dir / "target");
  // Renaming a file over a non-empty directory fails: the directory stays as it was.
  std::ofstream(dir / "target" / "keep") << "x";
  EXPECT_THROW(fabricfit::write_file_atomically(dir / "target", "data"), std::system_error);
  EXPECT_TRUE(fs::is_directory(dir / "target"));
  EXPECT_EQ(slurp(dir / "target" / "keep"), "x");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1) << "temporary file left behind";
  fs::remove_all(dir);
}

// A writer that died before its rename left a temporary: removed once old, not while it
// may be another writer's; other files stay.
TEST(AtomicFile, StaleTemporariesAreRemoved) {
  const auto dir = fs::temp_directory_path() / ("ff-atomic3-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto target = dir / "history";
  for (const char* name :
       {".history.AbC123", ".history.XyZ789", ".history.short", "history.AbC123", ".other.AbC123"})
    std::ofstream(dir / name) << "x";
  const auto old = fs::file_time_type::clock::now() - std::chrono::minutes(5);
  for (const char* name : {".history.AbC123", ".history.short", "history.AbC123", ".other.AbC123"})
    fs::last_write_time(dir / name, old);
  EXPECT_EQ(fabricfit::remove_stale_temporaries(target, std::chrono::seconds(60)), 1U);
  EXPECT_FALSE(fs::exists(dir / ".history.AbC123"));
  EXPECT_TRUE(fs::exists(dir / ".history.XyZ789")) << "young: maybe another writer's";
  EXPECT_TRUE(fs::exists(dir / ".history.short")) << "not a temporary's name";
  EXPECT_TRUE(fs::exists(dir / "history.AbC123"));
  EXPECT_TRUE(fs::exists(dir / ".other.AbC123"));
  EXPECT_EQ(fabricfit::remove_stale_temporaries(dir / "none" / "history", std::chrono::seconds(60)), 0U);
  fs::remove_all(dir);
}

// The reader gives back every byte written (more than its 64 KiB buffer, NULs included),
// and says why it could not read: errno as open or read left it.
TEST(AtomicFile, ReadWholeFileReadsItAllOrSaysWhy) {
  const auto dir = fs::temp_directory_path() / ("ff-atomic-read-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string content(200000, 'x');
  content[1000] = '\0';
  content.back() = '\n';
  fabricfit::write_file_atomically(dir / "history", content);
  std::string out = "kept:";
  ASSERT_TRUE(fabricfit::read_whole_file((dir / "history").c_str(), out));
  EXPECT_EQ(out, "kept:" + content);

  std::string none;
  errno = 0;
  EXPECT_FALSE(fabricfit::read_whole_file((dir / "missing").c_str(), none));
  EXPECT_EQ(errno, ENOENT);
  errno = 0;
  EXPECT_FALSE(fabricfit::read_whole_file(dir.c_str(), none));
  EXPECT_EQ(errno, EISDIR);
  EXPECT_TRUE(none.empty());
  fs::remove_all(dir);
}
