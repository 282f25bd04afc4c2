// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/runtime/runtime_predictor.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace fabricfit {

bool RunTimePredictor::observe(std::uint32_t user, std::uint64_t job, double limit_s, double run_s,
                               double end_s) {
  if (!(limit_s > 0) || !std::isfinite(limit_s) || !(run_s >= 0) || !std::isfinite(end_s)) return false;
  return remember(user, Finished{.job = job, .end_s = end_s, .share = std::min(run_s / limit_s, 1.0)});
}

bool RunTimePredictor::remember(std::uint32_t user, const Finished& f) {
  History& h = history_[user];
  for (int k = 0; k < h.count; ++k) {
    if (h.last[k].job == f.job) return false;
  }
  // Newest first by end time, then job id: a strict order, so that a job left out once
  // (Slurm's end times tie at its 1 s resolution) is left out at every look.
  const auto newer = [](const Finished& a, const Finished& b) {
    return a.end_s != b.end_s ? a.end_s > b.end_s : a.job > b.job;
  };
  if (h.count == 0 || newer(f, h.last[0])) {
    h.last[1] = h.last[0];
    h.last[0] = f;
  } else if (h.count == 1 || newer(f, h.last[1])) {
    h.last[1] = f;  // between the two kept: the older one goes
  } else {
    return false;  // older than both kept
  }
  h.count = std::min(h.count + 1, 2);
  return true;
}

double RunTimePredictor::predict_run(std::uint32_t user, double limit_s) const {
  if (!(limit_s > 0) || !std::isfinite(limit_s)) return limit_s;
  const auto it = history_.find(user);
  if (it == history_.end() || it->second.count == 0) return limit_s;
  const History& h = it->second;
  double share = 0;
  for (int k = 0; k < h.count; ++k) share += h.last[k].share;
  // At least a second: a user whose last jobs exited at once still has a run time to weigh.
  return std::min(limit_s, std::max(limit_s * std::min(share / h.count, 1.0), kMinRunS));
}

double RunTimePredictor::predict_end(std::uint32_t user, double limit_s, double start_s, double now_s) const {
  const double end = start_s + predict_run(user, limit_s);
  return end > now_s ? end : start_s + limit_s;
}

std::string RunTimePredictor::to_text() const {
  std::vector<std::uint32_t> users;
  users.reserve(history_.size());
  for (const auto& [user, h] : history_) users.push_back(user);
  std::ranges::sort(users);
  std::string text(kTextHeader);
  text += '\n';
  for (const std::uint32_t user : users) {
    const History& h = history_.at(user);
    // Oldest first: read back in order, each is the newest so far.
    for (int k = h.count - 1; k >= 0; --k) {
      // {} prints the shortest text that reads back as the same double.
      text += fmt::format("{} {} {} {}\n", user, h.last[k].job, h.last[k].end_s, h.last[k].share);
    }
  }
  return text;
}

namespace {

template <typename T>
bool read_number(std::string_view word, T& out) {
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), out);
  return ec == std::errc() && end == word.data() + word.size();
}

}  // namespace

std::size_t RunTimePredictor::merge_text(std::string_view text, std::string_view source) {
  // to_text ends every line: a last line without its newline was cut short (a number
  // cut short still reads, as another number).
  if (!text.empty() && text.back() != '\n') {
    const auto lines = std::count(text.begin(), text.end(), '\n') + 1;
    throw HistoryError(
        fmt::format("{}:{}: the last line is cut short (no newline at its end)", source, lines));
  }
  std::vector<std::pair<std::uint32_t, Finished>> read;
  int line_no = 0;
  bool header = false;
  while (!text.empty()) {
    const auto eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    ++line_no;
    const auto fail = [&](std::string_view reason) {
      return HistoryError(fmt::format("{}:{}: {}", source, line_no, reason));
    };
    if (!header) {
      if (line != kTextHeader)
        throw fail(fmt::format("not a run-time history (expected \"{}\")", kTextHeader));
      header = true;
      continue;
    }
    if (line.empty() || line.front() == '#') continue;
    std::array<std::string_view, 4> words;
    std::size_t n = 0;
    while (!line.empty()) {
      const auto start = line.find_first_not_of(' ');
      if (start == std::string_view::npos) break;
      line.remove_prefix(start);
      const auto stop = line.find(' ');
      if (n == words.size()) throw fail("more than 4 words (user job end share)");
      words[n++] = line.substr(0, stop);
      line = stop == std::string_view::npos ? std::string_view() : line.substr(stop);
    }
    if (n != words.size()) throw fail(fmt::format("{} words, not 4 (user job end share)", n));
    std::uint32_t user = 0;
    Finished f;
    if (!read_number(words[0], user)) throw fail(fmt::format("user '{}' is not a uid", words[0]));
    if (!read_number(words[1], f.job)) throw fail(fmt::format("job '{}' is not a job id", words[1]));
    if (!read_number(words[2], f.end_s) || !std::isfinite(f.end_s))
      throw fail(fmt::format("end '{}' is not a time in seconds", words[2]));
    if (!read_number(words[3], f.share) || !(f.share >= 0 && f.share <= 1))
      throw fail(fmt::format("share '{}' is not a number from 0 to 1", words[3]));
    read.emplace_back(user, f);
  }
  if (!header) throw HistoryError(fmt::format("{}: empty, not a run-time history", source));
  // On a copy: running out of memory half way leaves what was learnt as it was.
  RunTimePredictor merged = *this;
  for (const auto& [user, f] : read) merged.remember(user, f);
  *this = std::move(merged);
  return read.size();
}

}  // namespace fabricfit
