// SPDX-License-Identifier: GPL-2.0-or-later
// A pattern value from its text, for tests of the C edge (the text must parse).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "capi/fabricfit_api.h"

inline ff_pattern_t pattern_value(const char* text) {
  ff_pattern_t p{};
  char err[256] = "";
  EXPECT_EQ(ff_pattern_parse(text, &p, err, sizeof err), FF_OK) << text << ": " << err;
  return p;
}

inline std::string pattern_name(const ff_pattern_t& p) {
  char out[FF_PATTERN_MAX] = "";
  ff_pattern_name(&p, out, sizeof out);
  return out;
}
