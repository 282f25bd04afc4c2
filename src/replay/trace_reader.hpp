// SPDX-License-Identifier: GPL-2.0-or-later
// Public GPU-cluster job traces (see /work/shared/traces/README.md) as jobs on hosts of
// a given GPU count. Errors name the file, the line and what is wrong.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fabricfit {

enum class TraceFormat {
  ElasticFlow,  // Microsoft ITP via ElasticFlow: job_id,submission_time,duration,num_gpu
  Kalos,        // AcmeTrace Kalos (converted): gpu_workers x gpu_per_worker, num_iteration x 0.5 s
  OpenB,        // Alibaba openb pod list: single-host pods, duration = deletion - creation
};

// "elasticflow", "kalos", "openb".
[[nodiscard]] std::optional<TraceFormat> parse_trace_format(std::string_view name);
[[nodiscard]] std::string to_string(TraceFormat format);

struct TraceJob {
  std::string id;
  double submit_s = 0;  // from the start of the trace
  double duration_s = 0;
  int nodes = 1;
  int gpus_per_node = 1;
  bool pretraining = false;  // Kalos: iteration_networking_time 0.75
  // Share of the run time spent communicating, where the trace records it (Kalos:
  // networking / (networking + computing) per iteration); -1: not recorded.
  double comm_share = -1;
  [[nodiscard]] int gpus() const { return nodes * gpus_per_node; }
};

class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the reader left out, and why (counted, not silently dropped).
struct TraceSkips {
  int no_gpu = 0;     // openb: CPU-only pods
  int never_ran = 0;  // openb: pods never scheduled (no scheduled_time)
};

struct Trace {
  std::vector<TraceJob> jobs;  // in submission order (ties: file order)
  TraceSkips skipped;
  std::string mapping;  // how GPU counts became hosts, for the report
};

// Maps GPU counts onto hosts of `node_gpus` GPUs: up to node_gpus GPUs is one host
// (shared); more is ceil(gpus / node_gpus) hosts with the GPUs spread evenly (16, 32, 64
// -> 2, 4, 8 hosts of 8). openb's fractional GPUs (gpu_milli < 1000) count as one GPU.
// `source` names the text in errors. Throws TraceError "SOURCE:LINE: reason".
[[nodiscard]] Trace parse_trace(std::string_view text, const std::string& source, TraceFormat format,
                                int node_gpus);
[[nodiscard]] Trace read_trace(const std::string& path, TraceFormat format, int node_gpus);

}  // namespace fabricfit
