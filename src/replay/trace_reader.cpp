// SPDX-License-Identifier: GPL-2.0-or-later
#include "replay/trace_reader.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

namespace fabricfit {
namespace {

std::vector<std::string_view> split_csv(std::string_view line) {
  std::vector<std::string_view> out;
  while (true) {
    const auto comma = line.find(',');
    out.push_back(line.substr(0, comma));
    if (comma == std::string_view::npos) break;
    line = line.substr(comma + 1);
  }
  return out;
}

class CsvReader {
 public:
  CsvReader(std::string_view text, std::string source) : text_(text), source_(std::move(source)) {}

  // Reads the header and finds the columns we need.
  void header(const std::vector<std::string>& wanted) {
    std::string_view line;
    if (!next(line)) throw error("empty file, expected a CSV header");
    const auto names = split_csv(line);
    for (const auto& w : wanted) {
      const auto it = std::find(names.begin(), names.end(), w);
      if (it == names.end()) throw error(fmt::format("header has no '{}' column", w));
      columns_.push_back(static_cast<int>(it - names.begin()));
    }
    width_ = static_cast<int>(names.size());
  }

  // The next data row; false at the end. Blank lines are skipped.
  bool row() {
    std::string_view line;
    do {
      if (!next(line)) return false;
    } while (line.empty());
    fields_ = split_csv(line);
    if (static_cast<int>(fields_.size()) != width_) {
      throw error(fmt::format("{} fields, the header has {}", fields_.size(), width_));
    }
    return true;
  }

  // The i-th wanted column of the current row.
  [[nodiscard]] std::string_view text(int i) const { return fields_[columns_[i]]; }

  template <typename T>
  T number(int i, std::string_view what) const {
    const auto s = text(i);
    T v{};
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc{} || ptr != s.data() + s.size()) {
      throw error(fmt::format("{} '{}' is not a number", what, s));
    }
    if (v < 0) throw error(fmt::format("{} {} is negative", what, s));
    return v;
  }

  [[nodiscard]] TraceError error(const std::string& reason) const {
    return TraceError(fmt::format("{}:{}: {}", source_, line_no_, reason));
  }

 private:
  bool next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    auto end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    line = text_.substr(pos_, end - pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos_ = end + 1;
    ++line_no_;
    return true;
  }

