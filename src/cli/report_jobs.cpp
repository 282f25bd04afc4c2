// SPDX-License-Identifier: GPL-2.0-or-later
#include "cli/report_jobs.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <set>
#include <tuple>

#include "common/xml_escape.hpp"
#include "placement/placement_score.hpp"
#include "placement/slurm/admin_comment.hpp"

namespace fabricfit::cli {

std::string placement_of(const SlurmJob& job) {
  const std::string who = record_value(job.placement_record, "placement");
  if (who == "fabricfit") return "fabricfit";
  if (who.empty()) return "no placement record";
  // The plugin writes a reason's spaces as '_' to keep the record one word per key.
  std::string reason = record_value(job.placement_record, "reason");
  std::ranges::replace(reason, '_', ' ');
  const std::string selector = who == "slurm" ? "Slurm" : who;
  return reason.empty() ? selector : fmt::format("{} ({})", selector, reason);
}

ShownPattern shown_pattern(const SlurmJob& job) {
  if (const auto p = recorded_pattern(job)) return {*p, true};
  return {CommPattern{PatternKind::Ring}, false};
}

std::string pattern_words(const CommPattern& p) {
  switch (p.kind) {
    case PatternKind::Ring: return "a ring";
    case PatternKind::Tree: return "a tree";
    case PatternKind::AllToAll: return "an all-to-all";
    case PatternKind::None: return "pattern none (no inter-node traffic)";
    case PatternKind::Parallel: return "tensor/pipeline/data parallel " + p.to_string();
  }
  return p.to_string();
}

namespace {

struct Row {
  std::string html;
  std::string pattern;  // canonical spelling, to tell whether all rows share one
  CommPattern kind;
};

Row job_row(const LocalityIndex& index, const SlurmJob& j) {
  const ShownPattern shown = shown_pattern(j);
  std::string missing;
  const auto alloc = allocation_of(index, j, &missing);
  std::string groups = "?", spine;
  if (!alloc) {
    spine = fmt::format("not scored: {} is not in the fabric", xml_escape(missing));
  } else {
    std::vector<int> gpus = alloc->gpus;
    // Without its GPU counts (accounting without gres/gpu) a node still sends something.
    for (int& g : gpus) g = std::max(g, 1);
    const PlacementScore s = score_hosts(index, alloc->hosts, gpus, shown.pattern);
    groups = std::to_string(s.leaf_groups);
    spine = s.inter_node_bytes > 0 ? fmt::format("{:.0f}%", 100 * s.spine_bytes / s.inter_node_bytes)
                                   : std::string("none between nodes");
  }
  const std::string pattern = shown.recorded ? shown.pattern.to_string() : "ring (assumed: none recorded)";
  const std::string placement = placement_of(j);
  // On a fabric with NVLink domains, the job's: as its placement record names them, else
  // (Slurm placed it, or no record) the domains its hosts lie in now.
  std::string domains;
  if (index.domain_count() > 0) {
    std::string names = record_value(j.placement_record, "domains");
    if (!names.empty()) {
      std::string spaced;
      for (const char c : names) spaced += c == ',' ? std::string(", ") : std::string(1, c);
      names = spaced;
    } else if (alloc) {
      names = fmt::format("{}", fmt::join(domain_names_of(index, alloc->hosts), ", "));
    } else {
      names = "?";
    }
    domains = fmt::format("<td class=\"domains\">{}</td>", xml_escape(names));
  }
  return {
      fmt::format("<tr class=\"job\" data-job=\"{}\"><td class=\"id\">{}</td><td>{}</td>"
                  "<td class=\"placement\">{}</td><td class=\"pattern\">{}</td><td class=\"nodes\">{}</td>"
                  "<td>{}</td>{}<td>{}</td></tr>\n",
                  j.id, xml_escape(job_label(j)), xml_escape(j.state), xml_escape(placement),
                  xml_escape(pattern), xml_escape(j.nodes), groups, domains, spine),
      shown.pattern.to_string(), shown.pattern};
}

}  // namespace

std::string jobs_table(const LocalityIndex& index, const std::vector<SlurmJob>& jobs, std::size_t max_rows) {
  std::string rows;
  std::set<std::string> patterns;
  CommPattern one;
  // Newest start first; within a start, by Slurm's name (an array's tasks in task order).
  std::vector<const SlurmJob*> placed;
  for (const SlurmJob& j : jobs)
    if (!j.nodes.empty() && j.state != "PENDING") placed.push_back(&j);
  const auto key = [](const SlurmJob* j) {
    return std::make_tuple(-j->start_time, j->array_job_id != 0 ? j->array_job_id : j->id,
                           j->array_task_id.value_or(0));
  };
  std::ranges::stable_sort(placed, [&](const SlurmJob* a, const SlurmJob* b) { return key(a) < key(b); });
  if (placed.size() > max_rows) placed.resize(max_rows);
  for (const SlurmJob* j : placed) {
    const Row r = job_row(index, *j);
    rows += r.html;
    patterns.insert(r.pattern);
    one = r.kind;
  }
  // The share depends on the pattern: a caption saying "ring" over an all-to-all misleads.
  const std::string of = patterns.size() == 1 ? pattern_words(one) : std::string("each job's pattern");
  return fmt::format(
      "<table id=\"jobs\"><caption>Last jobs' placements: who chose the nodes, and the share of the "
      "inter-node traffic that crosses the spines for {}</caption>\n"
      "<tr><th>job</th><th>state</th><th>placement</th><th>pattern</th><th>nodes</th><th>leaf "
      "groups</th>{}<th>cross-spine</th></tr>\n{}</table>\n",
      of, index.domain_count() > 0 ? "<th>NVLink domains</th>" : "",
      rows.empty()
          ? fmt::format("<tr><td colspan=\"{}\">no jobs</td></tr>\n", index.domain_count() > 0 ? 8 : 7)
          : rows);
}

}  // namespace fabricfit::cli
