// SPDX-License-Identifier: GPL-2.0-or-later
#include "placement/slurm/admin_comment.hpp"

#include <algorithm>

namespace fabricfit {
namespace {

struct Segment {
  std::size_t begin = std::string_view::npos;  // the marker
  std::size_t end = std::string_view::npos;    // one past the record (a separator or the end)
};

// The record's segment: the marker at the start or after a separator, up to the next ';'.
Segment find_record(std::string_view text) {
  Segment s;
  for (std::size_t at = text.find(kRecordMarker); at != std::string_view::npos;
       at = text.find(kRecordMarker, at + 1)) {
    const std::string_view before = text.substr(0, at);
    const auto trimmed = before.substr(0, before.find_last_not_of(' ') + 1);
    if (at == 0 || trimmed.empty() || trimmed.back() == ';') {
      s.begin = at;
      s.end = std::min(text.find(';', at), text.size());
      return s;
    }
  }
  return s;
}

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(' ');
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

}  // namespace

std::string merge_admin_comment(std::string_view existing, std::string_view record) {
  std::string rec(record);
  std::ranges::replace(rec, ';', ',');
  const Segment s = find_record(existing);
  if (s.begin == std::string_view::npos) {
    const auto admin = trim(existing);
    return admin.empty() ? rec : std::string(admin) + std::string(kRecordSeparator) + rec;
  }
  std::string out(existing.substr(0, s.begin));
  out += rec;
  out += existing.substr(s.end);
  return out;
}

std::string placement_record_of(std::string_view admin_comment) {
  const Segment s = find_record(admin_comment);
  if (s.begin == std::string_view::npos) return {};
  return std::string(trim(admin_comment.substr(s.begin, s.end - s.begin)));
}

std::string record_value(std::string_view record, std::string_view key) {
  for (std::size_t at = 0; at < record.size();) {
    const auto end = std::min(record.find(' ', at), record.size());
    const auto word = record.substr(at, end - at);
    if (word.size() > key.size() && word.starts_with(key) && word[key.size()] == '=')
      return std::string(word.substr(key.size() + 1));
    at = end + 1;
  }
  return {};
}

}  // namespace fabricfit
