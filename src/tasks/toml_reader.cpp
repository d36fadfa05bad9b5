// Strict TOML table reading for the task loaders (see toml_reader.hpp).
#include "tasks/toml_reader.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "sys/files.hpp"

namespace ptxb::tasks_detail {

toml::table parse_toml_file(const std::filesystem::path& path) {
  const std::string text = read_file(path);
  try {
    return toml::parse(text, path.string());
  } catch (const toml::parse_error& e) {
    std::ostringstream os;
    os << path.string() << ": line " << e.source().begin.line << ", column "
       << e.source().begin.column << ": TOML syntax error: " << e.description();
    throw InputError(os.str());
  }
}

std::string_view type_name(toml::node_type type) {
  switch (type) {
    case toml::node_type::table:
      return "table";
    case toml::node_type::array:
      return "array";
    case toml::node_type::string:
      return "string";
    case toml::node_type::integer:
      return "integer";
    case toml::node_type::floating_point:
      return "float";
    case toml::node_type::boolean:
      return "boolean";
    case toml::node_type::date:
      return "date";
    case toml::node_type::time:
      return "time";
    case toml::node_type::date_time:
      return "date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

TableReader::TableReader(const toml::table& table, std::string file, std::string path)
    : table_(&table), file_(std::move(file)), path_(std::move(path)) {}

std::string TableReader::field(std::string_view key) const {
  if (key.empty()) return path_.empty() ? std::string("(document)") : path_;
  if (path_.empty()) return std::string(key);
  return path_ + "." + std::string(key);
}

void TableReader::fail(std::string_view key, std::string_view problem) const {
  throw InputError(file_ + ": " + field(key) + ": " + std::string(problem));
}

void TableReader::fail_type(std::string_view key, const toml::node& node,
                            std::string_view expected) const {
  fail(key, "expected " + std::string(expected) + ", got " + std::string(type_name(node.type())));
}

bool TableReader::has(std::string_view key) const { return table_->contains(key); }

std::vector<std::string> TableReader::keys() const {
  std::vector<std::string> out;
  for (auto&& [key, node] : *table_) out.emplace_back(key.str());
  return out;
}

const toml::node* TableReader::optional(std::string_view key) const { return table_->get(key); }

const toml::node& TableReader::required(std::string_view key) const {
  const toml::node* node = optional(key);
  if (node == nullptr) fail(key, "required field is missing");
  return *node;
}

std::string TableReader::string(std::string_view key) const {
  const toml::node& node = required(key);
  if (!node.is_string()) fail_type(key, node, "a string");
  return node.as_string()->get();
}

std::optional<std::string> TableReader::optional_string(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return string(key);
}

int64_t TableReader::integer(std::string_view key) const {
  const toml::node& node = required(key);
  if (!node.is_integer()) fail_type(key, node, "an integer");
  return node.as_integer()->get();
}

std::optional<int64_t> TableReader::optional_integer(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return integer(key);
}

double TableReader::number(std::string_view key) const {
  const toml::node& node = required(key);
  double value = 0;
  if (node.is_integer()) {
    value = static_cast<double>(node.as_integer()->get());
  } else if (node.is_floating_point()) {
    value = node.as_floating_point()->get();
  } else {
    fail_type(key, node, "a number");
  }
  if (!std::isfinite(value)) fail(key, "must be a finite number");
  return value;
}

std::optional<double> TableReader::optional_number(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return number(key);
}

std::optional<bool> TableReader::optional_boolean(std::string_view key) const {
  const toml::node* node = optional(key);
  if (node == nullptr) return std::nullopt;
  if (!node->is_boolean()) fail_type(key, *node, "a boolean (true or false)");
  return node->as_boolean()->get();
}

std::vector<std::string> TableReader::string_list(std::string_view key) const {
  const toml::node& node = required(key);
  if (!node.is_array()) fail_type(key, node, "an array of strings");
  std::vector<std::string> out;
  const toml::array& array = *node.as_array();
  for (size_t i = 0; i < array.size(); ++i) {
    const std::string element = std::string(key) + "[" + std::to_string(i) + "]";
    if (!array[i].is_string()) fail_type(element, array[i], "a string");
    out.push_back(array[i].as_string()->get());
  }
  return out;
}

std::optional<std::vector<std::string>> TableReader::optional_string_list(
    std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return string_list(key);
}

std::vector<int64_t> TableReader::integer_list(std::string_view key) const {
  const toml::node& node = required(key);
  if (!node.is_array()) fail_type(key, node, "an array of integers");
  std::vector<int64_t> out;
  const toml::array& array = *node.as_array();
  for (size_t i = 0; i < array.size(); ++i) {
    const std::string element = std::string(key) + "[" + std::to_string(i) + "]";
    if (!array[i].is_integer()) fail_type(element, array[i], "an integer");
    out.push_back(array[i].as_integer()->get());
  }
  return out;
}

std::vector<std::vector<int64_t>> TableReader::integer_rows(std::string_view key,
                                                            size_t width) const {
  const toml::node& node = required(key);
  if (!node.is_array()) fail_type(key, node, "an array of arrays of integers");
  std::vector<std::vector<int64_t>> out;
  const toml::array& rows = *node.as_array();
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string row = std::string(key) + "[" + std::to_string(i) + "]";
    if (!rows[i].is_array()) fail_type(row, rows[i], "an array of integers");
    const toml::array& values = *rows[i].as_array();
    if (values.size() != width)
      fail(row,
           "has " + std::to_string(values.size()) + " values, expected " + std::to_string(width));
    std::vector<int64_t> parsed;
    for (size_t j = 0; j < values.size(); ++j) {
      if (!values[j].is_integer())
        fail_type(row + "[" + std::to_string(j) + "]", values[j], "an integer");
      parsed.push_back(values[j].as_integer()->get());
    }
    out.push_back(std::move(parsed));
  }
  return out;
}

TableReader TableReader::table(std::string_view key) const {
  const toml::node& node = required(key);
  if (!node.is_table()) fail_type(key, node, "a table");
  return TableReader(*node.as_table(), file_, field(key));
}

std::vector<TableReader> TableReader::table_list(std::string_view key) const {
  const toml::node& node = required(key);
  if (!node.is_array()) fail_type(key, node, "an array of tables ([[" + std::string(key) + "]])");
  std::vector<TableReader> out;
  const toml::array& array = *node.as_array();
  for (size_t i = 0; i < array.size(); ++i) {
    const std::string element = std::string(key) + "[" + std::to_string(i) + "]";
    if (!array[i].is_table()) fail_type(element, array[i], "a table");
    out.emplace_back(*array[i].as_table(), file_, field(element));
  }
  return out;
}

void TableReader::only_keys(const std::vector<std::string>& known) const {
  for (auto&& [key, node] : *table_) {
    if (std::find(known.begin(), known.end(), key.str()) != known.end()) continue;
    std::string list;
    for (const std::string& name : known) list += (list.empty() ? "" : ", ") + name;
    fail(key.str(), "unknown key (known keys: " + list + ")");
  }
}

}  // namespace ptxb::tasks_detail
