// A thin RAII layer over the SQLite C API: a connection, prepared statements, transactions.
// Every failing SQLite call goes through PTXB_CHECK_SQLITE (STYLE.md, convention 6), whose one
// throw site builds "SQLite call `sqlite3_step(stmt_)` failed with 19 (SQLITE_CONSTRAINT):
// UNIQUE constraint failed: attempts.run_id, ... [INSERT INTO attempts ...] at file:line".
// NOTE: none of these types is thread-safe; the owner (ResultStore) serialises access.
#pragma once

#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace ptxb::sqlite {

/// A failing SQLite call. The message follows throw_api's layout; the codes let a caller tell,
/// e.g., a constraint violation (code() == SQLITE_CONSTRAINT) from a full disk.
class Error : public ApiError {
 public:
  Error(const std::string& message, int code, int extended_code)
      : ApiError(message), code_(code), extended_code_(extended_code) {}
  int code() const { return code_; }                    ///< primary result code (SQLITE_BUSY, ...)
  int extended_code() const { return extended_code_; }  ///< e.g. SQLITE_CONSTRAINT_UNIQUE

 private:
  int code_;
  int extended_code_;
};

/// "SQLITE_CONSTRAINT" for 19 (the primary code of `rc`); "SQLITE_UNKNOWN" if unlisted.
std::string_view result_code_name(int rc);

/// The check behind PTXB_CHECK_SQLITE: returns `rc` when it is SQLITE_OK, SQLITE_ROW or
/// SQLITE_DONE, else throws sqlite::Error with the connection's message (`db` may be null) and
/// `context` (the SQL text or the file name; may be null) appended in brackets.
int check(sqlite3* db, int rc, const char* call, const char* context, const char* file, int line);

}  // namespace ptxb::sqlite

/// Evaluates a SQLite call and yields its result code (OK, ROW or DONE); throws sqlite::Error.
#define PTXB_CHECK_SQLITE(db, call) \
  ::ptxb::sqlite::check((db), (call), #call, nullptr, __FILE__, __LINE__)
/// The same, naming what the call worked on (SQL text, file) in the message.
#define PTXB_CHECK_SQLITE_ON(db, context, call) \
  ::ptxb::sqlite::check((db), (call), #call, (context), __FILE__, __LINE__)

namespace ptxb::sqlite {

class Statement;

/// One connection to a database file (created if missing), closed on destruction.
class Database {
 public:
  /// Opens `path` read-write, creating the file; ":memory:" opens a private in-memory database.
  /// Extended result codes are on. Throws sqlite::Error (SQLITE_CANTOPEN, SQLITE_NOTADB, ...).
  explicit Database(const std::filesystem::path& path);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }

  /// Runs one or more statements that return no rows the caller needs (DDL, PRAGMA x = y).
  void exec(const std::string& sql);
  /// Compiles one statement; `sql` must hold exactly one.
  Statement prepare(std::string_view sql);
  /// The first column of the first row of `sql` as text (for PRAGMAs); nullopt when no row.
  std::optional<std::string> query_text(std::string_view sql);

  /// How long a call waits for another connection's lock before failing with SQLITE_BUSY.
  void set_busy_timeout(std::chrono::milliseconds timeout);
  int64_t last_insert_rowid() const;
  /// Rows changed by the last INSERT/UPDATE/DELETE.
  int64_t changes() const;
  /// True outside an explicit transaction.
  bool autocommit() const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

/// A prepared statement; parameters are 1-based, columns 0-based (as in the C API).
class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind_int64(int index, int64_t value);
  Statement& bind_double(int index, double value);
  /// Copies the bytes (embedded NULs and non-UTF-8 bytes are kept as they are).
  Statement& bind_text(int index, std::string_view value);
  Statement& bind_null(int index);
  /// Text when set, NULL when not.
  Statement& bind_optional_text(int index, const std::optional<std::string>& value);

  /// Advances: true when a row is available, false when the statement is done.
  bool step();
  /// Steps a statement that must finish without a row (INSERT, UPDATE, DDL).
  void run();
  /// Rewinds to run again; bindings are kept.
  void reset();

  int64_t column_int64(int index) const;
  double column_double(int index) const;
  /// The bytes stored ("" for NULL).
  std::string column_text(int index) const;
  bool column_is_null(int index) const;
  std::optional<std::string> column_optional_text(int index) const;

 private:
  const char* sql() const { return sqlite3_sql(stmt_); }
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

/// An explicit transaction: begun by the constructor, rolled back by the destructor unless
/// commit() succeeded, so an exception between the two leaves nothing of the transaction.
class Transaction {
 public:
  enum class Kind {
    kDeferred,   ///< takes locks when first needed (reads)
    kImmediate,  ///< takes the write lock now, waiting up to the busy timeout (writes)
  };
  Transaction(Database& db, Kind kind);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  /// Makes the changes durable; throws sqlite::Error (the destructor then rolls back).
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace ptxb::sqlite
