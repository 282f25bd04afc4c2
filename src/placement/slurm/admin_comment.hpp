// SPDX-License-Identifier: GPL-2.0-or-later
// fabricfit's placement record inside a job's AdminComment, next to whatever an admin
// wrote there: one segment "fabricfit placement=..." that fabricfit replaces on a new
// allocation (a requeued job) and never touches the admin's text around it.
#pragma once

#include <string>
#include <string_view>

namespace fabricfit {

// Where a record starts inside an AdminComment.
inline constexpr std::string_view kRecordMarker = "fabricfit placement=";
// What separates the record from an admin's text.
inline constexpr std::string_view kRecordSeparator = "; ";

// `existing` with its fabricfit segment (if any) replaced by `record`, or `record`
// appended after "; " when there is none; `existing` empty gives `record`. A ';' inside
// `record` becomes ',' so the segment ends where the next admin text begins.
[[nodiscard]] std::string merge_admin_comment(std::string_view existing, std::string_view record);

// The fabricfit segment of an AdminComment ("" when it has none).
[[nodiscard]] std::string placement_record_of(std::string_view admin_comment);

// The value of `key` in a record ("fabricfit placement=fabricfit pattern=ring ..."); "" if absent.
[[nodiscard]] std::string record_value(std::string_view record, std::string_view key);

}  // namespace fabricfit
