// SPDX-License-Identifier: GPL-2.0-or-later
// What the fabric readers throw. Callers that only want "the read failed" catch
// ReaderError; the text reader's ParseError also says where.
#pragma once

#include <stdexcept>
#include <string>

namespace fabricfit {

// Any failure of a reader: a file that cannot be read, a bad file, a discovery that
// could not start. A discovery that ran but missed parts of the subnet is not an
// error: it returns a RawFabric marked partial.
class ReaderError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A bad ibnetdiscover text file. what() is "FILE:LINE: reason"; LINE counts from 1.
class ParseError : public ReaderError {
 public:
  ParseError(std::string file, int line, std::string reason)
      : ReaderError(file + ":" + std::to_string(line) + ": " + reason),
        file_(std::move(file)),
        line_(line),
        reason_(std::move(reason)) {}

  [[nodiscard]] const std::string& file() const { return file_; }
  [[nodiscard]] int line() const { return line_; }
  [[nodiscard]] const std::string& reason() const { return reason_; }

 private:
  std::string file_;
  int line_;
  std::string reason_;
};

// Live discovery could not run at all (no such CA, no answer from the first node), or
// an ibnd cache file could not be loaded.
class DiscoveryError : public ReaderError {
 public:
  using ReaderError::ReaderError;
};

}  // namespace fabricfit
