// SPDX-License-Identifier: GPL-2.0-or-later
// libFuzzer target for the ibnetdiscover text reader (`make fuzz`, docs/readers.md).
// Any input must either parse into a well-formed RawFabric or raise ParseError; anything
// else (a crash, a sanitizer report, another exception, a broken fabric) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "topology/readers/ibnetdiscover_reader.hpp"

namespace {

// The promises read_ibnetdiscover_text makes about what it returns.
void check(const fabricfit::RawFabric& f) {
  const auto n = static_cast<int>(f.nodes.size());
  if (n == 0 || f.partial || !f.unreachable.empty()) std::abort();
  for (int i = 0; i < n; ++i) {
    const auto& node = f.nodes[static_cast<std::size_t>(i)];
    int last = 0;
    for (const auto& port : node.ports) {
      if (port.number <= last || port.number > node.nports) std::abort();  // ascending, in range
      last = port.number;
      if (port.peer < 0 || port.peer >= n) std::abort();
      const auto& peer = f.nodes[static_cast<std::size_t>(port.peer)];
      bool back = false;
      for (const auto& q : peer.ports) {
        if (q.number == port.peer_port)
          back = q.peer == i && q.peer_port == port.number && q.rate == port.rate;
      }
      if (!back) std::abort();  // both ends, consistent
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    check(fabricfit::read_ibnetdiscover_text(text, "fuzz.net"));
  } catch (const fabricfit::ParseError& e) {
    if (e.file() != "fuzz.net" || e.line() < 1 || e.reason().empty()) std::abort();
  }
  return 0;
}
