// SPDX-License-Identifier: GPL-2.0-or-later
// What `fabricfit explain` says of a job's own placement: the figures computed on today's
// snapshot and free GPUs reconciled with the placement record slurmctld wrote when it
// placed the job (its AdminComment), each figure labelled with when it holds; and the
// words for what explain could not read (a job accounting keeps without GPU counts, a
// snapshot path with no fabricfit.conf behind it).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/slurm_cluster.hpp"
#include "health/health_model.hpp"
#include "placement/selection/health_avoidance.hpp"
#include "topology/fabric.hpp"

namespace fabricfit::cli {

// The record's words as JSON: {"placement": "fabricfit", "leaf_groups": "2", ...}.
[[nodiscard]] nlohmann::json record_json(const std::string& record);

// A number of the record ("cross_spine_gb=3.88"); nullopt when absent or not a number.
[[nodiscard]] std::optional<double> record_number(const std::string& record, const char* key);

// Whether the job was read from accounting (sacct) without its GPUs: slurmdbd keeps a job's
// GPUs only where slurm.conf has AccountingStorageTRES=gres/gpu. A job its record says
// asked for none (reason=no-gpus) has none to keep.
[[nodiscard]] bool accounting_lacks_gpus(const SlurmJob& job);

// The line explain prints for such a job: accounting has no GPU counts, the setting that
// keeps them, and where the figures come from instead.
[[nodiscard]] std::string accounting_gpus_note(const SlurmJob& job);

// Where the figures of a job's own placement hold.
struct OwnPlacement {
  bool ended = false;      // its free GPUs of then are gone: only the record has its unusable GPUs
  bool gpus_known = true;  // Slurm gave its GPUs (not accounting without gres/gpu)
  std::string record;      // its placement record ("" if none)
};

// The job's own placement as explain reports it: `computed` (describe() of its nodes on
// today's snapshot and free GPUs) with
// - GPUs unknown: "gpus" null, and the traffic figures (cross_spine_gb_per_gb,
//   cross_core_gb_per_gb, uplink_ms_per_gb, pods) the record's ("figures_from": "placement
//   record"), or null when the record has none: never those of 0 GPUs;
// - ended: "gpus_made_unusable" the record's, null without one ("unusable_when": "placement");
// - running: "gpus_made_unusable" as computed ("unusable_when": "now"), and the record's
//   beside it as "gpus_made_unusable_at_placement".
[[nodiscard]] nlohmann::json reconcile_own_placement(nlohmann::json computed, const OwnPlacement& own);

// A placement (describe()'s JSON, or reconcile_own_placement's) as explain's indented lines.
[[nodiscard]] std::string render_placement(const nlohmann::json& p);

// The parts not healthy (a health file) that a placement on `job_hosts` crosses, by `crosses`
// (crossed_parts, placement's own rule): its hosts' HCA links and NVLink, and its leaf groups'
// uplinks when it spans several; and those it avoided, of the kinds it crosses: of the
// `candidates` (hosts with GPUs free for it) it did not use, their HCA links and NVLink, and
// the uplinks of their leaf groups it did not use.
// {"sweep", "crossed": [...], "avoided": [...]}, each link {"link", "a", "a_port", "b",
// "b_port", "state", "since", "evidence", and "host" or "leaf_group"}.
[[nodiscard]] nlohmann::json placement_health(const Fabric& fabric, const HealthFile& health,
                                              const std::vector<std::string>& job_hosts,
                                              const CrossedParts& crosses,
                                              const std::vector<std::string>& candidates);
// placement_health's JSON as explain's indented lines.
[[nodiscard]] std::string render_placement_health(const nlohmann::json& h);

// The error when the snapshot cannot be loaded: `error` as the loader gave it, with where the
// snapshot path came from. `conf_found`: the fabricfit.conf at `conf` exists; `conf_given`:
// --conf named it (else it is --conf's default).
[[nodiscard]] std::string snapshot_load_error(const std::string& conf, bool conf_given, bool conf_found,
                                              const std::string& error);

}  // namespace fabricfit::cli
