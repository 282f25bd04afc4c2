// SPDX-License-Identifier: GPL-2.0-or-later
// Every way a topology file can be wrong: the error names the file, the line and the
// reason ("FILE:LINE: reason").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reader_test_util.hpp"

namespace fabricfit::test {
namespace {

// A good two-node file, one line per entry (line N is lines[N-1]).
std::vector<std::string> good_lines() {
  return {
      "switchguid=0x1(1)",                                                       // 1
      "Switch\t8 \"S-0000000000000001\"\t# \"sw\" enhanced port 0 lid 1 lmc 0",  // 2
      "[1]\t\"H-0000000000000010\"[1](11) \t# \"h\" lid 2 4xHDR",                // 3
      "",                                                                        // 4
      "caguid=0x10",                                                             // 5
      "Ca\t1 \"H-0000000000000010\"\t# \"h\"",                                   // 6
      "[1](11) \t\"S-0000000000000001\"[1]\t# lid 2 lmc 0 \"sw\" lid 1 4xHDR",   // 7
  };
}

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// Line `n` (from 1) replaced.
std::string with_line(int n, const std::string& text) {
  auto lines = good_lines();
  lines[static_cast<std::size_t>(n - 1)] = text;
  return join(lines);
}

void expect_error(const std::string& text, int line, const std::string& reason_part) {
  const ParseError e = parse_error(text, "fabric.net");
  EXPECT_EQ(e.file(), "fabric.net");
  EXPECT_EQ(e.line(), line) << e.what();
  EXPECT_NE(e.reason().find(reason_part), std::string::npos) << e.what();
  EXPECT_EQ(std::string(e.what()), "fabric.net:" + std::to_string(line) + ": " + e.reason());
}

TEST(IbnetdiscoverErrors, TheGoodFileParses) {
  EXPECT_EQ(parse(join(good_lines())).nodes.size(), 2u);
}

TEST(IbnetdiscoverErrors, BadHeaders) {
  expect_error(with_line(2, "Switch\tabc \"S-0000000000000001\""), 2,
               "bad node header: expected a port count");
  expect_error(with_line(2, "Switch\t0 \"S-0000000000000001\""), 2, "port count (1 to 254)");
  expect_error(with_line(2, "Switch\t300 \"S-0000000000000001\""), 2, "port count (1 to 254)");
  expect_error(with_line(2, "Switch\t8 \t# \"sw\""), 2, "expected the quoted node id");
  expect_error(with_line(2, "Switch\t8 \"S-0000000000000001\" junk"), 2,
               "unexpected \"junk\" after the node id");
  expect_error(with_line(2, "Swich\t8 \"S-0000000000000001\""), 2, "unrecognised line \"Swich");
  expect_error(with_line(6, "Ca\t1 \"H-0000000000000010\"\t# \"h"), 6, "unterminated quoted description");
}

TEST(IbnetdiscoverErrors, BadPortLines) {
  expect_error(with_line(3, "[x]\t\"H-0000000000000010\"[1]"), 3, "bad port line: expected \"[PORT]\"");
  expect_error(with_line(3, "[0]\t\"H-0000000000000010\"[1]"), 3, "bad port line");
  expect_error(with_line(3, "[1]\t\"H-0000000000000010\"(11) \t# \"h\" lid 2 4xHDR"), 3,
               "no peer port number");
  expect_error(with_line(3, "[1]\t\"H-0000000000000010\"[0]"), 3, "bad peer port number");
  expect_error(with_line(3, "[1]\tH-0000000000000010[1]"), 3, "expected the quoted id of the peer");
  expect_error(with_line(3, "[1]\t\"H-0000000000000010\"[1] junk # x"), 3,
               "unexpected \"junk\" after the peer");
  expect_error(with_line(3, "[1]\t\"H-0000000000000010\"[1](zz) "), 3, "bad port GUID");
  expect_error(with_line(3, "[9]\t\"H-0000000000000010\"[1](11) \t# \"h\" lid 2 4xHDR"), 3,
               "port 9 of \"S-0000000000000001\" is beyond its 8 ports");
}

TEST(IbnetdiscoverErrors, UnknownRates) {
  for (const char* rate : {"4xGDR", "4x???", "??HDR", "3xHDR", "4xhdr"}) {
    SCOPED_TRACE(rate);
    expect_error(with_line(3, std::string("[1]\t\"H-0000000000000010\"[1](11) \t# \"h\" lid 2 ") + rate), 3,
                 std::string("unknown link rate \"") + rate + "\"");
  }
}

TEST(IbnetdiscoverErrors, OneSidedLinks) {
  // The CA does not list its end of the cable.
  auto lines = good_lines();
  lines.pop_back();
  expect_error(join(lines), 3,
               "one-sided link: port 1 of \"S-0000000000000001\" is cabled to "
               "\"H-0000000000000010\"[1], but \"H-0000000000000010\" (line 6) lists no port 1");
  // The CA's record is missing altogether.
  lines = good_lines();
  lines.resize(4);
  expect_error(join(lines), 3, "which has no node record in the file (one-sided link; truncated file?)");
  // Cabled to a port the peer does not have.
  expect_error(with_line(3, "[1]\t\"H-0000000000000010\"[2](11) \t# \"h\" lid 2 4xHDR"), 3,
               "which has only 1 ports");
}

TEST(IbnetdiscoverErrors, InconsistentLinks) {
  // Switch port 1 says H[1]; H[1] says switch port 2, which goes to another CA.
  auto lines = good_lines();
  lines.insert(lines.begin() + 3, "[2]\t\"H-0000000000000020\"[1](21) \t# \"h2\" lid 3 4xHDR");  // line 4
  lines[7] = "[1](11) \t\"S-0000000000000001\"[2]\t# lid 2 lmc 0 \"sw\" lid 1 4xHDR";            // line 8
  lines.insert(lines.end(), {"", "caguid=0x20", "Ca\t1 \"H-0000000000000020\"\t# \"h2\"",
                             "[1](21) \t\"S-0000000000000001\"[2]\t# lid 3 lmc 0 \"sw\" lid 1 4xHDR"});
  expect_error(join(lines), 3,
               "inconsistent link: port 1 of \"S-0000000000000001\" is cabled to "
               "\"H-0000000000000010\"[1], but line 8 cables that port to \"S-0000000000000001\"[2]");

  expect_error(
      with_line(7, "[1](11) \t\"S-0000000000000001\"[1]\t# lid 2 lmc 0 \"sw\" lid 1 2xHDR"), 3,
      "inconsistent link: port 1 of \"S-0000000000000001\" runs at 4xHDR, but the other end (line 7) "
      "reports 2xHDR");
  expect_error(with_line(7, "[1](12) \t\"S-0000000000000001\"[1]\t# lid 2 lmc 0 \"sw\" lid 1 4xHDR"), 7,
               "port 1 of \"H-0000000000000010\" has GUID 0x12 here but 0x11 on line 3");
}

TEST(IbnetdiscoverErrors, TruncatedFiles) {
  const std::string text = join(good_lines());
  // Cut inside the last line.
  expect_error(text.substr(0, text.find("\"S-0000000000000001\"[1]") + 8), 7,
               "(the file ends inside this line: truncated?)");
  // Cut after a GUID line.
  auto lines = good_lines();
  lines.resize(5);
  expect_error(join(lines), 5, "caguid= is not followed by a node header (truncated file?)");
  // Cut after a header: its peers' links are one-sided.
  lines = good_lines();
  lines.resize(6);
  expect_error(join(lines), 3, "one-sided link");
}

TEST(IbnetdiscoverErrors, Duplicates) {
  auto lines = good_lines();
  lines.insert(lines.end(), {"", "switchguid=0x1(1)", "Switch\t8 \"sw2\"\t# \"sw2\""});  // 8-10
  expect_error(join(lines), 10, "duplicate node GUID 0x1: \"S-0000000000000001\" has it too (line 2)");

  lines = good_lines();
  lines.insert(lines.end(), {"", "Ca\t1 \"H-0000000000000010\"\t# \"again\""});  // 8-9
  expect_error(join(lines), 9, "duplicate node id \"H-0000000000000010\" (first on line 6)");

  lines = good_lines();
  lines.insert(lines.begin() + 3, lines[2]);  // line 4 repeats line 3
  expect_error(join(lines), 4, "port 1 of \"S-0000000000000001\" is listed twice (first on line 3)");

  // Two CAs with one port GUID.
  lines = good_lines();
  lines.insert(lines.begin() + 3, "[2]\t\"H-0000000000000020\"[1](11) \t# \"h2\" lid 3 4xHDR");  // 4
  lines.insert(lines.end(), {"", "caguid=0x20", "Ca\t1 \"H-0000000000000020\"\t# \"h2\"",        // 9-11
                             "[1](11) \t\"S-0000000000000001\"[2]\t# lid 3 lmc 0 \"sw\" lid 1 4xHDR"});  // 12
  expect_error(join(lines), 12,
               "duplicate port GUID 0x11: port 1 of \"H-0000000000000010\" has it too (line 8)");
}

TEST(IbnetdiscoverErrors, RecordStructure) {
  auto lines = good_lines();
  lines.insert(lines.begin() + 2, "");  // the port line (now 4) follows a blank line
  expect_error(join(lines), 4, "port line outside a node record");

  expect_error(with_line(1, "caguid=0x1"), 2, "caguid= on line 1 is followed by a Switch header");
  expect_error(with_line(1, "switchguid=0x2(2)"), 2,
               "node id \"S-0000000000000001\" names GUID 0x1, but switchguid= on line 1 says 0x2");
  expect_error(with_line(4, "switchguid=0x5"), 5,
               "second node GUID line before a node header (switchguid= on line 4)");
  expect_error(with_line(1, "switchguid=xyz"), 1, "bad switchguid: expected a non-zero hexadecimal GUID");
}

TEST(IbnetdiscoverErrors, OtherOutputsAndFormats) {
  expect_error("Switch\t : 0x0002c90300000001 ports 36 devid 0xcf08 vendid 0x2c9 \"leaf-1\"\n", 1,
               "node list (ibnetdiscover -l, -S or -H)");
  expect_error("SW     7  3 0x0002c90300000001 4x HDR - CA    12  1 0x0002c90300000011 ( 'leaf-1' - 'h' )\n",
               1, "ports report (ibnetdiscover -p)");
  expect_error(std::string("\x01\x02\x00\x00ibnd", 8), 1, "binary data");
  expect_error("include \"other.net\"\n", 1, "\"include\" directives are not supported");
  expect_error(with_line(4, "do Unlink \"sw\""), 4, "\"do\" directives are not supported");
  expect_error("", 1, "no node records");
  expect_error("#\n# only comments\n#\n", 3, "no node records");
  expect_error(with_line(4, "@1 \"alias\""), 4, "ibsim port aliases");
}

TEST(IbnetdiscoverErrors, UnreadableFileIsAReaderErrorNamingIt) {
  try {
    (void)read_ibnetdiscover_file("/nonexistent/dir/fabric.net");
    FAIL() << "no error";
  } catch (const ParseError&) {
    FAIL() << "a missing file is not a parse error";
  } catch (const ReaderError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/fabric.net: cannot open"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace fabricfit::test
