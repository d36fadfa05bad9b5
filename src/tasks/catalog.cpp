// The instruction catalog: loading and validating tasks/catalog/*.toml, opcode matching and the
// FLOP rule for warpgroup MMA opcodes. Schema: docs/tasks.md, "Instruction catalog".
#include "tasks/catalog.hpp"

#include <algorithm>
#include <charconv>
#include <regex>

#include "core/arch.hpp"
#include "core/error.hpp"
#include "tasks/toml_reader.hpp"

namespace ptxb {
namespace {

using tasks_detail::TableReader;

constexpr std::string_view kStatuses[] = {"verified", "3p", "conflict", "guess"};

/// Opcode prefix rule shared by primary and glue lists (see InstructionEntry::is_primary).
bool matches_any(const std::vector<std::string>& opcodes, const std::string& token) {
  for (const std::string& opcode : opcodes) {
    if (!opcode.empty() && opcode.back() == '$') {
      if (token.size() + 1 == opcode.size() && opcode.compare(0, token.size(), token) == 0)
        return true;
      continue;
    }
    if (token.size() < opcode.size() || token.compare(0, opcode.size(), opcode) != 0) continue;
    if (token.size() == opcode.size() || token[opcode.size()] == '.') return true;
  }
  return false;
}

/// An opcode (prefix): dotted upper-case parts such as "SYNCS.PHASECHK.TRANS64.TRYWAIT", with an
/// optional trailing '$' (exact match).
bool valid_opcode(const std::string& opcode) {
  static const std::regex kOpcode(R"([A-Z][A-Z0-9_]*(\.[A-Za-z0-9_]+)*\$?)");
  return std::regex_match(opcode, kOpcode);
}

std::vector<std::string> opcode_list(TableReader& reader, std::string_view key, bool required) {
  std::vector<std::string> opcodes;
  if (required) {
    opcodes = reader.string_list(key);
    if (opcodes.empty()) reader.fail(key, "must list at least one opcode");
  } else {
    opcodes = reader.optional_string_list(key).value_or(std::vector<std::string>{});
  }
  for (size_t i = 0; i < opcodes.size(); ++i) {
    const std::string element = std::string(key) + "[" + std::to_string(i) + "]";
    if (!valid_opcode(opcodes[i]))
      reader.fail(element, "'" + opcodes[i] + "' is not a SASS opcode (e.g. HGMMA, UTMALDG.2D)");
    for (size_t j = 0; j < i; ++j)
      if (opcodes[j] == opcodes[i]) reader.fail(element, "duplicate opcode '" + opcodes[i] + "'");
  }
  return opcodes;
}

InstructionEntry read_entry(TableReader& reader, const std::string& arch) {
  reader.only_keys({"name", "ptx_pattern", "primary_opcodes", "glue_opcodes", "flop_rule",
                    "bytes_per_instruction", "moved_bytes_metric", "min_moved_input_share",
                    "other_read_metrics", "status", "note"});
  InstructionEntry entry;
  entry.arch = arch;
  entry.name = reader.string("name");
  if (entry.name.empty()) reader.fail("name", "must not be empty");
  entry.ptx_pattern = reader.string("ptx_pattern");
  if (entry.ptx_pattern.empty()) reader.fail("ptx_pattern", "must not be empty");
  try {
    std::regex check(entry.ptx_pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    reader.fail("ptx_pattern", std::string("not a valid ECMAScript regex: ") + e.what());
  }
  entry.primary_opcodes = opcode_list(reader, "primary_opcodes", /*required=*/true);
  entry.glue_opcodes = opcode_list(reader, "glue_opcodes", /*required=*/false);
  const std::string rule = reader.optional_string("flop_rule").value_or("none");
  const auto flop_rule = flop_rule_from_string(rule);
  if (!flop_rule) reader.fail("flop_rule", "'" + rule + "' is not one of none, sass_shape_mnk");
  entry.flop_rule = *flop_rule;
  if (const auto bytes = reader.optional_integer("bytes_per_instruction")) {
    if (*bytes < 1) reader.fail("bytes_per_instruction", "must be >= 1");
    if (entry.flop_rule != FlopRule::kNone)
      reader.fail("bytes_per_instruction", "an MMA entry's floor is its FLOP share, not a count");
    entry.bytes_per_instruction = *bytes;
  }
  const auto moved_metric = reader.optional_string("moved_bytes_metric");
  const auto moved_share = reader.optional_number("min_moved_input_share");
  if (moved_metric.has_value() != moved_share.has_value())
    reader.fail(moved_metric ? "min_moved_input_share" : "moved_bytes_metric",
                "moved_bytes_metric and min_moved_input_share go together");
  if (moved_metric) {
    if (entry.flop_rule != FlopRule::kNone)
      reader.fail("moved_bytes_metric", "an MMA entry's floor is its FLOP share, not bytes");
    if (!(*moved_share > 0 && *moved_share <= 1))
      reader.fail("min_moved_input_share", "must be in (0, 1]");
    entry.moved_bytes_metric = *moved_metric;
    entry.min_moved_input_share = *moved_share;
  }
  if (auto other = reader.optional_string_list("other_read_metrics")) {
    if (!moved_metric)
      reader.fail("other_read_metrics", "only entries with a moved_bytes_metric read other bytes");
    if (other->empty()) reader.fail("other_read_metrics", "must name at least one metric");
    entry.other_read_metrics = std::move(*other);
  }
  entry.status = reader.string("status");
  if (std::find(std::begin(kStatuses), std::end(kStatuses), entry.status) == std::end(kStatuses))
    reader.fail("status", "'" + entry.status + "' is not one of verified, 3p, conflict, guess");
  entry.note = reader.string("note");
  if (entry.note.empty()) reader.fail("note", "must not be empty");
  if (entry.note.find('\n') != std::string::npos) reader.fail("note", "must be one line");
  return entry;
}

CounterSpec read_counter(TableReader& reader, const std::string& arch) {
  reader.only_keys({"metric", "tolerance", "note"});
  CounterSpec counter;
  counter.arch = arch;
  counter.metric = reader.string("metric");
  static const std::regex kMetric(R"([a-z0-9]+__[a-z0-9_]+\.(sum|max|min|avg))");
  if (!std::regex_match(counter.metric, kMetric))
    reader.fail("metric", "'" + counter.metric + "' is not a metric name such as sm__x.sum");
  if (counter.metric.find("_sass_") != std::string::npos)
    reader.fail("metric", "SASS metrics patch code; only hardware counters are allowed");
  counter.tolerance = reader.number("tolerance");
  if (counter.tolerance < 0 || counter.tolerance >= 1)
    reader.fail("tolerance", "must be in [0, 1)");
  counter.note = reader.string("note");
  return counter;
}

struct CatalogFile {
  std::vector<InstructionEntry> entries;
  std::vector<CounterSpec> counters;
};

CatalogFile read_catalog_file(const std::filesystem::path& path) {
  const toml::table document = tasks_detail::parse_toml_file(path);
  TableReader root(document, path.string(), "");
  root.only_keys({"arch", "instructions", "counters"});
  const std::string arch = root.string("arch");
  if (find_arch(arch) == nullptr) {
    std::string names;
    for (const std::string& a : known_archs()) names += (names.empty() ? "" : ", ") + a;
    root.fail("arch", "'" + arch + "' is not one of " + names);
  }
  std::vector<TableReader> tables = root.table_list("instructions");
  if (tables.empty()) root.fail("instructions", "must hold at least one entry");

  std::vector<InstructionEntry> entries;
  for (TableReader& table : tables) {
    InstructionEntry entry = read_entry(table, arch);
    for (const InstructionEntry& seen : entries)
      if (seen.name == entry.name)
        table.fail("name", "duplicate entry '" + entry.name + "' for " + arch);
    entries.push_back(std::move(entry));
  }
  CatalogFile out{std::move(entries), {}};
  if (root.has("counters")) {
    for (TableReader& table : root.table_list("counters")) {
      CounterSpec counter = read_counter(table, arch);
      for (const CounterSpec& seen : out.counters)
        if (seen.metric == counter.metric) table.fail("metric", "duplicate counter " + seen.metric);
      out.counters.push_back(std::move(counter));
    }
  }
  // A byte floor reads a counter that both the evidence run and the timing worker collect.
  for (size_t i = 0; i < out.entries.size(); ++i) {
    const std::string& metric = out.entries[i].moved_bytes_metric;
    if (metric.empty()) continue;
    const bool listed = std::any_of(out.counters.begin(), out.counters.end(),
                                    [&](const CounterSpec& c) { return c.metric == metric; });
    if (!listed)
      tables[i].fail("moved_bytes_metric",
                     "'" + metric + "' is not one of this file's [[counters]]");
  }
  return out;
}

}  // namespace

std::string_view to_string(FlopRule rule) {
  switch (rule) {
    case FlopRule::kNone:
      return "none";
    case FlopRule::kSassShapeMnk:
      return "sass_shape_mnk";
  }
  return "none";
}

std::optional<FlopRule> flop_rule_from_string(std::string_view name) {
  if (name == "none") return FlopRule::kNone;
  if (name == "sass_shape_mnk") return FlopRule::kSassShapeMnk;
  return std::nullopt;
}

bool InstructionEntry::is_primary(const std::string& sass_opcode) const {
  return matches_any(primary_opcodes, sass_opcode);
}

bool InstructionEntry::is_glue(const std::string& sass_opcode) const {
  return matches_any(glue_opcodes, sass_opcode);
}

const InstructionEntry* Catalog::find(const std::string& name, const std::string& arch) const {
  for (const InstructionEntry& entry : entries)
    if (entry.name == name && entry.arch == arch) return &entry;
  return nullptr;
}

std::vector<const InstructionEntry*> Catalog::for_arch(const std::string& arch) const {
  std::vector<const InstructionEntry*> out;
  for (const InstructionEntry& entry : entries)
    if (entry.arch == arch) out.push_back(&entry);
  return out;
}

std::vector<CounterSpec> Catalog::counters_for(const std::string& arch) const {
  std::vector<CounterSpec> out;
  for (const CounterSpec& c : counters)
    if (c.arch == arch) out.push_back(c);
  return out;
}

Catalog load_catalog(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw InputError(dir.string() + ": instruction catalog folder does not exist");
  std::vector<std::filesystem::path> files;
  for (const auto& item : std::filesystem::directory_iterator(dir))
    if (item.is_regular_file() && item.path().extension() == ".toml") files.push_back(item.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw InputError(dir.string() + ": no *.toml instruction catalog files");

  Catalog catalog;
  for (const auto& file : files) {
    CatalogFile content = read_catalog_file(file);
    for (CounterSpec& counter : content.counters) catalog.counters.push_back(std::move(counter));
    for (InstructionEntry& entry : content.entries) {
      if (catalog.find(entry.name, entry.arch) != nullptr)
        throw InputError(file.string() + ": instructions: entry '" + entry.name + "' for " +
                         entry.arch + " is already defined in another catalog file");
      catalog.entries.push_back(std::move(entry));
    }
  }
  return catalog;
}

std::optional<double> mma_flops_per_instruction(const std::string& sass_opcode) {
  // The shape is the dotted part that reads <m>x<n>x<k> with positive decimal sizes.
  size_t begin = 0;
  while (begin <= sass_opcode.size()) {
    size_t end = sass_opcode.find('.', begin);
    if (end == std::string::npos) end = sass_opcode.size();
    const std::string_view part(sass_opcode.data() + begin, end - begin);
    int64_t mnk[3] = {0, 0, 0};
    const char* p = part.data();
    const char* const last = part.data() + part.size();
    bool ok = !part.empty();
    for (int i = 0; i < 3 && ok; ++i) {
      auto [next, err] = std::from_chars(p, last, mnk[i]);
      ok = err == std::errc() && next != p && mnk[i] > 0 && mnk[i] <= (1 << 20);
      p = next;
      if (ok && i < 2) ok = p != last && *p++ == 'x';
    }
    if (ok && p == last)
      return 2.0 * static_cast<double>(mnk[0]) * static_cast<double>(mnk[1]) *
             static_cast<double>(mnk[2]);
    begin = end + 1;
  }
  return std::nullopt;
}

}  // namespace ptxb
