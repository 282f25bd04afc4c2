// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli/slurm_cluster.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/wait.h>
#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/hostlist_expand.hpp"
#include "placement/slurm/admin_comment.hpp"

namespace fabricfit::cli {
namespace {

int per_gres_gpus(std::string_view tres);

using nlohmann::json;

std::string str(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return {};
  if (it->is_string()) return it->get<std::string>();
  if (it->is_array()) {  // state flags
    std::string out;
    for (const auto& e : *it) {
      if (!e.is_string()) continue;
      if (!out.empty()) out += '+';
      out += e.get<std::string>();
    }
    return out;
  }
  return it->dump();
}

// Slurm's numbers come plain or as {"set": true, "infinite": false, "number": N}.
std::int64_t num(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return 0;
  if (it->is_number()) return it->get<std::int64_t>();
  if (it->is_object() && it->value("set", false) && !it->value("infinite", false))
    return it->value("number", std::int64_t{0});
  return 0;
}

json parse(std::string_view text, const std::string& origin) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw SlurmError(fmt::format("{}: not Slurm's JSON output: {}", origin, e.what()));
  }
}

std::string read_text(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw SlurmError(fmt::format("{}: cannot be read", file));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

int total_tres_gpus(std::string_view tres) {
  // "cpu=2,mem=1G,node=2,billing=2,gres/gpu=16"
  int gpus = 0;
  while (!tres.empty()) {
    const auto comma = tres.find(',');
    const auto item = tres.substr(0, comma);
    tres = comma == std::string_view::npos ? std::string_view{} : tres.substr(comma + 1);
    if (!item.starts_with("gres/gpu")) continue;
    const auto eq = item.find('=');
    const auto colon = item.find(':');
    if (eq == std::string_view::npos || (colon != std::string_view::npos && colon < eq)) continue;
    int n = 0;
    std::from_chars(item.data() + eq + 1, item.data() + item.size(), n);
    gpus += n;
  }
  return gpus;
}

// "gres/gpu:8" or "gres/gpu:h100:4,gres/shard:2" (tres_per_node, tres_per_job).
int per_gres_gpus(std::string_view tres) {
  std::string gres;
  while (!tres.empty()) {
    const auto comma = tres.find(',');
    auto item = tres.substr(0, comma);
    tres = comma == std::string_view::npos ? std::string_view{} : tres.substr(comma + 1);
    if (item.starts_with("gres/")) item.remove_prefix(5);
    if (!gres.empty()) gres += ',';
    gres += item;
  }
  return gres_gpus(gres);
}

// An array task's ids: the array's job id (0, or absent, for a job that is no task) and
// the task's id, set only for one task (a pending array's record stands for several).
void read_array_task(const json& o, const char* job_key, const char* task_key, SlurmJob& job) {
  const std::int64_t array = num(o, job_key);
  const auto task = o.find(task_key);
  if (array <= 0 || task == o.end()) return;
  const bool set = task->is_number() ||
                   (task->is_object() && task->value("set", false) && !task->value("infinite", false));
  if (!set) return;
  job.array_job_id = static_cast<std::uint64_t>(array);
  job.array_task_id = static_cast<std::uint32_t>(num(o, task_key));
}

}  // namespace

std::string job_label(const SlurmJob& job) {
  if (job.array_job_id == 0 || !job.array_task_id) return std::to_string(job.id);
  return fmt::format("{}_{}", job.array_job_id, *job.array_task_id);
}

int gres_gpus(std::string_view gres) {
  int gpus = 0;
  while (!gres.empty()) {
    // Items are separated by commas outside parentheses.
    std::size_t end = 0;
    int depth = 0;
    for (; end < gres.size(); ++end) {
      if (gres[end] == '(') ++depth;
      if (gres[end] == ')') --depth;
      if (gres[end] == ',' && depth == 0) break;
    }
    std::string_view item = gres.substr(0, end);
    gres = end < gres.size() ? gres.substr(end + 1) : std::string_view{};
    if (!item.starts_with("gpu")) continue;
    item = item.substr(0, item.find('('));
    const auto colon = item.rfind(':');
    if (colon == std::string_view::npos) continue;
    int n = 0;
    const auto digits = item.substr(colon + 1);
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec == std::errc{} && ptr == digits.data() + digits.size()) gpus += n;
  }
  return gpus;
}

