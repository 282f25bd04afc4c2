// SPDX-License-Identifier: GPL-2.0-or-later
#include "topology/readers/nvlink_report.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <system_error>

#include <sys/stat.h>

#include "common/atomic_file.hpp"
#include "common/iequals.hpp"

namespace fabricfit {
namespace {

constexpr std::size_t kFirstTextMax = 80;  // enough to tell "NVIDIA-SMI has failed ..." apart

bool blank(char c) {
  return c == ' ' || c == '\t';
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && (blank(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// "Cluster UUID", "ClusterUUID" and "clusteruuid" are one key: nvidia-smi's spelling of
// these has moved between driver releases.
std::string key_of(std::string_view printed) {
  std::string key;
  for (char c : printed) {
    if (!blank(c)) key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return key;
}

bool is_uuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

// Calls on_line(text, number) for each line, numbered from 1, without its end of line.
template <typename OnLine>
void for_each_line(std::string_view text, OnLine&& on_line) {
  int number = 0;
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    on_line(line, ++number);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

// One host's lines, in order. nvidia-smi -q nests sections by indentation (a title line
// without ':' opens one); only the keys directly in a GPU's "Fabric" section and in its
// "Health" subsection are read, so every other section's "State" is left alone.
class HostReader {
 public:
  HostReader(std::string host, std::string file) {
    out_.host = std::move(host);
    out_.file = std::move(file);
  }

  void line(std::string_view text, int line) {
    line_ = line;
    std::size_t indent = 0;
    while (indent < text.size() && blank(text[indent])) ++indent;
    if (out_.line == 0) out_.line = line;
    const std::string_view body = trimmed(text);
    if (body.empty()) return;
    if (out_.first_text.empty()) {
      out_.first_text = std::string(body.substr(0, kFirstTextMax));
    }
    if (indent == 0 && body.starts_with("==") && body.find("NVSMI LOG") != std::string_view::npos) {
      if (banner_line_ != 0) {
        fail(fmt::format("host {}'s report starts twice (first on line {}): two runs in one input?",
                         out_.host, banner_line_));
      }
      banner_line_ = line;
      return;
    }
    if (indent == 0 && body.starts_with("GPU ") && body.find(':') != std::string_view::npos) {
      gpu(trimmed(body.substr(4)));
      return;
    }
    while (!sections_.empty() && sections_.back().indent >= indent) sections_.pop_back();
    const auto colon = body.find(':');
    if (colon == std::string_view::npos) {
      section(body, indent);
      return;
    }
    if (out_.gpus.empty() || sections_.empty() || !sections_.front().fabric) return;
    if (sections_.size() == 1) {
      fabric_key(trimmed(body.substr(0, colon)), trimmed(body.substr(colon + 1)));
    } else if (sections_.size() == 2 && sections_.back().health) {
      health_key(trimmed(body.substr(0, colon)), trimmed(body.substr(colon + 1)));
    }
  }

  NvlinkHostReport finish() { return std::move(out_); }

 private:
  struct Section {
    std::size_t indent;
    bool fabric;  // a GPU's own Fabric section
    bool health;  // that section's Health subsection
  };

  [[noreturn]] void fail(const std::string& why) const {
    throw NvlinkReportError(fmt::format("{}:{}: {}", out_.file, line_, why));
  }

  void gpu(std::string_view bus_id) {
    for (const NvlinkGpuFabric& g : out_.gpus) {
      if (g.gpu == bus_id)
        fail(fmt::format("host {}: GPU {} twice (first on line {})", out_.host, bus_id, g.line));
    }
    NvlinkGpuFabric g;
    g.gpu = bus_id;
    g.line = line_;
    out_.gpus.push_back(std::move(g));
    sections_.clear();
    key_line_.clear();
  }

  void section(std::string_view title, std::size_t indent) {
    const bool fabric = !out_.gpus.empty() && sections_.empty() && iequals(title, "Fabric");
    const bool health = sections_.size() == 1 && sections_.front().fabric && iequals(title, "Health");
    sections_.push_back({indent, fabric, health});
    if (health) {
      NvlinkGpuFabric& g = out_.gpus.back();
      if (g.health.line != 0) {
        fail(fmt::format("GPU {}: a second Health section in its Fabric section (first on line {})", g.gpu,
                         g.health.line));
      }
      g.health.line = line_;
    }
    if (!fabric) return;
    NvlinkGpuFabric& g = out_.gpus.back();
    if (g.fabric_line != 0) {
      fail(fmt::format("GPU {}: a second Fabric section (first on line {})", g.gpu, g.fabric_line));
    }
    g.fabric_line = line_;
  }

  void fabric_key(std::string_view printed, std::string_view value) {
    const std::string key = key_of(printed);
    if (key != "state" && key != "status" && key != "cliqueid" && key != "clusteruuid") return;
    NvlinkGpuFabric& g = out_.gpus.back();
    if (const auto [it, fresh] = key_line_.emplace(key, line_); !fresh) {
      fail(fmt::format("GPU {}: {} twice in its Fabric section (first on line {})", g.gpu, printed,
                       it->second));
    }
    if (iequals(value, "N/A")) return;
    if (key == "state") {
      g.state = value;
    } else if (key == "status") {
      g.status = value;
    } else if (key == "cliqueid") {
      std::uint32_t id = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), id);
      if (value.empty() || ec != std::errc() || end != value.data() + value.size()) {
        fail(fmt::format("GPU {}: {} '{}' is not a number", g.gpu, printed, value));
      }
      g.clique_id = id;
    } else {
      if (!is_uuid(value)) fail(fmt::format("GPU {}: {} '{}' is not a UUID", g.gpu, printed, value));
      g.cluster_uuid.clear();
      for (char c : value) g.cluster_uuid += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }

  void health_key(std::string_view printed, std::string_view value) {
    const std::string key = key_of(printed);
    NvlinkGpuFabricHealth& h = out_.gpus.back().health;
    std::string* field = key == "summary"                   ? &h.summary
                         : key == "bandwidth"               ? &h.bandwidth
                         : key == "routerecoveryinprogress" ? &h.route_recovery
                         : key == "routeunhealthy"          ? &h.route_unhealthy
                         : key == "accesstimeoutrecovery"   ? &h.access_timeout_recovery
                         : key == "incorrectconfiguration"  ? &h.incorrect_configuration
                                                            : nullptr;
    if (field == nullptr) return;  // a row a later driver added: not judged
    if (const auto [it, fresh] = key_line_.emplace("health." + key, line_); !fresh) {
      fail(fmt::format("GPU {}: {} twice in its Fabric Health section (first on line {})",
                       out_.gpus.back().gpu, printed, it->second));
    }
    if (!iequals(value, "N/A")) *field = value;
  }

  NvlinkHostReport out_;
  int line_ = 0;
  int banner_line_ = 0;
  std::vector<Section> sections_;        // the open sections of the current GPU
  std::map<std::string, int> key_line_;  // Fabric key of the current GPU -> its line
};

// A file's modification time in Unix seconds; 0 when it cannot be read.
std::int64_t mtime_of(const std::filesystem::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 ? static_cast<std::int64_t>(st.st_mtime) : 0;
}

bool host_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

}  // namespace

bool reports_fabric(const NvlinkGpuFabric& gpu) {
  return !gpu.state.empty() && !iequals(gpu.state, "Not Supported");
}

NvlinkReport parse_nvlink_report(std::string_view text, const std::string& origin) {
  // pdsh interleaves the hosts' lines: one reader per host, in order of first appearance.
  std::vector<HostReader> readers;
  std::map<std::string, std::size_t, std::less<>> reader_of;
  for_each_line(text, [&](std::string_view line, int number) {
    if (trimmed(line).empty()) return;
    const auto fail = [&](const std::string& why) {
      throw NvlinkReportError(fmt::format("{}:{}: {}", origin, number, why));
    };
    if (line.starts_with("pdsh@") || line.starts_with("clush: ")) {
      fail("pdsh's or clush's own message, not a node's output (send their standard error elsewhere)");
    }
    const auto colon = line.find(':');
    const std::string_view host = line.substr(0, colon);
    std::string_view rest = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
    if (colon == std::string_view::npos || host.empty() || !std::ranges::all_of(host, host_char) ||
        !(rest.empty() || rest.front() == ' ')) {
      fail(
          "not 'HOST: TEXT' as pdsh and clush print their nodes' output (one node's nvidia-smi -q goes in "
          "a directory, in a file named after the node)");
    }
    if (!rest.empty()) rest.remove_prefix(1);
    auto it = reader_of.find(host);
    if (it == reader_of.end()) {
      it = reader_of.emplace(std::string(host), readers.size()).first;
      readers.emplace_back(std::string(host), origin);
    }
    readers[it->second].line(rest, number);
  });
  if (readers.empty()) throw NvlinkReportError(fmt::format("{}: no node's output in it", origin));
  NvlinkReport out{.origin = origin, .hosts = {}};
  for (HostReader& r : readers) out.hosts.push_back(r.finish());
  return out;
}

NvlinkHostReport parse_nvlink_host_report(std::string_view text, const std::string& host,
                                          const std::string& origin) {
  HostReader reader(host, origin);
  for_each_line(text, [&](std::string_view line, int number) { reader.line(line, number); });
  NvlinkHostReport out = reader.finish();
  if (out.line == 0) out.line = 1;  // an empty file: its host is still named by its first line
  return out;
}

NvlinkReport load_nvlink_report(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) {
    std::string text;
    if (!read_whole_file(path.c_str(), text)) {
      throw NvlinkReportError(fmt::format("{}: cannot read: {}", path.string(), std::strerror(errno)));
    }
    NvlinkReport out = parse_nvlink_report(text, path.string());
    const std::int64_t written = mtime_of(path);
    for (NvlinkHostReport& h : out.hosts) h.mtime_unix = written;
    return out;
  }
  std::vector<std::filesystem::path> files;
  for (std::filesystem::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with('.') && it->is_regular_file(ec)) files.push_back(it->path());
  }
  if (ec) throw NvlinkReportError(fmt::format("{}: cannot list: {}", path.string(), ec.message()));
  if (files.empty()) {
    throw NvlinkReportError(
        fmt::format("{}: no report in it (one file per node, named after it)", path.string()));
  }
  std::sort(files.begin(), files.end());
  NvlinkReport out{.origin = path.string(), .hosts = {}};
  std::map<std::string, std::string> file_of;  // host -> its file's name
  for (const auto& f : files) {
    std::string host = f.filename().string();
    if (host.ends_with(".txt")) host.erase(host.size() - 4);
    if (const auto [it, fresh] = file_of.emplace(host, f.filename().string()); !fresh) {
      throw NvlinkReportError(fmt::format("{}: node {} has two reports, {} and {}", path.string(), host,
                                          it->second, f.filename().string()));
    }
    std::string text;
    if (!read_whole_file(f.c_str(), text)) {
      throw NvlinkReportError(fmt::format("{}: cannot read: {}", f.string(), std::strerror(errno)));
    }
    out.hosts.push_back(parse_nvlink_host_report(text, host, f.string()));
    out.hosts.back().mtime_unix = mtime_of(f);
  }
  return out;
}

}  // namespace fabricfit
