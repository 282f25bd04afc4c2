// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli/generate_extras.hpp"

#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "topology/generate/clos_planes.hpp"

namespace fabricfit::cli {

int write_planes(const ClosSpec& spec, const std::string& output, bool print_nodes) {
  if (output.empty() || output == "-") throw SpecError("--planes writes one file per plane: give -o FILE");
  const std::vector<std::string> planes = generate_planes(spec);
  for (std::size_t p = 0; p < planes.size(); ++p) {
    write_file_atomically(plane_file_name(output, static_cast<int>(p)), planes[p]);
  }
  if (print_nodes) fmt::print("{}\n", slurm_node_list(spec));
  return 0;
}

void add_extras_options(CLI::App& cmd, ClosExtras& x) {
  cmd.add_option("--storage-servers", x.storage_servers,
                 "Storage servers (stor001 mlx5_0, ...) on storage leaves")
      ->capture_default_str();
  cmd.add_flag("--storage-hcas", x.storage_hcas,
               "Give every host one more HCA, mlx5_<rails>, cabled to a storage leaf (keep it out of the "
               "compute graph with --compute-hca)");
  cmd.add_option("--storage-uplink", x.storage_uplink,
                 "What the storage leaves are cabled to: the first spine, or the first core (three-tier)")
      ->check(CLI::IsMember({"spine", "core"}))
      ->capture_default_str();
  cmd.add_option("--storage-uplinks", x.storage_uplinks, "Cables from each storage leaf up")
      ->capture_default_str();
  cmd.add_option("--management-hosts", x.management_hosts,
                 "Management CAs: ufm01, a host called \"localhost\", an HCA with its firmware default "
                 "description, in turn")
      ->capture_default_str();
  cmd.add_option("--management-switch", x.management_switch,
                 "Where the management CAs are cabled: the first leaf, spine or core")
      ->check(CLI::IsMember({"leaf", "spine", "core"}))
      ->capture_default_str();
  cmd.add_option("--cross-tier-cables", x.cross_tier_cables,
                 "Three-tier: cables from leaves straight to cores (skipping the spines)")
      ->capture_default_str();
}

}  // namespace fabricfit::cli
