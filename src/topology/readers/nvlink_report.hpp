// SPDX-License-Identifier: GPL-2.0-or-later
// Each node's own report of its NVLink fabric: the "Fabric" section that `nvidia-smi -q`
// prints for every GPU (NVML's nvmlDeviceGetGpuFabricInfo), read into per-host GPU records
// for `fabricfit discover --nvlink-report` (the domains) and `fabricfit health --sweep`
// (their health, health/nvlink_health.hpp). docs/fabric-model.md, "NVLink domains".
//   GPU 00000009:01:00.0
//       Fabric
//           State                             : Completed
//           Status                            : Success
//           CliqueId                          : 4026
//           ClusterUUID                       : 9c6f5af3-53bf-49b5-a436-b66766c413c3
//           Health
//               Summary                           : Healthy
//               Bandwidth                         : Full
//               Route Recovery in progress        : False
//               Route Unhealthy                   : False
//               Access Timeout Recovery           : False
//               Incorrect Configuration           : None
// Two shapes: many hosts in one file, each line prefixed "HOST: " as pdsh and clush print
// it; or a directory of one unprefixed file per host, named after it (".txt" optional).
// Which GPUs make a domain is nvlink_report_domains.hpp's job; this file only reads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fabricfit {

// what() is "FILE:LINE: reason" (LINE from 1), or "FILE: reason" for what no single line
// holds (an unreadable file, no report at all).
class NvlinkReportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The Health subsection of a GPU's Fabric section (NVML's nvmlGpuFabricInfoV_t healthMask
// and healthSummary), as printed: newer drivers print it, older ones print none or fewer
// rows. Values "N/A" read as absent (empty).
struct NvlinkGpuFabricHealth {
  int line = 0;                         // the "Health" line; 0: none printed
  std::string summary;                  // "Healthy", "Unhealthy", "Limited Capacity"
  std::string bandwidth;                // "Full", "Degraded"
  std::string route_recovery;           // "Route Recovery in progress": "True", "False"
  std::string route_unhealthy;          // "True", "False"
  std::string access_timeout_recovery;  // "True", "False"
  std::string incorrect_configuration;  // "None", or what is wrong ("Insufficient Nvlinks", ...)
  friend bool operator==(const NvlinkGpuFabricHealth&, const NvlinkGpuFabricHealth&) = default;
};

// One GPU's Fabric section, as printed. Values "N/A" read as absent.
struct NvlinkGpuFabric {
  std::string gpu;                         // its bus id, from the "GPU 00000009:01:00.0" line
  int line = 0;                            // that line
  int fabric_line = 0;                     // the "Fabric" line; 0: the GPU printed none
  std::string state, status;               // "Completed", "Success", "In Progress", ...
  std::optional<std::uint32_t> clique_id;  // CliqueId
  std::string cluster_uuid;                // ClusterUUID, lower case
  NvlinkGpuFabricHealth health;
  friend bool operator==(const NvlinkGpuFabric&, const NvlinkGpuFabric&) = default;
};

// The GPU says something of an NVLink fabric: its Fabric State is neither absent (N/A, no
// Fabric section) nor Not Supported (no NVSwitch fabric, or a driver too old to say).
[[nodiscard]] bool reports_fabric(const NvlinkGpuFabric& gpu);

struct NvlinkHostReport {
  std::string host;             // as pdsh printed it, or the file's name
  std::string file;             // where its lines are, for messages
  int line = 0;                 // its first line there
  std::string first_text;       // its first non-blank line (what a failed nvidia-smi said)
  std::int64_t mtime_unix = 0;  // when its file was last written (load_nvlink_report); 0: unknown
  std::vector<NvlinkGpuFabric> gpus;
};

struct NvlinkReport {
  std::string origin;                   // the file or directory, for messages
  std::vector<NvlinkHostReport> hosts;  // in order of their first line; a directory's by name
};

// pdsh or clush output, every line "HOST: TEXT". Refuses, naming the line: a line without
// that prefix (pdsh's own "pdsh@..." messages included), a CliqueId that is not a number,
// a ClusterUUID that is not a UUID, a Fabric key twice in one GPU, a GPU twice in one
// host's report, a host whose report starts twice; and text with no host at all.
[[nodiscard]] NvlinkReport parse_nvlink_report(std::string_view text, const std::string& origin);

// One host's unprefixed `nvidia-smi -q` output; refuses what parse_nvlink_report does.
[[nodiscard]] NvlinkHostReport parse_nvlink_host_report(std::string_view text, const std::string& host,
                                                        const std::string& origin);

// A file (parse_nvlink_report) or a directory: every file in it not starting with '.' is
// one host's report, the host its name without ".txt" (a collector's temporary files
// start with '.'). Throws NvlinkReportError.
[[nodiscard]] NvlinkReport load_nvlink_report(const std::filesystem::path& path);

}  // namespace fabricfit
