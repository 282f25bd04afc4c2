// SPDX-License-Identifier: GPL-2.0-or-later
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "message_of.hpp"
#include "topology/node_name_map.hpp"

namespace fabricfit {
namespace {

std::string error_of(std::string_view text) {
  return testing::message_of<NodeNameMapError>([&] { (void)parse_node_name_map(text, "map.txt"); },
                                               "(no error)");
}

TEST(NodeNameMap, ReadsRdmaCoreSyntax) {
  const auto map = parse_node_name_map(
      "# IB1\n"
      "\n"
      "   # indented comment\n"
      "0x0002c90300001234 \"gpu001 mlx5_0\"\n"
      "0x0002C90300001235\t\"gpu001 mlx5_1\"   # trailing comment\n"
      "1234 \"decimal\"\r\n"
      "0777 \"octal, as strtoull reads it\"\n"
      "0xabc unquoted name  # up to the comment\n"
      "0xabd \"IB1 (Rack 11 slot 1   ) ISR9288/ISR9096 Voltaire sLB-24D\"\n"
      "0x0002c90300001234 \"gpu001 mlx5_0\"\n",  // the same entry again is harmless
      "map.txt");
  EXPECT_EQ(map.size(), 6u);
  EXPECT_EQ(map.at(0x0002c90300001234ULL), "gpu001 mlx5_0");
  EXPECT_EQ(map.at(0x0002c90300001235ULL), "gpu001 mlx5_1");
  EXPECT_EQ(map.at(1234), "decimal");
  EXPECT_EQ(map.at(0777), "octal, as strtoull reads it");
  EXPECT_EQ(map.at(0xabc), "unquoted name");
  EXPECT_EQ(map.at(0xabd), "IB1 (Rack 11 slot 1   ) ISR9288/ISR9096 Voltaire sLB-24D");
}

TEST(NodeNameMap, ErrorsNameFileLineAndReason) {
  EXPECT_EQ(error_of("# ok\nnode1 \"x\"\n"),
            "map.txt:2: 'node1' is not a GUID (expected e.g. 0x0002c90300001234)");
  EXPECT_EQ(error_of("0x12g4 \"x\"\n"), "map.txt:1: unexpected 'g' after the GUID");
  EXPECT_EQ(error_of("0x1234\n"), "map.txt:1: no name after the GUID");
  EXPECT_EQ(error_of("0x1234   # only a comment\n"), "map.txt:1: no name after the GUID");
  EXPECT_EQ(error_of("\n\n0x1234 \"gpu001 mlx5_0\n"), "map.txt:3: unterminated quote in the name");
  EXPECT_EQ(error_of("0x1234 \"a\" b\n"), "map.txt:1: unexpected text after the name: 'b'");
  EXPECT_EQ(error_of("0x1234 \"\"\n"), "map.txt:1: empty name");
  EXPECT_EQ(error_of("0x1 \"a\"\n0x1 \"b\"\n"),
            "map.txt:2: GUID 0x0000000000000001 is already named \"a\" on line 1");
  EXPECT_EQ(error_of("0x1ffffffffffffffff \"a\"\n"), "map.txt:1: GUID does not fit in 64 bits");
  EXPECT_EQ(error_of("0x1 \"a\tb\"\n"), "map.txt:1: name holds a control character");
}

TEST(NodeNameMap, FileErrors) {
  EXPECT_THROW((void)load_node_name_map("/nonexistent/map"), NodeNameMapError);
  const auto path = std::filesystem::temp_directory_path() / ("ff-nnm-" + std::to_string(::getpid()));
  std::ofstream(path) << "0x10 \"gpu010 mlx5_0\"\n0x11 bad\"\n";
  try {
    (void)load_node_name_map(path);
    ADD_FAILURE() << "no error";
  } catch (const NodeNameMapError& e) {
    EXPECT_EQ(std::string(e.what()), path.string() + ":2: stray '\"' in an unquoted name");
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace fabricfit
