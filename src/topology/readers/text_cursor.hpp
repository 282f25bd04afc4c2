// SPDX-License-Identifier: GPL-2.0-or-later
// A read position in one line of text, with the few token readers the ibnetdiscover
// grammar needs. Hand-written rather than std::regex: a 16k-host file has ~70k lines
// and must parse in a few tens of milliseconds.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

namespace fabricfit {

class TextCursor {
 public:
  explicit TextCursor(std::string_view text) : text_(text) {}

  [[nodiscard]] bool done() const { return pos_ >= text_.size(); }
  [[nodiscard]] char peek() const { return done() ? '\0' : text_[pos_]; }
  [[nodiscard]] std::string_view rest() const { return text_.substr(pos_); }
  [[nodiscard]] std::size_t position() const { return pos_; }

  // Skips spaces and tabs; true if it skipped any.
  bool skip_blanks() {
    const std::size_t start = pos_;
    while (!done() && is_blank(text_[pos_])) ++pos_;
    return pos_ != start;
  }

  bool consume(char c) {
    if (peek() != c || done()) return false;
    ++pos_;
    return true;
  }

  bool consume(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  // A decimal number no larger than max.
  std::optional<std::uint64_t> read_decimal(std::uint64_t max) {
    std::uint64_t value = 0;
    const char* begin = text_.data() + pos_;
    const auto [end, ec] = std::from_chars(begin, text_.data() + text_.size(), value, 10);
    if (ec != std::errc{} || end == begin || value > max) return std::nullopt;
    pos_ += static_cast<std::size_t>(end - begin);
    return value;
  }

  // A 64-bit hexadecimal number, with or without a 0x prefix.
  std::optional<std::uint64_t> read_hex() {
    const std::size_t start = pos_;
    if (text_.substr(pos_, 2) == "0x" || text_.substr(pos_, 2) == "0X") pos_ += 2;
    std::uint64_t value = 0;
    const char* begin = text_.data() + pos_;
    const auto [end, ec] = std::from_chars(begin, text_.data() + text_.size(), value, 16);
    if (ec != std::errc{} || end == begin) {
      pos_ = start;
      return std::nullopt;
    }
    pos_ += static_cast<std::size_t>(end - begin);
    return value;
  }

  // "text" without escapes (neither ibnetdiscover nor ibsim has any): the text inside.
  std::optional<std::string_view> read_quoted() {
    if (peek() != '"') return std::nullopt;
    const std::size_t close = text_.find('"', pos_ + 1);
    if (close == std::string_view::npos) return std::nullopt;
    const std::string_view inside = text_.substr(pos_ + 1, close - pos_ - 1);
    pos_ = close + 1;
    return inside;
  }

  // The next run of non-blank characters (empty at the end).
  std::string_view read_word() {
    skip_blanks();
    const std::size_t start = pos_;
    while (!done() && !is_blank(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  static bool is_blank(char c) { return c == ' ' || c == '\t'; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace fabricfit
