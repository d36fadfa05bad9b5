#include "store/sqlite.hpp"

#include <sstream>
#include <utility>

namespace ptxb::sqlite {

std::string_view result_code_name(int rc) {
  switch (rc & 0xff) {
    case SQLITE_OK:
      return "SQLITE_OK";
    case SQLITE_ERROR:
      return "SQLITE_ERROR";
    case SQLITE_INTERNAL:
      return "SQLITE_INTERNAL";
    case SQLITE_PERM:
      return "SQLITE_PERM";
    case SQLITE_ABORT:
      return "SQLITE_ABORT";
    case SQLITE_BUSY:
      return "SQLITE_BUSY";
    case SQLITE_LOCKED:
      return "SQLITE_LOCKED";
    case SQLITE_NOMEM:
      return "SQLITE_NOMEM";
    case SQLITE_READONLY:
      return "SQLITE_READONLY";
    case SQLITE_INTERRUPT:
      return "SQLITE_INTERRUPT";
    case SQLITE_IOERR:
      return "SQLITE_IOERR";
    case SQLITE_CORRUPT:
      return "SQLITE_CORRUPT";
    case SQLITE_NOTFOUND:
      return "SQLITE_NOTFOUND";
    case SQLITE_FULL:
      return "SQLITE_FULL";
    case SQLITE_CANTOPEN:
      return "SQLITE_CANTOPEN";
    case SQLITE_PROTOCOL:
      return "SQLITE_PROTOCOL";
    case SQLITE_EMPTY:
      return "SQLITE_EMPTY";
    case SQLITE_SCHEMA:
      return "SQLITE_SCHEMA";
    case SQLITE_TOOBIG:
      return "SQLITE_TOOBIG";
    case SQLITE_CONSTRAINT:
      return "SQLITE_CONSTRAINT";
    case SQLITE_MISMATCH:
      return "SQLITE_MISMATCH";
    case SQLITE_MISUSE:
      return "SQLITE_MISUSE";
    case SQLITE_NOLFS:
      return "SQLITE_NOLFS";
    case SQLITE_AUTH:
      return "SQLITE_AUTH";
    case SQLITE_FORMAT:
      return "SQLITE_FORMAT";
    case SQLITE_RANGE:
      return "SQLITE_RANGE";
    case SQLITE_NOTADB:
      return "SQLITE_NOTADB";
    case SQLITE_NOTICE:
      return "SQLITE_NOTICE";
    case SQLITE_WARNING:
      return "SQLITE_WARNING";
    case SQLITE_ROW:
      return "SQLITE_ROW";
    case SQLITE_DONE:
      return "SQLITE_DONE";
    default:
      return "SQLITE_UNKNOWN";
  }
}

int check(sqlite3* db, int rc, const char* call, const char* context, const char* file, int line) {
  if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE) return rc;
  // The one throw site of the family; same layout as throw_api (core/error.cpp).
  // NOTE: the connection's message is only meaningful when it describes this `rc`.
  const bool own_message = db != nullptr && sqlite3_extended_errcode(db) == rc;
  std::ostringstream os;
  os << "SQLite call `" << call << "` failed with " << (rc & 0xff) << " (" << result_code_name(rc)
     << "): " << (own_message ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  if (context != nullptr) os << " [" << context << "]";
  os << " at " << file << ":" << line;
  throw Error(os.str(), rc & 0xff, rc);
}

// ---- Database ----

Database::Database(const std::filesystem::path& path) : path_(path.string()) {
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  const int rc = sqlite3_open_v2(path_.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    // sqlite3_open_v2 allocates a handle even on failure: free it; the code's text says enough.
    sqlite3_close_v2(db_);
    db_ = nullptr;
    check(nullptr, rc, "sqlite3_open_v2", path_.c_str(), __FILE__, __LINE__);
  }
  PTXB_CHECK_SQLITE_ON(db_, path_.c_str(), sqlite3_extended_result_codes(db_, 1));
}

Database::~Database() {
  // Every Statement is finalized by its own destructor before this runs (RAII order).
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

void Database::exec(const std::string& sql) {
  PTXB_CHECK_SQLITE_ON(db_, sql.c_str(), sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr));
}

Statement Database::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  const std::string text(sql);
  PTXB_CHECK_SQLITE_ON(
      db_, text.c_str(),
      sqlite3_prepare_v2(db_, text.data(), static_cast<int>(text.size()), &stmt, &tail));
  Statement statement(db_, stmt);
  PTXB_ASSERT(stmt != nullptr, "prepare of an empty SQL text: " + text);
  PTXB_ASSERT(std::string_view(tail).find_first_not_of(" \t\r\n;") == std::string_view::npos,
              "prepare takes exactly one statement: " + text);
  return statement;
}

