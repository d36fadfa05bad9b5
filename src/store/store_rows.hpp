// Internal to src/store: the column lists of the store's tables and the mapping between a row
// and a record (store/records.hpp). One place names each column, so the INSERTs and the SELECTs
// cannot drift apart.
#pragma once

#include <string>
#include <string_view>

#include "store/records.hpp"
#include "store/sqlite.hpp"

namespace ptxb::store_rows {

/// The schema of kStoreSchemaVersion (CREATE ... IF NOT EXISTS, so it can run on every open).
extern const char* const kSchemaSql;

/// Columns of SELECTs, in the order the read_* functions below expect (prefix "r." etc. none).
extern const char* const kRunColumns;         // runs
extern const char* const kAttemptColumns;     // attempts
extern const char* const kEvaluationColumns;  // evaluations

/// JSON as stored in TEXT columns: compact, invalid UTF-8 replaced (never throws on it).
std::string dump_json(const nlohmann::json& value);
/// Parses a stored JSON column; a malformed one is a broken invariant of the store.
nlohmann::json parse_json(const std::string& text, std::string_view column);

/// Binds the fields of a record, without its id, to ?1.. in column order of the INSERTs in
/// store.cpp.
void bind_run(sqlite::Statement& statement, const RunRecord& run);
void bind_attempt(sqlite::Statement& statement, const AttemptRecord& attempt);
void bind_evaluation(sqlite::Statement& statement, const EvaluationRecord& evaluation);

/// Reads the current row of a SELECT of k*Columns.
RunRecord read_run(const sqlite::Statement& row);
AttemptRecord read_attempt(const sqlite::Statement& row);
EvaluationRecord read_evaluation(const sqlite::Statement& row);

/// The current UTC time as ISO 8601 ("2026-11-29T12:34:56Z").
std::string utc_now_iso8601();

}  // namespace ptxb::store_rows
