// SPDX-License-Identifier: GPL-2.0-or-later
// The C edge for the SPANK plugin: fabricfit.conf with the controller's rule, and the
// variables a job's tasks get on one node (placement/slurm/job_environment.hpp).
#include <fmt/format.h>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "capi/c_edge.hpp"
#include "capi/fabricfit_api.h"
#include "common/hostlist_expand.hpp"
#include "placement/locality_index.hpp"
#include "placement/slurm/job_environment.hpp"
#include "site/site_config.hpp"
#include "topology/snapshot.hpp"

struct ff_site {
  fabricfit::SiteConfig config;
  fabricfit::SiteConfigLoad::Source source = fabricfit::SiteConfigLoad::Source::Defaults;
  std::filesystem::path snapshot_last_good;  // this node's copy of the snapshot ("": none)
  // What ff_site_read_snapshot read, for the next ff_job_env (which lets it go).
  std::optional<fabricfit::Snapshot> snapshot;
  std::string snapshot_note;   // with `snapshot`: the last good copy was used, and why
  std::string snapshot_error;  // without: why neither the file nor a copy could be used
  bool snapshot_read = false;
};

namespace {

using fabricfit::capi::copy_out;
using fabricfit::capi::guarded;

// The node's copy of the snapshot by default: beside the last good fabricfit.conf.
constexpr const char* kSnapshotLastGood = "fabricfit.snapshot.last-good";

// The snapshot fabricfit.conf names, or the node's last good copy (`note` then says why).
// Throws SnapshotError when neither can be used.
fabricfit::Snapshot read_snapshot(const ff_site& site, std::string& note) {
  fabricfit::Snapshot snapshot;
  const auto load = fabricfit::load_snapshot_keeping_last_good(
      site.config.snapshot_file, site.snapshot_last_good,
      [&](fabricfit::Snapshot&& loaded, const std::string&) { snapshot = std::move(loaded); });
  note = load.from_last_good ? fmt::format("{}; using the last good snapshot {}", load.error,
                                           site.snapshot_last_good.string())
                             : "";
  return snapshot;
}

}  // namespace

extern "C" {

int ff_site_load(const char* path, const char* last_good, ff_site_t** out, char* err, size_t err_len) {
  if (out == nullptr) return FF_EINTERNAL;
  *out = nullptr;
  int rc = FF_OK;
  const int guard = guarded(err, err_len, [&] {
    const auto load = fabricfit::load_site_config_keeping_last_good(path != nullptr ? path : "",
                                                                    last_good != nullptr ? last_good : "");
    auto site = std::make_unique<ff_site>();
    site->config = load.config;
    site->source = load.source;
    if (last_good != nullptr && last_good[0] != '\0')
      site->snapshot_last_good = std::filesystem::path(last_good).parent_path() / kSnapshotLastGood;
    if (!load.error.empty()) {
      copy_out(load.error, err, err_len);
      rc = FF_EINVAL;
    }
    *out = site.release();
  });
  return guard != FF_OK ? guard : rc;
}

void ff_site_keep_snapshot(ff_site_t* site, const char* path) {
  if (site != nullptr && path != nullptr) site->snapshot_last_good = path;
}

int ff_site_read_snapshot(ff_site_t* site, char* err, size_t err_len) {
  if (site == nullptr) return FF_EINTERNAL;
  site->snapshot.reset();
  site->snapshot_note.clear();
  site->snapshot_error.clear();
  site->snapshot_read = true;
  const int rc = guarded(err, err_len, [&] { site->snapshot = read_snapshot(*site, site->snapshot_note); });
  if (rc != FF_OK) site->snapshot_error = err != nullptr ? err : "";
  if (rc == FF_EINTERNAL) site->snapshot_read = false;  // ff_job_env tries again
  return rc;
}

void ff_site_free(ff_site_t* site) {
  delete site;
}

void ff_site_settings(const ff_site_t* site, ff_settings_t* out) {
  if (out == nullptr) return;
  const fabricfit::SiteConfig defaults;
  fabricfit::capi::fill_settings(site != nullptr ? site->config : defaults,
                                 site != nullptr ? site->source : fabricfit::SiteConfigLoad::Source::Defaults,
                                 out);
}

int ff_job_env(ff_site_t* site, const char* node, const char* job_nodes, const ff_pattern_t* pattern,
               unsigned gpus_on_node, ff_getenv_fn getenv, void* getenv_ctx, char* out, size_t out_len,
               char* notes, size_t notes_len, char* snapshot_note, size_t snapshot_note_len, char* err,
               size_t err_len) {
  copy_out("", out, out_len);
  copy_out("", notes, notes_len);
  copy_out("", snapshot_note, snapshot_note_len);
  if (site == nullptr || node == nullptr || job_nodes == nullptr || pattern == nullptr) {
    copy_out("internal error: missing argument", err, err_len);
    return FF_EINTERNAL;
  }
  return guarded(err, err_len, [&] {
    // What ff_site_read_snapshot read for this step, else read now; either way let go after.
    const bool held = std::exchange(site->snapshot_read, false);
    std::string kept_note = std::move(site->snapshot_note);
    if (held && !site->snapshot) throw fabricfit::SnapshotError(site->snapshot_error);
    const fabricfit::Snapshot snapshot =
        held ? std::move(*std::exchange(site->snapshot, std::nullopt)) : read_snapshot(*site, kept_note);
    const fabricfit::LocalityIndex index(snapshot.fabric);
    fabricfit::JobEnvironmentInput in;
    in.node = node;
    in.nodes = fabricfit::expand_hostlist(job_nodes);
    in.pattern = fabricfit::capi::pattern_of(*pattern);
    in.gpus_on_node = static_cast<int>(gpus_on_node);
    auto env = fabricfit::job_environment(snapshot.fabric, index, site->config, in);
    env =
        fabricfit::keep_users_own(std::move(env), [&](const std::string& name) -> std::optional<std::string> {
          const char* value = getenv != nullptr ? getenv(getenv_ctx, name.c_str()) : nullptr;
          if (value == nullptr) return std::nullopt;
          return std::string(value);
        });
    std::string lines;
    for (const auto& name : env.unset) lines += fmt::format("-{}\n", name);
    for (const auto& [name, value] : env.vars) lines += fmt::format("{}={}\n", name, value);
    std::string note_lines;
    for (const auto& n : env.notes) note_lines += n + "\n";
    if (lines.size() >= out_len) throw std::length_error("environment longer than the buffer");
    copy_out(lines, out, out_len);
    copy_out(note_lines, notes, notes_len);
    copy_out(kept_note, snapshot_note, snapshot_note_len);
  });
}

}  // extern "C"
