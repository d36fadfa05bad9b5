// Loading and validating one task.toml (schema: docs/tasks.md). Every check that fails throws
// InputError("<file>: <field path>: <problem>"); a loaded TaskSpec is internally consistent.
#include "tasks/spec.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <utility>

#include "core/error.hpp"
#include "sys/files.hpp"
#include "tasks/shape_reading.hpp"
#include "tasks/toml_reader.hpp"

namespace ptxb {
namespace {

using tasks_detail::read_regimes;
using tasks_detail::read_shapes;
using tasks_detail::TableReader;

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

bool is_identifier(const std::string& name) {
  static const std::regex kIdentifier("[A-Za-z_][A-Za-z0-9_]*");
  return std::regex_match(name, kIdentifier);
}

/// A list of distinct identifiers, e.g. dims = ["M", "N", "K"].
std::vector<std::string> identifier_list(const TableReader& reader, const std::string& key,
                                         std::vector<std::string> names) {
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string element = key + "[" + std::to_string(i) + "]";
    if (!is_identifier(names[i]))
      reader.fail(element, "'" + names[i] + "' is not a name (letters, digits, '_')");
    if (std::find(names.begin(), names.begin() + i, names[i]) != names.begin() + i)
      reader.fail(element, "duplicate name '" + names[i] + "'");
  }
  return names;
}

void read_header(const TableReader& root, TaskSpec& task) {
  task.id = root.string("id");
  static const std::regex kId("[a-z0-9][a-z0-9_.-]*(/[a-z0-9][a-z0-9_.-]*)+");
  if (!std::regex_match(task.id, kId))
    root.fail("id", "'" + task.id + "' is not a task id like sm90/gemm/bf16-wgmma");
  task.title = root.string("title");
  if (task.title.empty()) root.fail("title", "must not be empty");
  task.arch = root.string("arch");
  if (!contains(known_archs(), task.arch))
    root.fail("arch", "'" + task.arch + "' is not one of " + join(known_archs()));
  const std::string prefix = find_arch(task.arch)->folder + "/";
  if (task.id.rfind(prefix, 0) != 0)
    root.fail("id", "'" + task.id + "' must start with '" + prefix + "' for arch " + task.arch);
  task.family = root.string("family");
  if (find_family(task.family) == nullptr)
    root.fail("family", "'" + task.family + "' is not one of " + join(known_families()));
  const int64_t level = root.integer("level");
  if (level < 1 || level > 9) root.fail("level", "must be an integer from 1 to 9");
  task.level = static_cast<int>(level);
}

void read_dims(const TableReader& root, TaskSpec& task) {
  task.dims = identifier_list(root, "dims", root.string_list("dims"));
  if (task.dims.empty()) root.fail("dims", "must name at least one dimension");
  for (const char* reserved : {"hidden", "timed", "causal"})
    if (contains(task.dims, reserved))
      root.fail("dims", "'" + std::string(reserved) + "' is reserved for [[shapes]] flags");
  const Family& family = family_of(task.family);
  for (const std::string& dim : family.required_dims())
    if (!contains(task.dims, dim))
      root.fail("dims", "a " + task.family + " task must declare " + join(family.required_dims()) +
                            " (missing " + dim + ")" +
                            (family.dims_hint().empty() ? "" : "; " + family.dims_hint()));
  task.scalars = identifier_list(
      root, "scalars", root.optional_string_list("scalars").value_or(std::vector<std::string>{}));
  const std::vector<std::string> known_scalars = family.scalars();
  for (size_t i = 0; i < task.scalars.size(); ++i)
    if (!contains(known_scalars, task.scalars[i]))
      root.fail("scalars[" + std::to_string(i) + "]",
                "'" + task.scalars[i] + "' is not a scalar of family " + task.family + " (known: " +
                    (known_scalars.empty() ? std::string("none") : join(known_scalars)) + ")");

  if (!root.has("multiple_of")) return;
  const TableReader rules = root.table("multiple_of");
  for (const std::string& dim : rules.keys()) {
    if (!contains(task.dims, dim)) rules.fail(dim, "'" + dim + "' is not one of dims");
    const int64_t divisor = rules.integer(dim);
    if (divisor < 1) rules.fail(dim, "must be a positive integer");
    task.multiple_of.dims.emplace_back(dim, divisor);
  }
}

// `values` of a structured input (docs/tasks.md, "Structured inputs"): required for integer
// inputs, allowed for float inputs of a float kind, refused on outputs.
void read_structured_values(const TableReader& reader, const TaskSpec& task, TensorSpec& tensor) {
  const bool integer = is_integer(tensor.dtype);
  if (integer && tensor.role == TensorRole::kOutput)
    reader.fail("dtype", "integer outputs are not supported");
  if (!reader.has("values")) {
    if (integer) reader.fail("values", "an integer input must say how its values are drawn");
    return;
  }
  if (tensor.role == TensorRole::kOutput) reader.fail("values", "outputs take no values");
  if (!integer && tensor.dtype != DType::kF32)
    reader.fail("values", "only integer and f32 inputs take values (others use distributions)");
  const TableReader values = reader.table("values");
  values.only_keys({"kind", "total", "max", "min", "lengths", "page", "pages"});
  StructuredValues v;
  v.kind = values.string("kind");
  const std::vector<std::string>& kinds = integer ? integer_value_kinds() : float_value_kinds();
  if (!contains(kinds, v.kind))
    values.fail("kind", "'" + v.kind + "' is not one of " + join(kinds) + " (for " +
                            std::string(to_string(tensor.dtype)) + " inputs)");
  // The keys each kind takes (all required but "min").
  static const std::map<std::string, std::vector<std::string>> kKeys = {
      {"offsets", {"total"}},
      {"sequence_offsets", {"total", "max"}},
      {"sequence_lengths", {"total", "max", "min"}},
      {"page_table", {"lengths", "page", "pages"}}};
  const auto keys = kKeys.find(v.kind);
  for (const char* key : {"total", "max", "min", "lengths", "page", "pages"})
    if (values.has(key) && (keys == kKeys.end() || !contains(keys->second, key)))
      values.fail(key, "'" + v.kind + "' values take no " + key);
  auto declared_dim = [&](const char* key) {
    std::string dim = values.string(key);
    if (!contains(task.dims, dim))
      values.fail(key, "'" + dim + "' is not declared in dims (" + join(task.dims) + ")");
    return dim;
  };
  const size_t rank = v.kind == "page_table" ? 2 : 1;
  if (keys != kKeys.end() && tensor.dims.size() != rank)
    values.fail("kind", v.kind + " values fill a rank-" + std::to_string(rank) + " tensor");
  if (v.kind == "offsets" || v.kind == "sequence_offsets" || v.kind == "sequence_lengths")
    v.total = declared_dim("total");
  if (v.kind == "sequence_offsets" || v.kind == "sequence_lengths") v.max = declared_dim("max");
  if (v.kind == "sequence_lengths" && values.has("min")) v.min = declared_dim("min");
  if (v.kind == "page_table") {
    v.lengths = values.string("lengths");  // a tensor: checked once every tensor is read
    v.page = declared_dim("page");
    v.pages = declared_dim("pages");
  }
  tensor.values = v;
}

TensorSpec read_tensor(const TableReader& reader, const TaskSpec& task) {
  reader.only_keys({"name", "role", "dtype", "shape", "layout", "values"});
  TensorSpec tensor;
  tensor.name = reader.string("name");
  if (!is_identifier(tensor.name)) reader.fail("name", "'" + tensor.name + "' is not a name");
  const std::string role = reader.string("role");
  if (role == "in") {
    tensor.role = TensorRole::kInput;
  } else if (role == "out") {
    tensor.role = TensorRole::kOutput;
  } else {
    reader.fail("role", "'" + role + "' is not one of in, out");
  }
  const std::string dtype = reader.string("dtype");
  const auto parsed = dtype_from_string(dtype);
  if (!parsed)
    reader.fail("dtype",
                "'" + dtype + "' is not one of bf16, f16, f32, e4m3, e5m2, f64, int32, int64");
  tensor.dtype = *parsed;
  tensor.dims = reader.string_list("shape");
  if (tensor.dims.empty()) reader.fail("shape", "must list at least one dimension");
  for (size_t i = 0; i < tensor.dims.size(); ++i) {
    const std::string field = "shape[" + std::to_string(i) + "]";
    const auto blocked = blocked_extent(tensor.dims[i]);
    const auto plus = plus_extent(tensor.dims[i]);
    if (blocked || plus) {
      const std::string& base = blocked ? blocked->dim : plus->dim;
      if (!contains(task.dims, base))
        reader.fail(field, "'" + base + "' is not declared in dims (" + join(task.dims) + ")");
    } else if (!contains(task.dims, tensor.dims[i]) && !is_literal_extent(tensor.dims[i])) {
      reader.fail(field, "'" + tensor.dims[i] + "' is neither declared in dims (" +
                             join(task.dims) + "), a positive integer, DIM/BLOCK nor DIM+N");
    }
  }
  tensor.layout = reader.optional_string("layout").value_or("row_major");
  if (tensor.layout != "row_major")
    reader.fail("layout", "'" + tensor.layout + "' is not supported (only row_major)");
  read_structured_values(reader, task, tensor);
  return tensor;
}

void read_tensors(const TableReader& root, TaskSpec& task) {
  std::vector<TableReader> tables = root.table_list("tensors");
  if (tables.empty()) root.fail("tensors", "must declare at least one tensor");
  for (const TableReader& table : tables) {
    TensorSpec tensor = read_tensor(table, task);
    for (const TensorSpec& seen : task.tensors)
      if (seen.name == tensor.name) table.fail("name", "duplicate tensor '" + tensor.name + "'");
    if (contains(task.scalars, tensor.name))
      table.fail("name", "'" + tensor.name + "' is also a scalar name");
    task.tensors.push_back(std::move(tensor));
  }
  if (task.inputs().empty()) root.fail("tensors", "no tensor has role \"in\"");
  if (task.outputs().empty()) root.fail("tensors", "no tensor has role \"out\"");
  for (const FamilyTensor& need : family_of(task.family).tensors()) {
    const auto it = std::find_if(task.tensors.begin(), task.tensors.end(),
                                 [&](const TensorSpec& t) { return t.name == need.name; });
    const std::string role(to_string(need.input ? TensorRole::kInput : TensorRole::kOutput));
    if (it == task.tensors.end())
      root.fail("tensors", "a " + task.family + " task must declare the " + role + " tensor '" +
                               need.name + "' (its reference and baselines use it)");
    if ((it->role == TensorRole::kInput) != need.input)
      root.fail("tensors", "tensor '" + need.name + "' must have role \"" + role + "\" in a " +
                               task.family + " task");
    if (!need.dtypes.empty() &&
        std::find(need.dtypes.begin(), need.dtypes.end(), it->dtype) == need.dtypes.end()) {
      std::vector<std::string> names;
      for (DType d : need.dtypes) names.emplace_back(to_string(d));
      root.fail("tensors", "tensor '" + need.name + "' of a " + task.family + " task must be " +
                               join(names) + ", not " + std::string(to_string(it->dtype)));
    }
  }
  // A dim is used by a tensor's extent (as itself, DIM/BLOCK or DIM+N) or by the rule of a
  // structured input's values (the longest sequence of "sequence_offsets", a page's tokens).
  auto uses = [](const TensorSpec& tensor, const std::string& dim) {
    for (const std::string& extent : tensor.dims) {
      const auto blocked = blocked_extent(extent);
      const auto plus = plus_extent(extent);
      if (extent == dim || (blocked && blocked->dim == dim) || (plus && plus->dim == dim))
        return true;
    }
    if (!tensor.values) return false;
    const StructuredValues& v = *tensor.values;
    return v.total == dim || v.max == dim || v.min == dim || v.page == dim || v.pages == dim;
  };
  for (const std::string& dim : task.dims) {
    bool used = false;
    for (const TensorSpec& tensor : task.tensors) used = used || uses(tensor, dim);
    if (!used) root.fail("dims", "'" + dim + "' is not used by any tensor shape");
  }
}

void read_targets(const TableReader& root, const Catalog& catalog, TaskSpec& task) {
  std::vector<TableReader> tables = root.table_list("targets");
  if (tables.empty()) root.fail("targets", "must name at least one target instruction");
  for (const TableReader& reader : tables) {
    reader.only_keys({"instruction", "required", "min_flop_share", "max_nontarget_flop_share",
                      "max_nontarget_integer_share", "max_nontarget_instructions_per_mac",
                      "max_other_read_input_share"});
    TargetSpec target;
    target.instruction = reader.string("instruction");
    const InstructionEntry* entry = catalog.find(target.instruction, task.arch);
    if (entry == nullptr) {
      std::vector<std::string> known;
      for (const InstructionEntry* e : catalog.for_arch(task.arch)) known.push_back(e->name);
      reader.fail("instruction", "'" + target.instruction +
                                     "' is not in the instruction catalog for " + task.arch +
                                     " (known: " + join(known) + ")");
    }
    for (const TargetSpec& seen : task.targets)
      if (seen.instruction == target.instruction)
        reader.fail("instruction", "duplicate target '" + target.instruction + "'");
    const std::string required = reader.optional_string("required").value_or("R2");
    const auto level = evidence_level_from_string(required);
    if (!level) reader.fail("required", "'" + required + "' is not one of S0, S1, R1, R2");
    target.required = *level;
    if (const auto share = reader.optional_number("min_flop_share")) {
      if (entry->flop_rule == FlopRule::kNone)
        reader.fail("min_flop_share",
                    "only MMA targets (catalog flop_rule other than none) have a "
                    "FLOP share; '" +
                        target.instruction + "' has none");
      if (!(*share > 0 && *share <= 1)) reader.fail("min_flop_share", "must be in (0, 1]");
      target.min_flop_share = *share;
    }
    if (const auto share = reader.optional_number("max_nontarget_flop_share")) {
      if (entry->flop_rule == FlopRule::kNone)
        reader.fail("max_nontarget_flop_share", "only MMA targets have a non-target FLOP rule");
      if (!(*share >= 0 && *share < 1))
        reader.fail("max_nontarget_flop_share", "must be in [0, 1)");
      target.max_nontarget_flop_share = *share;
    }
    for (const auto& [key, field] :
         {std::pair{"max_nontarget_integer_share", &TargetSpec::max_nontarget_integer_share},
          std::pair{"max_nontarget_instructions_per_mac",
                    &TargetSpec::max_nontarget_instructions_per_mac}}) {
      const auto limit = reader.optional_number(key);
      if (!limit) continue;
      if (entry->flop_rule == FlopRule::kNone)
        reader.fail(key, "only MMA targets have a non-target work rule");
      if (!(*limit > 0)) reader.fail(key, "must be > 0");
      target.*field = *limit;
    }
    if (const auto share = reader.optional_number("max_other_read_input_share")) {
      if (entry->other_read_metrics.empty())
        reader.fail("max_other_read_input_share",
                    "'" + target.instruction + "' has no other_read_metrics in the catalog");
      if (!(*share >= 0)) reader.fail("max_other_read_input_share", "must be >= 0");
      target.max_other_read_input_share = *share;
    }
    task.targets.push_back(std::move(target));
  }
}

std::optional<double> non_negative(const TableReader& reader, const char* key,
                                   std::optional<double> value) {
  if (value && !(*value >= 0)) reader.fail(key, "must be >= 0");
  return value;
}

OutputTolerance read_output_tolerance(const TableReader& reader, const std::string& output,
                                      const DistributionSpec& defaults) {
  reader.only_keys({"atol", "atol_rms", "rtol", "max_rel_frobenius"});
  OutputTolerance tol;
  tol.output = output;
  tol.atol = non_negative(reader, "atol", reader.optional_number("atol")).value_or(defaults.atol);
  tol.atol_rms = non_negative(reader, "atol_rms", reader.optional_number("atol_rms"))
                     .value_or(defaults.atol_rms);
  tol.rtol = non_negative(reader, "rtol", reader.optional_number("rtol")).value_or(defaults.rtol);
  tol.max_rel_frobenius =
      non_negative(reader, "max_rel_frobenius", reader.optional_number("max_rel_frobenius"))
          .value_or(defaults.max_rel_frobenius);
  return tol;
}

DistributionSpec read_distribution(const TableReader& reader, const TaskSpec& task) {
  reader.only_keys({"name", "kind", "scale", "atol", "atol_rms", "rtol", "max_rel_frobenius",
                    "round_reference", "outputs"});
  DistributionSpec dist;
  dist.name = reader.string("name");
  if (dist.name.empty()) reader.fail("name", "must not be empty");
  const std::string kind = reader.string("kind");
  if (kind == "normal") {
    dist.kind = DistributionSpec::Kind::kNormal;
  } else if (kind == "uniform_int") {
    dist.kind = DistributionSpec::Kind::kUniformInt;
  } else {
    reader.fail("kind", "'" + kind + "' is not one of normal, uniform_int");
  }
  dist.scale = reader.number("scale");
  if (!(dist.scale > 0)) reader.fail("scale", "must be positive");
  if (dist.kind == DistributionSpec::Kind::kUniformInt && dist.scale != std::floor(dist.scale))
    reader.fail("scale", "must be an integer for kind uniform_int");
  dist.atol = *non_negative(reader, "atol", std::optional<double>(reader.number("atol")));
  dist.atol_rms =
      non_negative(reader, "atol_rms", reader.optional_number("atol_rms")).value_or(0.0);
  dist.rtol = *non_negative(reader, "rtol", std::optional<double>(reader.number("rtol")));
  dist.max_rel_frobenius =
      non_negative(reader, "max_rel_frobenius", reader.optional_number("max_rel_frobenius"))
          .value_or(0.0);
  dist.round_reference = reader.optional_boolean("round_reference").value_or(false);
  if (reader.has("outputs")) {
    const TableReader outputs = reader.table("outputs");
    for (const std::string& name : outputs.keys()) {
      bool is_output = false;
      for (const TensorSpec* t : task.outputs()) is_output = is_output || t->name == name;
      if (!is_output) outputs.fail(name, "'" + name + "' is not an output tensor");
      dist.outputs.push_back(read_output_tolerance(outputs.table(name), name, dist));
    }
  }
  return dist;
}

void read_correctness(const TableReader& root, TaskSpec& task) {
  const TableReader reader = root.table("correctness");
  reader.only_keys({"reference", "seeds", "distributions"});
  CorrectnessSpec& spec = task.correctness;
  spec.reference = reader.string("reference");
  const std::vector<std::string> references = family_of(task.family).references();
  if (!contains(references, spec.reference))
    reader.fail("reference", "'" + spec.reference + "' is not a reference of family " +
                                 task.family + " (known: " + join(references) + ")");
  const std::vector<int64_t> seeds = reader.integer_list("seeds");
  if (seeds.empty()) reader.fail("seeds", "must list at least one seed");
  for (size_t i = 0; i < seeds.size(); ++i) {
    const std::string element = "seeds[" + std::to_string(i) + "]";
    if (seeds[i] < 0) reader.fail(element, "must be >= 0");
    if (std::find(seeds.begin(), seeds.begin() + i, seeds[i]) != seeds.begin() + i)
      reader.fail(element, "duplicate seed " + std::to_string(seeds[i]));
    spec.seeds.push_back(static_cast<uint64_t>(seeds[i]));
  }
  std::vector<TableReader> tables = reader.table_list("distributions");
  if (tables.empty()) reader.fail("distributions", "must list at least one distribution");
  for (const TableReader& table : tables) {
    DistributionSpec dist = read_distribution(table, task);
    for (const DistributionSpec& seen : spec.distributions)
      if (seen.name == dist.name) table.fail("name", "duplicate distribution '" + dist.name + "'");
    spec.distributions.push_back(std::move(dist));
  }
}

void read_baseline(const TableReader& root, TaskSpec& task) {
  const TableReader reader = root.table("baseline");
  reader.only_keys({"library", "heuristic_algos", "workspace_mib"});
  task.baseline.library = reader.string("library");
  const std::vector<std::string> libraries = family_of(task.family).baselines();
  if (!contains(libraries, task.baseline.library))
    reader.fail("library", "'" + task.baseline.library + "' cannot time family " + task.family +
                               " (known: " + join(libraries) + ")");
  const int64_t algos = reader.optional_integer("heuristic_algos").value_or(32);
  if (algos < 1 || algos > 1024) reader.fail("heuristic_algos", "must be from 1 to 1024");
  task.baseline.heuristic_algos = static_cast<int>(algos);
  const int64_t mib = reader.optional_integer("workspace_mib").value_or(32);
  if (mib < 0 || mib > 4096) reader.fail("workspace_mib", "must be from 0 to 4096");
  task.baseline.workspace_bytes = mib << 20;
}

void read_prompt(const TableReader& root, TaskSpec& task) {
  const std::filesystem::path path = task.dir / "prompt.md";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    root.fail("prompt", "missing " + path.string() + " (the prompt text beside task.toml)");
  task.prompt = read_file(path);
  if (task.prompt.find_first_not_of(" \t\r\n") == std::string::npos)
    root.fail("prompt", path.string() + " is empty");
}

// Every shape must admit the ragged batches its "sequence_offsets" and "sequence_lengths" inputs
// describe, and the pages its "page_table" inputs hand out.
void check_sequence_offsets(const TableReader& root, const TaskSpec& task) {
  auto fail = [&](const ShapeCase& c, const std::string& what) {
    root.fail("shapes", "shape (" + c.shape.to_string() + "): " + what);
  };
  for (const auto& tensor : task.tensors) {
    if (!tensor.values) continue;
    const StructuredValues& v = *tensor.values;
    if (v.kind == "sequence_offsets") {
      for (const ShapeCase& c : task.shapes) {
        const int64_t sequences = extent(tensor.dims[0], c.shape) - 1;
        const int64_t total = c.shape.at(v.total);
        const int64_t max_len = c.shape.at(v.max);
        if (!sequence_offsets_fit(sequences, total, max_len))
          fail(c, std::to_string(sequences) + " sequences of 1 to " + std::to_string(max_len) +
                      " tokens, one of " + std::to_string(max_len) + ", cannot hold " + v.total +
                      " = " + std::to_string(total) + " tokens (" + tensor.name + ")");
      }
    } else if (v.kind == "sequence_lengths") {
      for (const ShapeCase& c : task.shapes) {
        const int64_t sequences = extent(tensor.dims[0], c.shape);
        const int64_t total = c.shape.at(v.total), max_len = c.shape.at(v.max);
        const int64_t min_len = min_length(v, c.shape);
        if (!sequence_lengths_fit(sequences, total, max_len, min_len))
          fail(c, std::to_string(sequences) + " sequences of " + std::to_string(min_len) + " to " +
                      std::to_string(max_len) + " tokens, one of " + std::to_string(max_len) +
                      ", cannot hold " + v.total + " = " + std::to_string(total) + " tokens (" +
                      tensor.name + ")");
      }
    } else if (v.kind == "page_table") {
      const auto lengths =
          std::find_if(task.tensors.begin(), task.tensors.end(), [&](const TensorSpec& t) {
            return t.name == v.lengths && t.values && t.values->kind == "sequence_lengths";
          });
      if (lengths == task.tensors.end())
        root.fail("tensors", "tensor '" + tensor.name + "': its page table's lengths '" +
                                 v.lengths + "' is not a sequence_lengths input");
      const StructuredValues& lv = *lengths->values;
      for (const ShapeCase& c : task.shapes) {
        const int64_t rows = extent(tensor.dims[0], c.shape);
        const int64_t width = extent(tensor.dims[1], c.shape);
        const int64_t page = c.shape.at(v.page), pool = c.shape.at(v.pages);
        const int64_t sequences = extent(lengths->dims[0], c.shape);
        if (rows != sequences)
          fail(c, tensor.name + " has " + std::to_string(rows) + " rows for " +
                      std::to_string(sequences) + " sequences");
        const int64_t max_len = c.shape.at(lv.max);
        if (page < 1 || width * page < max_len)
          fail(c, tensor.name + ": " + std::to_string(width) + " pages of " + std::to_string(page) +
                      " tokens cannot hold a sequence of " + std::to_string(max_len));
        const int64_t min_len = min_length(lv, c.shape);
        if (!sequence_lengths_fit(sequences, c.shape.at(lv.total), max_len, min_len)) continue;
        const int64_t needed = pages_needed(
            shape_sequence_lengths(sequences, c.shape.at(lv.total), max_len, min_len), page);
        if (pool < needed)
          fail(c, v.pages + " = " + std::to_string(pool) + " pages, the lengths of " + v.lengths +
                      " need " + std::to_string(needed) + " (" + tensor.name + ")");
      }
    }
  }
}

}  // namespace

TaskSpec load_task(const std::filesystem::path& task_toml, const Catalog& catalog) {
  const toml::table document = tasks_detail::parse_toml_file(task_toml);
  const TableReader root(document, task_toml.string(), "");
  root.only_keys({"id", "title", "arch", "family", "level", "dims", "scalars", "multiple_of",
                  "tensors", "shapes", "shape_grids", "regimes", "targets", "correctness",
                  "baseline"});
  TaskSpec task;
  task.dir = task_toml.parent_path();
  read_header(root, task);
  read_dims(root, task);
  read_tensors(root, task);
  read_shapes(root, task);
  check_sequence_offsets(root, task);
  read_regimes(root, task);
  read_targets(root, catalog, task);
  read_correctness(root, task);
  read_baseline(root, task);
  read_prompt(root, task);
  return task;
}

}  // namespace ptxb
