// SPDX-License-Identifier: GPL-2.0-or-later
// fabricfit-raw: what one of the readers makes of a subnet, as the canonical dump of
// raw_fabric_dump.hpp, so that shell tests can diff the readers against each other.
//   fabricfit-raw text FILE
//   fabricfit-raw cache FILE
//   fabricfit-raw live [--ca NAME] [--port N] [--timeout MS] [--retries N] [--max-smps N]
// --summary prints only the counts (and what a partial discovery missed), for timing runs.
// Exit status: 0 complete, 3 partial discovery (dump still printed), 1 reader error,
// 2 usage. A developer tool, not installed: `fabricfit discover` is the admin command.
#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include "topology/readers/ibnd_reader.hpp"
#include "topology/readers/ibnetdiscover_reader.hpp"
#include "topology/readers/raw_fabric_dump.hpp"

namespace {

constexpr int kPartial = 3;
bool summary_only = false;

int print(const fabricfit::RawFabric& fabric) {
  const std::string dump = fabricfit::dump_raw_fabric(fabric);
  if (summary_only) {
    for (std::size_t start = 0, end = 0; start < dump.size(); start = end + 1) {
      end = dump.find('\n', start);
      if (end == std::string::npos) end = dump.size();
      const std::string_view line(dump.data() + start, end - start);
      if (line.rfind("NODE ", 0) != 0 && line.rfind("  PORT ", 0) != 0) fmt::print("{}\n", line);
    }
  } else {
    fmt::print("{}", dump);
  }
  if (!fabric.partial) return 0;
  fmt::print(stderr, "fabricfit-raw: partial discovery: {} problem(s)\n", fabric.unreachable.size());
  return kPartial;
}

int run(int argc, char** argv) {
  CLI::App app{"fabricfit-raw: a RawFabric from one reader, as a canonical dump"};
  app.require_subcommand(1);
  app.add_flag("--summary", summary_only, "Print only the counts and any UNREACHABLE lines");

  std::string text_file, cache_file;
  auto* text = app.add_subcommand("text", "Parse ibnetdiscover topology output (or an ibsim net file)");
  text->add_option("file", text_file, "Topology file")->required();
  auto* cache = app.add_subcommand("cache", "Load an ibnd cache file (ibnetdiscover --cache)");
  cache->add_option("file", cache_file, "Cache file")->required();

  fabricfit::DiscoveryOptions options;
  auto* live = app.add_subcommand("live", "Discover the subnet through libibnetdisc");
  live->add_option("--ca", options.ca, "Local CA to start from (default: the first)");
  live->add_option("--port", options.ca_port, "Its port (default: the first active)");
  live->add_option("--timeout", options.timeout_ms, "Per-SMP timeout in ms (default: libibnetdisc's)");
  live->add_option("--retries", options.retries, "Per-SMP retries (default: libibnetdisc's)");
  live->add_option("--max-smps", options.max_smps, "SMPs in flight at once (default: libibnetdisc's, 2)");

  CLI11_PARSE(app, argc, argv);
  try {
    if (text->parsed()) return print(fabricfit::read_ibnetdiscover_file(text_file));
    if (cache->parsed()) return print(fabricfit::load_ibnd_cache(cache_file));
    return print(fabricfit::discover_fabric(options));
  } catch (const std::exception& e) {
    fmt::print(stderr, "fabricfit-raw: {}\n", e.what());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (...) {
    std::fputs("fabricfit-raw: unexpected error\n", stderr);
    return 1;
  }
}
