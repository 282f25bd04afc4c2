// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli/model_options_cli.hpp"

#include <ctime>
#include <filesystem>

#include "common/slurm_node_names.hpp"
#include "ff_config.h"

namespace fabricfit::cli {
namespace {

// A file is recorded by its absolute path, so that `diff SNAPSHOT live` reads it again.
void set_compute_hosts(ModelOptions& o, const std::string& spec) {
  const auto names = load_slurm_nodes(spec);
  o.compute_hosts = std::set<std::string>(names.begin(), names.end());
  std::error_code ec;
  o.compute_hosts_source =
      std::filesystem::is_regular_file(spec, ec) ? std::filesystem::absolute(spec).string() : spec;
}

}  // namespace

void add_model_flags(CLI::App& cmd, ModelFlags& f) {
  ModelOptions& o = f.options;
  f.flags.push_back(cmd.add_option("--host-pattern", o.host_pattern,
                                   "Regular expression searched in an HCA's NodeDescription: group 1 is the "
                                   "host name, group 2 the HCA name")
                        ->capture_default_str());
  f.flags.push_back(cmd.add_option("--compute-hca", o.compute_hca_pattern,
                                   "Regular expression the whole HCA name must match to be a compute HCA "
                                   "(others, e.g. storage, stay out of the compute graph)")
                        ->capture_default_str());
  f.flags.push_back(cmd.add_option("--switch-pattern", o.switch_pattern,
                                   "Regular expression searched in a switch's NodeDescription: group 1 is "
                                   "its name")
                        ->capture_default_str());
  f.flags.push_back(cmd.add_option("--node-name-map", f.node_name_map,
                                   "rdma-core node-name-map file (0xGUID \"name\" lines) overriding node "
                                   "descriptions")
                        ->check(CLI::ExistingFile));
  f.flags.push_back(cmd.add_option("--exclude-host", o.exclude_host_pattern,
                                   "Regular expression searched in host names: matching hosts (storage "
                                   "servers, UFM) are not compute hosts"));
  f.flags.push_back(cmd.add_option("--slurm-nodes", f.slurm_nodes,
                                   "Slurm's nodes, a file with NodeName= lines (slurm.conf) or a hostlist: "
                                   "exactly these hosts are compute hosts"));
}

ModelOptions model_options(const ModelFlags& f) {
  ModelOptions o = f.options;
  if (!f.node_name_map.empty()) {
    o.node_names = load_node_name_map(f.node_name_map);
    o.node_name_map_file = std::filesystem::absolute(f.node_name_map).string();
  }
  if (!f.slurm_nodes.empty()) set_compute_hosts(o, f.slurm_nodes);
  return o;
}

std::vector<std::pair<std::string, std::string>> describe_options(const ModelOptions& o) {
  return {{"host_pattern", o.host_pattern},         {"compute_hca_pattern", o.compute_hca_pattern},
          {"switch_pattern", o.switch_pattern},     {"node_name_map", o.node_name_map_file},
          {"exclude_host", o.exclude_host_pattern}, {"slurm_nodes", o.compute_hosts_source}};
}

ModelOptions options_from(const SnapshotInfo& info) {
  ModelOptions o;
  for (const auto& [k, v] : info.options) {
    if (k == "host_pattern")
      o.host_pattern = v;
    else if (k == "compute_hca_pattern")
      o.compute_hca_pattern = v;
    else if (k == "switch_pattern")
      o.switch_pattern = v;
    else if (k == "node_name_map" && !v.empty()) {
      o.node_name_map_file = v;
      o.node_names = load_node_name_map(v);
    } else if (k == "exclude_host")
      o.exclude_host_pattern = v;
    else if (k == "slurm_nodes" && !v.empty())
      set_compute_hosts(o, v);
  }
  return o;
}

SnapshotInfo snapshot_info_now(const ModelOptions& options) {
  SnapshotInfo info;
  info.producer = std::string("fabricfit ") + PACKAGE_VERSION;
  info.created_unix = static_cast<std::int64_t>(std::time(nullptr));
  info.options = describe_options(options);
  return info;
}

Snapshot open_fabric(const std::string& source, SourceFormat format, const ModelOptions& options,
                     const DiscoveryOptions& live) {
  return read_fabric(source, format, options, snapshot_info_now(options), live);
}

}  // namespace fabricfit::cli