std::vector<SlurmNode> parse_slurm_nodes(std::string_view text, const std::string& origin) {
  const json j = parse(text, origin);
  if (!j.contains("nodes") || !j["nodes"].is_array())
    throw SlurmError(fmt::format("{}: no \"nodes\" list", origin));
  std::vector<SlurmNode> nodes;
  for (const auto& n : j["nodes"]) {
    SlurmNode node;
    node.name = str(n, "name");
    node.gpus = gres_gpus(str(n, "gres"));
    node.gpus_used = gres_gpus(str(n, "gres_used"));
    node.state = str(n, "state");
    node.reason = str(n, "reason");
    for (const char* bad :
         {"DOWN", "DRAIN", "FAIL", "NOT_RESPONDING", "FUTURE", "INVALID_REG", "POWERED_DOWN"}) {
      if (("+" + node.state + "+").find(fmt::format("+{}", bad)) != std::string::npos) node.usable = false;
    }
    nodes.push_back(std::move(node));
  }
  return nodes;
}

std::vector<SlurmJob> parse_slurm_jobs(std::string_view text, const std::string& origin) {
  const json j = parse(text, origin);
  if (!j.contains("jobs") || !j["jobs"].is_array())
    throw SlurmError(fmt::format("{}: no \"jobs\" list", origin));
  // Slurm reports an unknown job as an empty list with its reason under "errors".
  if (j["jobs"].empty() && j.contains("errors") && j["errors"].is_array()) {
    std::vector<std::string> reasons;
    for (const auto& e : j["errors"]) {
      const std::string what = str(e, "description").empty() ? str(e, "error") : str(e, "description");
      if (!what.empty()) reasons.push_back(what);
    }
    if (!reasons.empty()) throw SlurmError(fmt::format("{}: {}", origin, fmt::join(reasons, "; ")));
  }
  std::vector<SlurmJob> jobs;
  for (const auto& o : j["jobs"]) {
    SlurmJob job;
    job.id = static_cast<std::uint64_t>(num(o, "job_id"));
    read_array_task(o, "array_job_id", "array_task_id", job);
    const std::string state = str(o, "job_state");
    job.state = state.substr(0, state.find('+'));
    job.reason = str(o, "state_reason");
    job.nodes = str(o, "nodes");
    job.required_nodes = str(o, "required_nodes");
    job.scheduled_nodes = str(o, "scheduled_nodes");
    job.admin_comment = str(o, "admin_comment");
    job.placement_record = placement_record_of(job.admin_comment);
    job.node_count = static_cast<int>(num(o, "node_count"));
    job.gpus_per_node = static_cast<int>(per_gres_gpus(str(o, "tres_per_node")));
    job.total_gpus = static_cast<int>(per_gres_gpus(str(o, "tres_per_job")));
    if (job.total_gpus == 0) job.total_gpus = total_tres_gpus(str(o, "tres_alloc_str"));
    if (const auto it = o.find("gres_detail"); it != o.end() && it->is_array()) {
      for (const auto& g : *it)
        job.gpus_on_node.push_back(g.is_string() ? gres_gpus(g.get<std::string>()) : 0);
    }
    const std::string shared = str(o, "shared");
    job.exclusive =
        shared.find("none") != std::string::npos || str(o, "exclusive").find("true") != std::string::npos;
    job.segment_size = static_cast<int>(num(o, "segment_size"));
    job.start_time = num(o, "start_time");
    job.end_time = num(o, "end_time");
    job.submit_time = num(o, "submit_time");
    jobs.push_back(std::move(job));
  }
  return jobs;
}

