// SPDX-License-Identifier: GPL-2.0-or-later
// fabricfit.conf's tests compare a refusal's whole message, as the site reads it.
#pragma once

#include <string>

#include "message_of.hpp"
#include "site/site_config.hpp"

namespace fabricfit::testing {

// What parse_site_config refuses `text` with, read as fabricfit.conf; "(accepted)" if it
// does not.
inline std::string config_error(const std::string& text) {
  return message_of<ConfigError>([&] { (void)parse_site_config(text, "fabricfit.conf"); }, "(accepted)");
}

}  // namespace fabricfit::testing
