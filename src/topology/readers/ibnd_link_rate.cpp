// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/readers/ibnd_link_rate.hpp"

#include <string>

#include "topology/readers/raw_link_rate.hpp"

namespace fabricfit {
namespace {

int lanes(std::uint32_t width_code) {
  switch (width_code) {
    case 1: return 1;
    case 2: return 4;
    case 4: return 8;
    case 8: return 12;
    case 16: return 2;
    default: return 0;
  }
}

const char* base_speed(std::uint32_t code) {
  switch (code) {
    case 1: return "SDR";
    case 2: return "DDR";
    case 4: return "QDR";
    default: return nullptr;
  }
}

const char* extended_speed(std::uint32_t code) {
  switch (code) {
    case 1: return "FDR";
    case 2: return "EDR";
    case 4: return "HDR";
    case 8: return "NDR";
    default: return nullptr;
  }
}

}  // namespace

LinkRate decode_link_rate(const PortRateCodes& codes) {
  const int width = lanes(codes.width_active);
  const std::uint32_t ext = codes.has_ext_speeds ? codes.ext_speed_active : 0;
  const char* speed = nullptr;
  if (ext != 0) {
    speed = extended_speed(ext);
  } else if (codes.speed_active == 4 && codes.fdr10) {
    speed = "FDR10";
  } else {
    speed = base_speed(codes.speed_active);
  }
  if (width == 0 || speed == nullptr) return unknown_link_rate();
  return LinkRate{width, speed};
}

}  // namespace fabricfit
