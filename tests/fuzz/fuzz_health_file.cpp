// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target for the health file loader. Each input is tried as a whole file (header
// checks), and with its bytes re-wrapped in a header whose checksums are right, so that
// the mutations reach the body decoder. A file that decodes must encode to bytes that
// decode and encode to the same bytes.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/file_header.hpp"
#include "health/health_file.hpp"

namespace {

void try_decode(std::string_view bytes) {
  try {
    const fabricfit::HealthFile h = fabricfit::decode_health(bytes, "fuzz");
    // Bytes, not HealthFile ==: a NaN rate is a value the file may hold and == refuses.
    const std::string once = fabricfit::encode_health(h);
    if (fabricfit::encode_health(fabricfit::decode_health(once, "again")) != once) std::abort();
  } catch (const fabricfit::HealthFileError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  try_decode(input);
  try_decode(fabricfit::encode_file_header(std::string_view("\x89"
                                                            "FFHLTH\n",
                                                            8),
                                           fabricfit::kHealthVersion, input) +
             std::string(input));
  return 0;
}
