// SPDX-License-Identifier: GPL-2.0-or-later
// The tests of every parser compare a refusal's whole message: file, line and reason, as
// the user reads them.
#pragma once

#include <string>

namespace fabricfit::testing {

// The message of the `Error` that `run` throws, or `none` when it returns. Any other
// exception escapes and fails the test.
template <class Error, class Run>
[[nodiscard]] std::string message_of(Run&& run, const std::string& none) {
  try {
    run();
  } catch (const Error& e) {
    return e.what();
  }
  return none;
}

}  // namespace fabricfit::testing