std::vector<SlurmJob> parse_sacct_jobs(std::string_view text, const std::string& origin) {
  const json j = parse(text, origin);
  if (!j.contains("jobs") || !j["jobs"].is_array())
    throw SlurmError(fmt::format("{}: no \"jobs\" list", origin));
  std::vector<SlurmJob> jobs;
  const json none = json::object();
  for (const auto& o : j["jobs"]) {
    SlurmJob job;
    const json& state = o.contains("state") && o["state"].is_object() ? o["state"] : none;
    const json& time = o.contains("time") && o["time"].is_object() ? o["time"] : none;
    const json& comment = o.contains("comment") && o["comment"].is_object() ? o["comment"] : none;
    job.id = static_cast<std::uint64_t>(num(o, "job_id"));
    if (const auto a = o.find("array"); a != o.end() && a->is_object())
      read_array_task(*a, "job_id", "task_id", job);
    const std::string current = str(state, "current");
    job.state = current.substr(0, current.find('+'));
    job.reason = str(state, "reason");
    job.nodes = str(o, "nodes");
    if (job.nodes == "None assigned") job.nodes.clear();
    job.admin_comment = str(comment, "administrator");
    job.placement_record = placement_record_of(job.admin_comment);
    job.node_count = static_cast<int>(num(o, "allocation_nodes"));
    job.start_time = num(time, "start");
    job.end_time = num(time, "end");
    job.submit_time = num(time, "submission");
    job.from_accounting = true;
    if (const auto t = o.find("tres"); t != o.end() && t->is_object() && t->contains("allocated")) {
      for (const auto& r : (*t)["allocated"]) {
        if (str(r, "type") == "gres" && str(r, "name") == "gpu")
          job.total_gpus += static_cast<int>(num(r, "count"));
      }
    }
    jobs.push_back(std::move(job));
  }
  return jobs;
}

std::string scontrol_json(const std::vector<std::string>& args) {
  const char* bin = std::getenv("SCONTROL");
  return run_json(bin != nullptr && bin[0] != '\0' ? bin : "scontrol", args);
}

namespace {

// Runs `PROGRAM ARGS` with `tail` (redirections) appended to the command line: its output.
std::string run_program(const std::string& program, const std::vector<std::string>& args, const char* tail) {
  std::string cmd = program;
  for (const auto& a : args) {
    cmd += " '";
    for (char c : a) cmd += c == '\'' ? std::string("'\\''") : std::string(1, c);
    cmd += "'";
  }
  cmd += tail;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) throw SlurmError(fmt::format("cannot run {}", cmd));
  std::string out;
  std::array<char, 65536> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  const int status = ::pclose(pipe);
  if (status != 0) {
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    throw SlurmError(fmt::format("{} {} failed: {}", program, fmt::join(args, " "), out));
  }
  return out;
}

}  // namespace

void scontrol_update(const std::vector<std::string>& args) {
  const char* bin = std::getenv("SCONTROL");
  (void)run_program(bin != nullptr && bin[0] != '\0' ? bin : "scontrol", args, " 2>&1");
}

std::string run_json(const std::string& program, const std::vector<std::string>& args) {
  return run_program(program, args, " --json 2>&1");
}

std::optional<std::string> slurmctld_snapshot_status(std::string_view text) {
  constexpr std::string_view key = " Snapshot=\"";  // on the Placement= line
  const auto at = text.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  const auto begin = at + key.size();
  const auto end = text.find('"', begin);
  if (end == std::string_view::npos) return std::nullopt;
  return std::string(text.substr(begin, end - begin));
}

bool snapshot_status_ok(std::string_view status) {
  return status.starts_with("loaded ");
}

