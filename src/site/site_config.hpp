// SPDX-License-Identifier: GPL-2.0-or-later
// fabricfit.conf: the site's settings, in Slurm's Key=Value style.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "health/health_thresholds.hpp"
#include "placement/comm_pattern.hpp"

namespace fabricfit {

struct SiteConfig {
  // Where `fabricfit discover` writes the fabric snapshot that the plugin reads.
  std::string snapshot_file = "/var/lib/fabricfit/fabric.snapshot";
  // HealthFile: where `fabricfit health` keeps the fabric's health; empty: beside the
  // snapshot (fabric.snapshot -> fabric.health).
  std::string health_file;
  // HealthMaxAge: seconds after its last sweep when slurmctld stops placing by the health
  // file (the sweeps stopped: its states are no longer news); 0: never.
  int health_max_age_s = 180;
  // HealthDrain=yes: `fabricfit health --sweep` drains in Slurm each node whose HCA link
  // flaps (Reason="fabricfit: ...") and resumes only the nodes it drained, once their link
  // neither flaps nor is down; HealthDrainMax: never more than this many nodes drained by fabricfit
  // at once (a fault of the fabric, not of many hosts, must not drain the cluster).
  bool health_drain = false;
  int health_drain_max = 2;
  // NvlinkReport: the directory the nodes' collectors write their `nvidia-smi -q` into
  // (contrib/nvlink-report.sh); each `fabricfit health --sweep` judges their NVLink there.
  // Empty: no NVLink health.
  std::string nvlink_report;
  // NvlinkReportMaxAge: seconds after which a node's report is not news (its collector or
  // node stopped): its last state is kept and the sweep names it; 0: never.
  int nvlink_report_max_age_s = 3600;
  // Health* keys: when a link is unhealthy (health/health_thresholds.hpp).
  HealthThresholds health;
  // Pattern assumed for multi-node jobs submitted without --comm-pattern.
  CommPattern default_pattern{PatternKind::Ring};

  // NCCL variables the SPANK plugin puts in every task (docs/configuration.md).
  bool nccl_settings = true;             // NcclSettings=no: the site switch that turns them all off
  std::optional<int> nccl_ib_sl;         // NcclIbSl: InfiniBand service level, 0-15
  std::optional<int> nccl_ib_tc;         // NcclIbTc: traffic class, 0-255 (RoCE)
  std::optional<int> nccl_ib_gid_index;  // NcclIbGidIndex: GID index, 0-255 (RoCE)
  std::string nccl_socket_ifname;        // NcclSocketIfname: NCCL's bootstrap interfaces
  bool sharp = false;                    // Sharp=yes: the site runs SHARP (NCCL_COLLNET_ENABLE)
  // Imex=yes: every NVLink domain runs NVIDIA's IMEX service and each job gets an IMEX
  // channel (Slurm's switch/nvidia_imex), so a multi-node job inside one domain can use
  // multi-node NVLink: NCCL_MNNVL_ENABLE=1 (docs/configuration.md).
  bool imex = false;
  // DebugFlags=Placement: every evaluation's decision logged (at Slurm's debug level),
  // not only one line per job when it is allocated.
  bool debug_placement = false;
  // The adaptive locality wait (docs/placement.md): LocalityWaitMax, the most a job may
  // stay pending for one leaf group, counted from when it became eligible (0: never
  // waits); LocalityWaitCommShare, the share of a job's run time assumed spent in its
  // collectives (the run-time model's f).
  double locality_wait_max_s = 3600;
  double locality_wait_comm_share = 0.3;
  // LocalityWaitRouting=static: the run-time model pins each flow to one uplink cable by
  // destination (the subnet manager's static routing, where flows collide), not ECMP's
  // even spread over a leaf group's uplinks (docs/placement.md).
  bool locality_wait_static_routing = false;
  // LocalityWaitEstimate=history: the wait takes a job's run time (its own, and the
  // running jobs' ends) as its time limit x the share of their limits its user's last two
  // finished jobs ran (placement/runtime/runtime_predictor.hpp), not the time limit itself.
  bool locality_wait_history_estimate = false;
};

// A bad line: the message names the file, the line and the reason, as in
// "/etc/slurm/fabricfit.conf:7: unknown key 'SnapshotPth'".
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses the text of a fabricfit.conf; `origin` names it in errors.
[[nodiscard]] SiteConfig parse_site_config(const std::string& text, const std::string& origin);

// Where the admin command looks for fabricfit.conf without --conf: beside slurm.conf as
// slurmctld does (its get_extra_conf_path), so $SLURM_CONF's directory when set, else
// /etc/slurm. `slurm_conf` is $SLURM_CONF (null or empty: unset).
[[nodiscard]] std::filesystem::path default_site_config_path(const char* slurm_conf);

// Reads a fabricfit.conf. A file that does not exist yields the defaults; one that
// exists but cannot be read or parsed throws ConfigError (never a partial config).
[[nodiscard]] SiteConfig load_site_config(const std::filesystem::path& path);

// What a daemon runs with after reading fabricfit.conf.
struct SiteConfigLoad {
  enum class Source { File, LastGood, Defaults };
  SiteConfig config;
  Source source = Source::Defaults;
  std::string error;  // why the file was not taken; empty when it was
};

// Reads `path`; on success keeps a copy of it at `last_good` (atomically), so that a
// later bad edit falls back to the last file that parsed, even in a new process (Slurm
// re-executes slurmctld on reconfigure). Without a usable last-good copy, the defaults.
// An empty `last_good` disables the copy. Never throws ConfigError.
[[nodiscard]] SiteConfigLoad load_site_config_keeping_last_good(const std::filesystem::path& path,
                                                                const std::filesystem::path& last_good);

}  // namespace fabricfit
