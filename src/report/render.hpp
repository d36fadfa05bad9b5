// Renderers of a Report (docs/report.md): Markdown for people, CSV (one row per model x family)
// and versioned JSON for programs, SVG plots. Each returns the text; the caller writes the file.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/report.hpp"

namespace ptxb {

/// Tables a person reads: runs, leaderboard, families, success by turn, cost, audit cells.
std::string render_markdown(const Report& report);

/// RFC 4180 CSV: a header, then per entry one row per (arch, family) and its "all" row.
std::string render_csv(const Report& report);

/// Every number of the report, `schema` = kReportSchemaVersion; absent values are null.
nlohmann::json report_to_json(const Report& report);

/// report_to_json, indented by 2, with a final newline.
std::string render_json(const Report& report);

/// Strip plot of sample speedups over successful samples, one lane (series) per entry, log axis
/// from the speedup floor to the cap, with each entry's geomean marked.
std::string render_speedup_svg(const Report& report);

/// Success by turn: one curve (series) per entry, turns 1..T on x, 0..100% of samples on y.
std::string render_success_by_turn_svg(const Report& report);

}  // namespace ptxb