std::optional<std::string> read_slurmctld_snapshot_status(const std::string& file) {
  if (!file.empty()) return slurmctld_snapshot_status(read_text(file));
  const char* bin = std::getenv("SCONTROL");
  try {
    return slurmctld_snapshot_status(run_program(bin != nullptr && bin[0] != '\0' ? bin : "scontrol",
                                                 {"show", "topology"}, " 2>/dev/null"));
  } catch (const SlurmError&) {
    return std::nullopt;
  }
}

std::vector<SlurmNode> read_nodes(const std::string& file, std::string* cluster) {
  const std::string text = file.empty() ? scontrol_json({"show", "nodes"}) : read_text(file);
  if (cluster != nullptr) *cluster = slurm_cluster_name(text);
  return parse_slurm_nodes(text, file.empty() ? "scontrol show nodes --json" : file);
}

std::string slurm_cluster_name(std::string_view text) {
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return {};
  const auto meta = j.find("meta");
  if (meta == j.end() || !meta->is_object()) return {};
  const auto slurm = meta->find("slurm");
  if (slurm == meta->end() || !slurm->is_object()) return {};
  return str(*slurm, "cluster");
}

std::vector<SlurmJob> read_jobs(const std::string& file, const std::string& job_id) {
  if (!file.empty()) return parse_slurm_jobs(read_text(file), file);
  if (job_id.empty()) return parse_slurm_jobs(scontrol_json({"show", "jobs"}), "scontrol show jobs --json");
  std::vector<SlurmJob> live;
  std::string live_error;
  try {
    live = parse_slurm_jobs(scontrol_json({"show", "job", job_id}), "scontrol show job --json");
  } catch (const SlurmError& e) {
    live_error = e.what();
  }
  if (std::ranges::any_of(live, [&](const SlurmJob& j) { return std::to_string(j.id) == job_id; }))
    return live;
  // Purged from slurmctld's memory (MinJobAge after its end; scontrol then lists no job, or
  // says it is invalid): accounting may have it.
  const char* bin = std::getenv("SACCT");
  try {
    return parse_sacct_jobs(run_json(bin != nullptr && bin[0] != '\0' ? bin : "sacct", {"-j", job_id}),
                            "sacct --json");
  } catch (const SlurmError& history) {
    if (live_error.empty()) throw;
    throw SlurmError(fmt::format("{}; {}", live_error, history.what()));
  }
}

std::optional<CommPattern> recorded_pattern(const SlurmJob& job) {
  const std::string value = record_value(job.placement_record, "pattern");
  if (value.empty()) return std::nullopt;
  try {
    return parse_comm_pattern(value);
  } catch (const PatternError&) {
    return std::nullopt;
  }
}

std::optional<Allocation> allocation_of(const LocalityIndex& index, const SlurmJob& job,
                                        std::string* missing) {
  const auto names = expand_hostlist(job.nodes);
  Allocation a;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto h = index.find_host(names[i]);
    if (!h) {
      if (missing != nullptr) *missing = names[i];
      return std::nullopt;
    }
    int g = i < job.gpus_on_node.size() ? job.gpus_on_node[i] : job.gpus_per_node;
    if (g == 0 && job.total_gpus > 0) g = job.total_gpus / static_cast<int>(names.size());
    a.hosts.push_back(*h);
    a.gpus.push_back(g);
  }
  return a;
}

GpuState gpu_state_of(const LocalityIndex& index, const std::vector<SlurmNode>& nodes,
                      std::vector<std::string>* missing) {
  GpuState g;
  g.total.assign(static_cast<std::size_t>(index.host_count()), 0);
  g.free.assign(static_cast<std::size_t>(index.host_count()), 0);
  for (const auto& n : nodes) {
    const auto h = index.find_host(n.name);
    if (!h) {
      if (missing != nullptr) missing->push_back(n.name);
      continue;
    }
    g.total[*h] = n.gpus;
    g.free[*h] = n.usable ? std::max(0, n.gpus - n.gpus_used) : 0;
  }
  return g;
}

}  // namespace fabricfit::cli