  std::string_view text_;
  std::string source_;
  std::size_t pos_ = 0;
  int line_no_ = 0;
  int width_ = 0;
  std::vector<int> columns_;
  std::vector<std::string_view> fields_;
};

// GPUs -> (hosts, GPUs per host) on hosts of node_gpus.
void map_gpus(TraceJob& job, int gpus, int node_gpus, const CsvReader& csv) {
  if (gpus < 1) throw csv.error("a job without GPUs");
  if (gpus <= node_gpus) {
    job.nodes = 1;
    job.gpus_per_node = gpus;
    return;
  }
  job.nodes = (gpus + node_gpus - 1) / node_gpus;
  if (gpus % job.nodes != 0) {
    throw csv.error(
        fmt::format("{} GPUs do not spread evenly over {} hosts of {} GPUs", gpus, job.nodes, node_gpus));
  }
  job.gpus_per_node = gpus / job.nodes;
}

Trace read_elasticflow(CsvReader& csv, int node_gpus) {
  Trace t;
  csv.header({"job_id", "submission_time", "duration", "num_gpu"});
  while (csv.row()) {
    TraceJob j;
    j.id = std::string(csv.text(0));
    j.submit_s = csv.number<double>(1, "submission_time");
    j.duration_s = csv.number<double>(2, "duration");
    map_gpus(j, csv.number<int>(3, "num_gpu"), node_gpus, csv);
    t.jobs.push_back(std::move(j));
  }
  t.mapping = fmt::format("num_gpu <= {0}: one shared host; more: num_gpu / {0} whole hosts", node_gpus);
  return t;
}

Trace read_kalos(CsvReader& csv, int node_gpus) {
  Trace t;
  csv.header({"job_id", "arrival_time", "num_iteration", "iteration_networking_time", "gpu_workers",
              "gpu_per_worker", "iteration_computing_time"});
  while (csv.row()) {
    TraceJob j;
    j.id = std::string(csv.text(0));
    j.submit_s = csv.number<double>(1, "arrival_time");
    j.duration_s = csv.number<double>(2, "num_iteration") * 0.5;
    const double networking = csv.number<double>(3, "iteration_networking_time");
    const double computing = csv.number<double>(6, "iteration_computing_time");
    j.pretraining = networking >= 0.5;
    if (networking < 0 || computing < 0) throw csv.error("iteration times must not be negative");
    // The trace's own split of an iteration: its communication share.
    if (networking + computing > 0) j.comm_share = networking / (networking + computing);
    j.nodes = csv.number<int>(4, "gpu_workers");
    const double per = csv.number<double>(5, "gpu_per_worker");
    j.gpus_per_node = static_cast<int>(per);
    if (j.nodes < 1) throw csv.error("gpu_workers must be at least 1");
    if (j.gpus_per_node < 1 || j.gpus_per_node != per) {
      throw csv.error(fmt::format("gpu_per_worker {} is not a whole number of GPUs", per));
    }
    if (j.gpus_per_node > node_gpus) {
      throw csv.error(
          fmt::format("gpu_per_worker {} is more than a host's {} GPUs", j.gpus_per_node, node_gpus));
    }
    t.jobs.push_back(std::move(j));
  }
  t.mapping =
      "gpu_workers hosts of gpu_per_worker GPUs; duration num_iteration x 0.5 s; "
      "communication share iteration_networking_time / (networking + computing)";
  return t;
}

Trace read_openb(CsvReader& csv, int node_gpus) {
  Trace t;
  csv.header({"name", "num_gpu", "gpu_milli", "creation_time", "deletion_time", "scheduled_time"});
  while (csv.row()) {
    const int gpus = csv.number<int>(1, "num_gpu");
    if (gpus == 0) {
      ++t.skipped.no_gpu;
      continue;
    }
    if (csv.text(5).empty()) {
      ++t.skipped.never_ran;
      continue;
    }
    TraceJob j;
    j.id = std::string(csv.text(0));
    j.submit_s = csv.number<double>(3, "creation_time");
    const double end = csv.number<double>(4, "deletion_time");
    if (end < j.submit_s) throw csv.error("deletion_time is before creation_time");
    j.duration_s = end - j.submit_s;
    map_gpus(j, gpus, node_gpus, csv);
    t.jobs.push_back(std::move(j));
  }
  t.mapping = fmt::format(
      "pods with GPUs that were scheduled; fractional GPUs count as 1; num_gpu <= {} on one shared host",
      node_gpus);
  return t;
}

}  // namespace

std::optional<TraceFormat> parse_trace_format(std::string_view name) {
  if (name == "elasticflow") return TraceFormat::ElasticFlow;
  if (name == "kalos") return TraceFormat::Kalos;
  if (name == "openb") return TraceFormat::OpenB;
  return std::nullopt;
}

std::string to_string(TraceFormat format) {
  switch (format) {
    case TraceFormat::ElasticFlow: return "elasticflow";
    case TraceFormat::Kalos: return "kalos";
    case TraceFormat::OpenB: return "openb";
  }
  return "elasticflow";
}

Trace parse_trace(std::string_view text, const std::string& source, TraceFormat format, int node_gpus) {
  if (node_gpus < 1) throw TraceError("hosts need at least 1 GPU");
  CsvReader csv(text, source);
  Trace t;
  switch (format) {
    case TraceFormat::ElasticFlow: t = read_elasticflow(csv, node_gpus); break;
    case TraceFormat::Kalos: t = read_kalos(csv, node_gpus); break;
    case TraceFormat::OpenB: t = read_openb(csv, node_gpus); break;
  }
  std::stable_sort(t.jobs.begin(), t.jobs.end(),
                   [](const TraceJob& a, const TraceJob& b) { return a.submit_s < b.submit_s; });
  return t;
}

Trace read_trace(const std::string& path, TraceFormat format, int node_gpus) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceError(fmt::format("{}: cannot open", path));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return parse_trace(buffer.str(), path, format, node_gpus);
}

}  // namespace fabricfit
