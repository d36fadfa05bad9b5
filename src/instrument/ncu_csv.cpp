#include "instrument/ncu_csv.hpp"

#include <algorithm>
#include <cctype>

#include "core/error.hpp"

namespace ptxb {
namespace {

// One CSV record of quoted or bare fields; "" inside quotes is a quote. nullopt when the quotes
// do not balance.
std::optional<std::vector<std::string>> split_csv_line(std::string_view line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  if (quoted) return std::nullopt;
  fields.push_back(std::move(field));
  return fields;
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// "1,048,576" or "1048576" or "12.5" (ncu groups thousands with commas).
std::optional<double> parse_number(std::string_view text) {
  std::string digits;
  for (char c : trim(text))
    if (c != ',') digits += c;
  if (digits.empty()) return std::nullopt;
  try {
    size_t used = 0;
    const double v = std::stod(digits, &used);
    if (used != digits.size()) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<int64_t> parse_count(std::string_view text) {
  const auto v = parse_number(text);
  if (!v || *v < 0 || *v != static_cast<double>(static_cast<int64_t>(*v))) return std::nullopt;
  return static_cast<int64_t>(*v);
}

// "(128, 1, 1)"
std::optional<std::array<int64_t, 3>> parse_dim3(std::string_view text) {
  std::string t = trim(text);
  if (t.size() < 2 || t.front() != '(' || t.back() != ')') return std::nullopt;
  t = t.substr(1, t.size() - 2);
  std::array<int64_t, 3> out{};
  size_t begin = 0;
  for (int i = 0; i < 3; ++i) {
    const size_t end = i < 2 ? t.find(',', begin) : t.size();
    if (end == std::string::npos) return std::nullopt;
    const auto v = parse_count(t.substr(begin, end - begin));
    if (!v) return std::nullopt;
    out[static_cast<size_t>(i)] = *v;
    begin = end + 1;
  }
  return out;
}

struct Columns {
  size_t id, name, stream, block, grid, metric, value;
};

Columns find_columns(const std::vector<std::string>& header, size_t line_no) {
  auto col = [&](const char* name) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end())
      throw InputError("ncu CSV line " + std::to_string(line_no) + ": no column \"" + name + "\"");
    return static_cast<size_t>(it - header.begin());
  };
  return {col("ID"),        col("Kernel Name"), col("Stream"),      col("Block Size"),
          col("Grid Size"), col("Metric Name"), col("Metric Value")};
}

// "762 (BRA: 88; EXIT: 16)" -> instances; the aggregate goes to `total`.
void parse_instances(const std::string& value, ProfiledKernel& k, const std::string& where) {
  const size_t open = value.find('(');
  const auto total = parse_count(value.substr(0, open));
  if (!total) throw InputError(where + ": aggregate '" + value.substr(0, 40) + "' is not a count");
  k.executed_total = *total;
  if (open == std::string::npos) return;  // no instance values: a kernel with nothing counted
  if (value.back() != ')') throw InputError(where + ": instance list does not end with ')'");
  const std::string list = value.substr(open + 1, value.size() - open - 2);
  int64_t sum = 0;
  size_t begin = 0;
  while (begin < list.size()) {
    size_t end = list.find(';', begin);
    if (end == std::string::npos) end = list.size();
    const std::string item = list.substr(begin, end - begin);
    const size_t colon = item.rfind(':');
    const auto count =
        colon == std::string::npos ? std::nullopt : parse_count(item.substr(colon + 1));
    const std::string opcode = colon == std::string::npos ? "" : trim(item.substr(0, colon));
    if (!count || opcode.empty())
      throw InputError(where + ": instance '" + trim(item) + "' is not 'OPCODE: count'");
    k.opcodes[opcode] += *count;
    sum += *count;
    begin = end + 1;
  }
  if (sum != k.executed_total)
    throw InputError(where + ": instances add up to " + std::to_string(sum) + ", aggregate is " +
                     std::to_string(k.executed_total));
}

}  // namespace

std::vector<ProfiledKernel> parse_ncu_csv(std::string_view text) {
  std::map<int64_t, ProfiledKernel> kernels;
  std::map<int64_t, bool> has_opcodes;
  std::optional<Columns> cols;
  size_t line_no = 0, begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_no;
    if (line.empty() || line.front() != '"') continue;  // ncu's own messages, program output
    const std::string where = "ncu CSV line " + std::to_string(line_no);
    const auto fields = split_csv_line(line);
    if (!fields) throw InputError(where + ": unbalanced quotes");
    if (!cols) {
      cols = find_columns(*fields, line_no);
      continue;
    }
    if (fields->size() <= std::max({cols->id, cols->value, cols->metric, cols->grid}))
      throw InputError(where + ": " + std::to_string(fields->size()) + " fields, too few");
    const auto id = parse_count((*fields)[cols->id]);
    if (!id) throw InputError(where + ": ID '" + (*fields)[cols->id] + "' is not a number");
    ProfiledKernel& k = kernels[*id];
    if (k.id < 0) {
      k.id = *id;
      k.name = (*fields)[cols->name];
      const auto stream = parse_count((*fields)[cols->stream]);
      const auto grid = parse_dim3((*fields)[cols->grid]);
      const auto block = parse_dim3((*fields)[cols->block]);
      if (!stream || !grid || !block)
        throw InputError(where + ": stream, grid or block size is malformed");
      k.stream = *stream;
      k.grid = *grid;
      k.block = *block;
    }
    const std::string& metric = (*fields)[cols->metric];
    const std::string& value = (*fields)[cols->value];
    if (metric == kOpcodeMetric) {
      parse_instances(value, k, where);
      has_opcodes[*id] = true;
    } else if (metric == kDurationMetric) {
      k.duration_ns = parse_number(value);
      if (!k.duration_ns) throw InputError(where + ": duration '" + value + "' is not a number");
    } else if (const auto number = parse_number(value)) {
      k.metrics[metric] = *number;  // NOTE: other instanced metrics ("762 (BRA: 88; ...)") skipped
    }
  }
  std::vector<ProfiledKernel> out;
  for (auto& [id, k] : kernels) {
    if (!has_opcodes[id])
      throw InputError("ncu CSV: kernel " + std::to_string(id) + " (" + k.name + ") has no " +
                       std::string(kOpcodeMetric) + " row");
    out.push_back(std::move(k));
  }
  return out;
}

std::optional<double> metric_of(const ProfiledKernel& k, const std::string& name) {
  const auto it = k.metrics.find(name);
  if (it == k.metrics.end()) return std::nullopt;
  return it->second;
}

bool kernel_name_is(const std::string& ncu_name, std::string_view name) {
  if (ncu_name.size() < name.size() || ncu_name.compare(0, name.size(), name) != 0) return false;
  return ncu_name.size() == name.size() || ncu_name[name.size()] == '(';
}

}  // namespace ptxb
