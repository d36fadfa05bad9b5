// The attempt export: one JSON object per attempt, one per line (JSON Lines), the input of the
// SFT pipeline (python/ptxbench_sft). Fields are documented in docs/result-schema.md ("Attempt
// export"); the reader parses a line back into the records, for tools and round-trip tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "store/records.hpp"

namespace ptxb {

class ResultStore;

/// The version of the export line layout; bumped on any incompatible change.
inline constexpr int kAttemptExportSchema = 1;

/// One exported attempt with its run and its evaluation (nullopt: not judged).
struct AttemptExport {
  RunRecord run;
  AttemptRecord attempt;
  std::optional<EvaluationRecord> evaluation;
};

/// The export object of one attempt. Never throws; strings with invalid UTF-8 are written with
/// U+FFFD in their place when the object is dumped by attempt_export_line.
nlohmann::json attempt_export_json(const RunRecord& run, const AttemptRecord& attempt,
                                   const std::optional<EvaluationRecord>& evaluation);
/// The same as one line of text (compact JSON, no newline).
std::string attempt_export_line(const RunRecord& run, const AttemptRecord& attempt,
                                const std::optional<EvaluationRecord>& evaluation);

/// Parses an export object back into the records. Throws InputError naming the field when one
/// is missing or mistyped, or when `schema` is not kAttemptExportSchema.
AttemptExport parse_attempt_export(const nlohmann::json& object);
/// The same from one line of text; throws InputError for malformed JSON too.
AttemptExport parse_attempt_export_line(std::string_view line);

/// Reads JSON Lines from `in`, calling `visit` per attempt in file order; blank lines are
/// skipped. Returns the number of attempts. Errors are InputError naming the line number.
size_t read_attempt_export(std::istream& in, const std::function<void(AttemptExport&&)>& visit);

/// Writes the attempts of run `run_id` to `out`, one line each, ordered by (task, sample, turn),
/// fetching one attempt at a time. Returns the number written. Throws InputError for an
/// unknown run and ApiError when `out` fails.
size_t export_run(const ResultStore& store, int64_t run_id, std::ostream& out);
/// Every run in the store, oldest run first.
size_t export_all_runs(const ResultStore& store, std::ostream& out);

}  // namespace ptxb
