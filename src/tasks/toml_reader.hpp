// Strict reading of TOML tables for task specs and the instruction catalog: typed field access,
// errors phrased "<file>: <field path>: <problem>", and rejection of unknown keys (typos).
// Internal to src/tasks; only the loaders include it (toml++ is heavy to compile).
// NOTE: Debian's libtomlplusplus-dev 3.3 ships <toml++/toml.h> only (no toml.hpp).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

namespace ptxb::tasks_detail {

/// Parses a whole TOML file. Throws InputError naming the file when it cannot be read, and the
/// file, line and column when the text is not TOML.
toml::table parse_toml_file(const std::filesystem::path& path);

/// One TOML table seen through a field path ("" for the document root, "shapes[2]" for the
/// third [[shapes]] entry). Callers first call only_keys() with the table's schema, then read.
class TableReader {
 public:
  TableReader(const toml::table& table, std::string file, std::string path);

  /// "<path>.<key>" (or "<key>" at the root): the field path used in error messages.
  std::string field(std::string_view key) const;
  /// Throws InputError("<file>: <field(key)>: <problem>"); an empty key names the table itself.
  [[noreturn]] void fail(std::string_view key, std::string_view problem) const;

  bool has(std::string_view key) const;
  /// Every key of the table, in the table's (sorted) order.
  std::vector<std::string> keys() const;

  std::string string(std::string_view key) const;
  std::optional<std::string> optional_string(std::string_view key) const;
  int64_t integer(std::string_view key) const;
  std::optional<int64_t> optional_integer(std::string_view key) const;
  /// A finite number; TOML integers are accepted and converted.
  double number(std::string_view key) const;
  std::optional<double> optional_number(std::string_view key) const;
  std::optional<bool> optional_boolean(std::string_view key) const;
  std::vector<std::string> string_list(std::string_view key) const;
  std::optional<std::vector<std::string>> optional_string_list(std::string_view key) const;
  std::vector<int64_t> integer_list(std::string_view key) const;
  /// An array of arrays of integers, each of `width` elements: [[128, 2048], [4096, 4096]].
  std::vector<std::vector<int64_t>> integer_rows(std::string_view key, size_t width) const;
  TableReader table(std::string_view key) const;
  /// An array of tables ([[key]]); each reader's path is "<key>[i]".
  std::vector<TableReader> table_list(std::string_view key) const;

  /// Throws for the first key of the table that is not in `known`:
  /// "<file>: <field>: unknown key (known keys: a, b, c)".
  void only_keys(const std::vector<std::string>& known) const;

  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }

 private:
  const toml::node& required(std::string_view key) const;
  const toml::node* optional(std::string_view key) const;
  [[noreturn]] void fail_type(std::string_view key, const toml::node& node,
                              std::string_view expected) const;

  const toml::table* table_;
  std::string file_;
  std::string path_;
};

/// "integer", "string", "array"...: TOML type names for error messages.
std::string_view type_name(toml::node_type type);

}  // namespace ptxb::tasks_detail
