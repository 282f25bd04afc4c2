// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target for ibnd cache files (`ibnetdiscover --cache`). libibnetdisc reads the
// cache from a path, so each input goes to one scratch file first. A cache either loads
// into a RawFabric whose ports point at real nodes, or raises a ReaderError.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "topology/readers/ibnd_reader.hpp"
#include "topology/readers/reader_error.hpp"

namespace {

const std::string& scratch_path() {
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir != nullptr ? dir : "/tmp") + "/fuzz_ibnd_cache." + std::to_string(getpid());
  }();
  return path;
}

void check(const fabricfit::RawFabric& f) {
  const auto n = static_cast<int>(f.nodes.size());
  for (const auto& node : f.nodes) {
    for (const auto& port : node.ports) {
      if (port.peer < 0 || port.peer >= n) std::abort();
    }
  }
}

}  // namespace

// libibnetdisc's cache loader leaks 64-byte blocks that ibnd_destroy_fabric never frees
// (rdma-core, even on the fixtures); that is not fabricfit's to fix, so LeakSanitizer
// ignores leaks whose allocation is inside libibnetdisc. Other leaks still fail the run.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libibnetdisc.so\n";
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::FILE* out = std::fopen(scratch_path().c_str(), "wb");
  if (out == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, out) != size) std::abort();
  std::fclose(out);
  try {
    check(fabricfit::load_ibnd_cache(scratch_path()));
  } catch (const fabricfit::ReaderError&) {
  }
  std::remove(scratch_path().c_str());
  return 0;
}