std::optional<std::string> Database::query_text(std::string_view sql) {
  Statement statement = prepare(sql);
  if (!statement.step()) return std::nullopt;
  return statement.column_text(0);
}

void Database::set_busy_timeout(std::chrono::milliseconds timeout) {
  PTXB_CHECK_SQLITE_ON(db_, path_.c_str(),
                       sqlite3_busy_timeout(db_, static_cast<int>(timeout.count())));
}

int64_t Database::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
int64_t Database::changes() const { return sqlite3_changes64(db_); }
bool Database::autocommit() const { return sqlite3_get_autocommit(db_) != 0; }

// ---- Statement ----

Statement::~Statement() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
}

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)) {}

Statement& Statement::bind_int64(int index, int64_t value) {
  PTXB_CHECK_SQLITE_ON(db_, sql(), sqlite3_bind_int64(stmt_, index, value));
  return *this;
}

Statement& Statement::bind_double(int index, double value) {
  PTXB_CHECK_SQLITE_ON(db_, sql(), sqlite3_bind_double(stmt_, index, value));
  return *this;
}

Statement& Statement::bind_text(int index, std::string_view value) {
  // NOTE: a null data pointer would bind NULL; an empty string must stay an empty TEXT.
  const char* data = value.data() != nullptr ? value.data() : "";
  PTXB_CHECK_SQLITE_ON(
      db_, sql(),
      sqlite3_bind_text64(stmt_, index, data, value.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
  return *this;
}

Statement& Statement::bind_null(int index) {
  PTXB_CHECK_SQLITE_ON(db_, sql(), sqlite3_bind_null(stmt_, index));
  return *this;
}

Statement& Statement::bind_optional_text(int index, const std::optional<std::string>& value) {
  return value ? bind_text(index, *value) : bind_null(index);
}

bool Statement::step() {
  return PTXB_CHECK_SQLITE_ON(db_, sql(), sqlite3_step(stmt_)) == SQLITE_ROW;
}

void Statement::run() {
  const bool row = step();
  PTXB_ASSERT(!row, std::string("statement returned a row where none was expected: ") + sql());
}

void Statement::reset() { PTXB_CHECK_SQLITE_ON(db_, sql(), sqlite3_reset(stmt_)); }

int64_t Statement::column_int64(int index) const { return sqlite3_column_int64(stmt_, index); }
double Statement::column_double(int index) const { return sqlite3_column_double(stmt_, index); }

std::string Statement::column_text(int index) const {
  // NOTE: column_blob before column_bytes, as SQLite documents, so no text conversion runs.
  const void* data = sqlite3_column_blob(stmt_, index);
  const int size = sqlite3_column_bytes(stmt_, index);
  if (data == nullptr || size <= 0) return {};
  return std::string(static_cast<const char*>(data), static_cast<size_t>(size));
}

bool Statement::column_is_null(int index) const {
  return sqlite3_column_type(stmt_, index) == SQLITE_NULL;
}

std::optional<std::string> Statement::column_optional_text(int index) const {
  if (column_is_null(index)) return std::nullopt;
  return column_text(index);
}

// ---- Transaction ----

Transaction::Transaction(Database& db, Kind kind) : db_(db) {
  db_.exec(kind == Kind::kImmediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
}

Transaction::~Transaction() {
  // NOTE: some errors (SQLITE_FULL, SQLITE_IOERR, ...) roll back by themselves; only roll back
  // what is still open, and never throw from a destructor.
  if (!done_ && !db_.autocommit())
    sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace ptxb::sqlite
