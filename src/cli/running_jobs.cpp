// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli/running_jobs.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace fabricfit::cli {
namespace {

RunningJob job_of(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object())
    throw std::invalid_argument(fmt::format("{}: a running job must be a JSON object", where));
  RunningJob job;
  try {
    if (j.contains("job")) job.id = j["job"].is_string() ? j["job"].get<std::string>() : j["job"].dump();
    job.nodes = j.at("nodes").get<std::string>();
    job.gpus_per_node = j.value("gpus_per_node", 8);
    job.pattern = j.value("pattern", std::string("ring"));
    job.comm_share = j.value("comm_share", 0.0);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(fmt::format("{}: {}", where, e.what()));
  }
  if (job.gpus_per_node < 1)
    throw std::invalid_argument(fmt::format("{}: gpus_per_node must be at least 1", where));
  if (!(job.comm_share >= 0 && job.comm_share <= 1)) {
    throw std::invalid_argument(fmt::format("{}: comm_share must be 0 to 1", where));
  }
  return job;
}

nlohmann::json parse(const std::string& text, const std::string& where) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument(fmt::format("{}: not JSON: {}", where, e.what()));
  }
}

}  // namespace

std::vector<RunningJob> read_running_jobs(const std::string& path) {
  namespace fs = std::filesystem;
  std::vector<RunningJob> jobs;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(path, ec)) {
      if (entry.path().extension() == ".json") files.push_back(entry.path());
    }
    if (ec) throw std::invalid_argument(fmt::format("{}: cannot list: {}", path, ec.message()));
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::ifstream in(f);
      if (!in) continue;  // the job ended (its file removed) since the listing
      std::stringstream text;
      text << in.rdbuf();
      jobs.push_back(job_of(parse(text.str(), f.string()), f.string()));
    }
    return jobs;
  }
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(fmt::format("{}: cannot open", path));
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json j = parse(text.str(), path);
  if (!j.is_array())
    throw std::invalid_argument(fmt::format("{}: expected a JSON array of running jobs", path));
  for (std::size_t i = 0; i < j.size(); ++i)
    jobs.push_back(job_of(j[i], fmt::format("{}: job {}", path, i + 1)));
  return jobs;
}

}  // namespace fabricfit::cli
