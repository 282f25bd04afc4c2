// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/node_naming.hpp"

#include <fmt/format.h>
#include <array>
#include <cctype>
#include <charconv>

namespace fabricfit {
namespace {

std::regex compile(const std::string& pattern, const char* option) {
  try {
    return std::regex(pattern, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    throw ModelError(fmt::format("{} '{}' is not a valid regular expression: {}", option, pattern, e.what()));
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// What an HCA says before its driver has set the description to "<hostname> <device>":
// the firmware default, e.g. "MT4129 ConnectX7   Mellanox Technologies".
bool is_firmware_default(std::string_view desc) {
  desc = trim(desc);
  if (desc.empty()) return true;
  if (desc.size() > 2 && desc.starts_with("MT") && std::isdigit(static_cast<unsigned char>(desc[2])))
    return true;
  return desc.ends_with("Mellanox Technologies") || desc.ends_with("NVIDIA Technologies");
}

bool is_sharp_node(std::string_view desc) {
  return desc.find("Aggregation Node") != std::string_view::npos;
}

bool is_default_host_name(std::string_view host) {
  // "ubuntu": the name a stock Ubuntu install gives itself (the real dump has one).
  static constexpr std::array<std::string_view, 5> kDefaults{"localhost", "localhost.localdomain", "(none)",
                                                             "localhost6", "ubuntu"};
  for (const auto d : kDefaults) {
    if (host == d) return true;
  }
  return false;
}

}  // namespace

NodeNamer::NodeNamer(const ModelOptions& options)
    : options_(options),
      host_(compile(options.host_pattern, "--host-pattern")),
      compute_(compile(options.compute_hca_pattern, "--compute-hca")),
      switch_(compile(options.switch_pattern, "--switch-pattern")) {
  if (host_.mark_count() < 1) {
    throw ModelError(
        fmt::format("--host-pattern '{}' needs a group ( ) around the host name", options.host_pattern));
  }
  host_has_hca_group_ = host_.mark_count() >= 2;
  if (!options.exclude_host_pattern.empty())
    exclude_ = compile(options.exclude_host_pattern, "--exclude-host");
}

std::string NodeNamer::description(std::uint64_t guid, const std::string& description) const {
  const auto it = options_.node_names.find(guid);
  return it != options_.node_names.end() ? it->second : description;
}

std::string NodeNamer::switch_name(const std::string& description) const {
  std::smatch m;
  if (switch_.mark_count() >= 1 && std::regex_search(description, m, switch_) && m[1].length() > 0) {
    return m[1].str();
  }
  return std::string(trim(description));
}

CaName NodeNamer::ca_name(const std::string& description) const {
  if (is_sharp_node(description)) return {CaRole::Sharp, {}, {}};
  if (is_firmware_default(description)) return {CaRole::Unnamed, {}, {}};
  std::smatch m;
  if (!std::regex_search(description, m, host_) || m[1].length() == 0) return {CaRole::Unmatched, {}, {}};
  CaName name;
  name.host = m[1].str();
  if (host_has_hca_group_ && m[2].matched) {
    name.hca = m[2].str();
  } else {
    name.hca = std::string(trim(std::string_view(description).substr(m.position(0) + m.length(0))));
  }
  if (is_default_host_name(name.host)) {
    name.role = CaRole::DefaultHostName;
    return name;
  }
  if ((exclude_ && std::regex_search(name.host, *exclude_)) ||
      (options_.compute_hosts && !options_.compute_hosts->contains(name.host))) {
    name.role = CaRole::Excluded;
    return name;
  }
  name.role = std::regex_match(name.hca, compute_) ? CaRole::Compute : CaRole::NonCompute;
  return name;
}

HcaOrdinal hca_ordinal(std::string_view hca_name) {
  std::size_t digits = hca_name.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(hca_name[digits - 1]))) --digits;
  HcaOrdinal o{std::string(hca_name.substr(0, digits)), -1};
  // More than 18 digits is not an index: keep the whole name as the prefix.
  if (digits < hca_name.size() && hca_name.size() - digits <= 18) {
    std::from_chars(hca_name.data() + digits, hca_name.data() + hca_name.size(), o.number);
  } else {
    o.prefix = std::string(hca_name);
  }
  return o;
}

}  // namespace fabricfit
