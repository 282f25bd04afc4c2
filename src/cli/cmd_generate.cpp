// SPDX-License-Identifier: GPL-2.0-or-later
// `fabricfit generate`: synthetic Clos fabrics for the lab, the tests and benchmarks, and
// with --nvl-domain-size their NVLink domains as Slurm BlockName lines.
#include <fmt/format.h>
#include <memory>

#include "cli/commands.hpp"
#include "cli/generate_extras.hpp"
#include "common/atomic_file.hpp"
#include "topology/generate/clos_domains.hpp"
#include "topology/generate/clos_generator.hpp"

namespace fabricfit::cli {
namespace {

struct GenerateOptions {
  ClosSpec spec;
  std::string rate = "4xHDR";
  std::string output;
  bool print_nodes = false;
  bool planes = false;
  std::vector<std::string> degrade;  // --degrade, one UplinkDegradation each
  int nvl_domain_size = 0;           // 0: no NVLink domains
  std::string blocks_output;         // where their BlockName lines go
};

bool to_stdout(const std::string& path) {
  return path.empty() || path == "-";
}

// --nvl-domain-size and --blocks-output go together; checked before anything is written.
std::vector<SlurmBlock> nvlink_blocks(const GenerateOptions& opt, const ClosSpec& spec) {
  if (opt.nvl_domain_size == 0 && opt.blocks_output.empty()) return {};
  if (opt.nvl_domain_size == 0) throw SpecError("--blocks-output needs --nvl-domain-size");
  if (opt.blocks_output.empty()) {
    throw SpecError("--nvl-domain-size needs --blocks-output FILE: the domains are not in the net file");
  }
  if (to_stdout(opt.blocks_output) && to_stdout(opt.output)) {
    throw SpecError("--blocks-output - and the net file both on standard output: give -o FILE");
  }
  return clos_nvlink_domains(spec, opt.nvl_domain_size);
}

void write_blocks(const std::string& path, const std::vector<SlurmBlock>& blocks, const ClosSpec& spec) {
  const std::string text = slurm_block_lines(blocks, slurm_node_list(spec));
  if (to_stdout(path)) {
    fmt::print("{}", text);
  } else {
    write_file_atomically(path, text);
  }
}

int run_generate(const GenerateOptions& opt) {
  ClosSpec spec = opt.spec;
  const auto rate = parse_link_rate(opt.rate);
  if (!rate) throw SpecError(fmt::format("--rate '{}' is not WIDTHxSPEED, e.g. 4xHDR", opt.rate));
  spec.rate = *rate;
  const std::vector<SlurmBlock> blocks = nvlink_blocks(opt, spec);
  if (opt.planes) {
    const int status = write_planes(spec, opt.output, opt.print_nodes);
    if (!blocks.empty()) write_blocks(opt.blocks_output, blocks, spec);
    return status;
  }
  for (const auto& d : opt.degrade) spec.degraded.push_back(parse_uplink_degradation(d));
  const std::string net = generate_ibnetdiscover(spec);
  if (to_stdout(opt.output)) {
    fmt::print("{}", net);
  } else {
    write_file_atomically(opt.output, net);
  }
  if (!blocks.empty()) write_blocks(opt.blocks_output, blocks, spec);
  if (opt.print_nodes) fmt::print("{}\n", slurm_node_list(spec));
  return 0;
}

// Fabrics that are not healthy 1:1: oversubscription and degraded uplinks (clos_variants.hpp).
void add_variant_options(CLI::App& cmd, GenerateOptions& opt) {
  cmd.add_option("--oversubscription", opt.spec.oversubscription,
                 "Leaf hosts per uplink, e.g. 2 for 2:1 (sets --uplinks to hosts-per-leaf / ratio)")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--core-oversubscription", opt.spec.core_oversubscription,
                 "Three-tier: spine downlinks per core uplink, e.g. 2 for 2:1 at the core")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--degrade", opt.degrade,
                 "Uplinks running below the rate: groups=1,5-7,rail=R,fraction=F,rate=4xEDR (repeatable; "
                 "groups and rail default to all, fraction to 1)");
}

}  // namespace

Action add_generate_command(CLI::App& app) {
  auto opt = std::make_shared<GenerateOptions>();
  auto* cmd = app.add_subcommand(
      "generate", "Write a synthetic leaf-spine or three-tier fabric in ibnetdiscover (ibsim) format");
  auto& s = opt->spec;
  cmd->add_option("--leaves", s.leaves, "Leaf groups (per pod when three-tier); one leaf per rail in each")
      ->capture_default_str();
  cmd->add_option("--hosts-per-leaf", s.hosts_per_leaf, "Hosts cabled to each leaf")->capture_default_str();
  cmd->add_option("--spines", s.spines, "Spine switches (per pod when three-tier)")->capture_default_str();
  cmd->add_option("--uplinks", s.uplinks, "Cables from each leaf to the spines (0: one per host, 1:1)")
      ->capture_default_str();
  cmd->add_option("--rails", s.rails, "HCAs per host, HCA r on the rail-r leaf of its group (1-8)")
      ->capture_default_str();
  cmd->add_option("--pods", s.pods, "Three-tier: pods of leaf-spine under core switches (0: two-tier)")
      ->capture_default_str();
  cmd->add_option("--cores", s.cores, "Three-tier: core switches (0: as many as spines per pod)")
      ->capture_default_str();
  cmd->add_option("--core-uplinks", s.core_uplinks,
                  "Three-tier: cables from each spine to the cores (0: 1:1)")
      ->capture_default_str();
  cmd->add_option("--switch-ports", s.switch_ports, "Ports per switch")->capture_default_str();
  cmd->add_option("--rate", opt->rate, "Link width and speed, e.g. 4xHDR, 4xEDR")->capture_default_str();
  cmd->add_option("--host-prefix", s.host_prefix, "Host name prefix")->capture_default_str();
  cmd->add_option("--host-digits", s.host_digits, "Zero-padded digits in host names")->capture_default_str();
  cmd->add_option("--first-host", s.first_host, "Number of the first host")->capture_default_str();
  add_variant_options(*cmd, *opt);
  cmd->add_option("-o,--output", opt->output, "Net file to write (default: standard output)");
  cmd->add_flag("--slurm-nodes", opt->print_nodes, "Print the Slurm node list of the hosts");
  add_extras_options(*cmd, s.extras);
  cmd->add_option("--nvl-domain-size", opt->nvl_domain_size,
                  "NVLink domains of this many hosts (18 for NVL72 racks of 4-GPU trays): consecutive hosts "
                  "of a leaf, named nvl0, nvl1, ...; must divide --hosts-per-leaf; needs --blocks-output")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--blocks-output", opt->blocks_output,
                  "Write the NVLink domains as Slurm topology.conf BlockName lines (topology/block) to this "
                  "file, which `fabricfit discover --blocks` reads");
  cmd->add_flag("--planes", opt->planes,
                "One subnet per rail: write one net file per rail (OUTPUT.planeR.EXT), each with its own "
                "spines and LIDs from 1");
  return [opt] { return run_generate(*opt); };
}

}  // namespace fabricfit::cli
