// SPDX-License-Identifier: GPL-2.0-or-later
// How build_fabric() reads names: the node-name-map override, the host-name and
// switch-name patterns, firmware-default and SHARP descriptions, and the order of HCA
// names that rails are derived from.
#pragma once

#include <regex>
#include <string>
#include <string_view>

#include "topology/fabric_builder.hpp"

namespace fabricfit {

enum class CaRole {
  Compute,          // a host's compute HCA
  NonCompute,       // a host's HCA outside the compute-HCA pattern (storage, management)
  Unnamed,          // firmware default description: no host name known
  DefaultHostName,  // "localhost ..." : a host name Slurm cannot know
  Unmatched,        // description does not match the host-name pattern
  Sharp,            // SHARP aggregation node inside a switch
  Excluded,         // a named host that is not a compute host (--exclude-host, not a Slurm node)
};

struct CaName {
  CaRole role = CaRole::Unnamed;
  std::string host;  // Compute, NonCompute: the host name
  std::string hca;   // Compute, NonCompute: the HCA name ("mlx5_0"); may be empty
};

class NodeNamer {
 public:
  // Throws ModelError naming the option whose pattern does not compile.
  explicit NodeNamer(const ModelOptions& options);

  // The node-name-map entry for `guid`, else `description`.
  [[nodiscard]] std::string description(std::uint64_t guid, const std::string& description) const;
  [[nodiscard]] std::string switch_name(const std::string& description) const;
  [[nodiscard]] CaName ca_name(const std::string& description) const;
  [[nodiscard]] const ModelOptions& options() const { return options_; }

 private:
  const ModelOptions& options_;
  std::regex host_;
  std::regex compute_;
  std::regex switch_;
  std::optional<std::regex> exclude_;
  bool host_has_hca_group_ = false;
};

// An HCA name split for ordering: "mlx5_10" -> {"mlx5_", 10}; "ib" -> {"ib", -1}.
struct HcaOrdinal {
  std::string prefix;
  long number = -1;
  friend auto operator<=>(const HcaOrdinal&, const HcaOrdinal&) = default;
};
[[nodiscard]] HcaOrdinal hca_ordinal(std::string_view hca_name);

}  // namespace fabricfit
