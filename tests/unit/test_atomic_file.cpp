// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>
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
