// SPDX-License-Identifier: GPL-2.0-or-later
// A rail-optimised fabric as one subnet per rail plane: plane r holds every host's HCA r,
// the rail-r leaves and spines (and cores) of its own. Each plane is written as a net
// file of its own (ibsim runs one simulator per plane), with LIDs from 1 inside its
// subnet's unicast range; GUIDs and switch names differ between planes, host names and
// system image GUIDs are shared, which is what ties a host's HCAs together.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fabricfit {

struct ClosSpec;

// Set on the ClosSpec of one plane; the default is "not a plane" (one subnet).
struct PlaneOf {
  int rail = 0;  // the plane's rail: its HCAs are mlx5_<rail>
  bool set = false;
  [[nodiscard]] std::uint64_t guid_salt() const {
    return set ? static_cast<std::uint64_t>(rail + 1) << 32 : 0;
  }
  // "ib-spine-01" -> "ib-spine-01-r1": every switch of a plane carries its rail.
  [[nodiscard]] std::string switch_name(const std::string& name) const;
};

// The highest unicast LID of a subnet.
inline constexpr int kMaxUnicastLid = 0xBFFF;

// One net file per rail of `spec` (spec.rails planes), in rail order. Throws SpecError
// when a plane needs more LIDs than a subnet has.
[[nodiscard]] std::vector<std::string> generate_planes(const ClosSpec& spec);

// "fabric.net", 1 -> "fabric.plane1.net"; no extension: "fabric.plane1".
[[nodiscard]] std::string plane_file_name(const std::string& output, int plane);

}  // namespace fabricfit
