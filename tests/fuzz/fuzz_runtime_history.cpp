// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target for the saved run-time history (RunTimePredictor::merge_text, read by
// slurmctld from StateSaveLocation). Any text either reads or raises HistoryError and
// changes nothing; what reads writes back (to_text) to text that reads to the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "placement/runtime/runtime_predictor.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  fabricfit::RunTimePredictor p;
  p.observe(3, 1, 100, 50, 10);
  const std::string before = p.to_text();
  try {
    p.merge_text(text, "fuzz");
  } catch (const fabricfit::HistoryError&) {
    if (p.to_text() != before) std::abort();  // all or nothing
    return 0;
  }
  const std::string saved = p.to_text();
  fabricfit::RunTimePredictor back;
  back.merge_text(saved, "saved");
  if (back.to_text() != saved) std::abort();
  return 0;
}
