// SPDX-License-Identifier: GPL-2.0-or-later
// Little-endian fixed-width values and length-prefixed strings in a byte buffer: the
// building blocks of binary file formats (the fabric snapshot). The reader checks every
// length against what is left, so a corrupt or hostile buffer yields DecodeError, never
// a read past the end or a huge allocation.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fabricfit {

static_assert(std::endian::native == std::endian::little, "byte_io assumes a little-endian host");

class ByteWriter {
 public:
  void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(std::uint32_t v) { raw(&v, sizeof v); }
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  void i32(std::int32_t v) { raw(&v, sizeof v); }
  void i64(std::int64_t v) { raw(&v, sizeof v); }
  void f64(double v) { raw(&v, sizeof v); }
  void str(std::string_view s) {
    u32(static_cast<std::uint32_t>(s.size()));
    out_.append(s);
  }
  [[nodiscard]] std::string& bytes() { return out_; }

 private:
  void raw(const void* p, std::size_t n) { out_.append(static_cast<const char*>(p), n); }
  std::string out_;
};

// A read past the end, or a value out of range; `offset` is where in the buffer.
class DecodeError : public std::runtime_error {
 public:
  DecodeError(std::size_t offset, const std::string& what)
      : std::runtime_error("at byte " + std::to_string(offset) + ": " + what), offset_(offset) {}
  [[nodiscard]] std::size_t offset() const { return offset_; }

 private:
  std::size_t offset_;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}

  std::uint8_t u8() { return static_cast<std::uint8_t>(take(1)[0]); }
  std::uint32_t u32() { return value<std::uint32_t>(); }
  std::uint64_t u64() { return value<std::uint64_t>(); }
  std::int32_t i32() { return value<std::int32_t>(); }
  std::int64_t i64() { return value<std::int64_t>(); }
  double f64() { return value<double>(); }
  std::string str() {
    const std::uint32_t n = u32();
    return std::string(take(n));
  }
  // A count of records each at least `min_record_bytes` long: refused if the rest of the
  // buffer could not hold them.
  std::uint32_t count(std::size_t min_record_bytes, const char* what) {
    const std::size_t at = pos_;
    const std::uint32_t n = u32();
    if (min_record_bytes > 0 && n > remaining() / min_record_bytes) {
      throw DecodeError(at, std::to_string(n) + " " + what + " cannot fit in the " +
                                std::to_string(remaining()) + " bytes left");
    }
    return n;
  }
  [[nodiscard]] std::size_t offset() const { return pos_; }
  [[nodiscard]] std::size_t remaining() const { return in_.size() - pos_; }

 private:
  template <typename T>
  T value() {
    T v;
    std::memcpy(&v, take(sizeof(T)).data(), sizeof(T));
    return v;
  }
  std::string_view take(std::size_t n) {
    if (n > remaining()) {
      throw DecodeError(pos_,
                        "needs " + std::to_string(n) + " bytes, " + std::to_string(remaining()) + " left");
    }
    const auto s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::string_view in_;
  std::size_t pos_ = 0;
};

}  // namespace fabricfit
