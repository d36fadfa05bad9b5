#include "tasks/task_wire.hpp"

#include "core/error.hpp"
#include "tasks/task_json.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

[[noreturn]] void malformed(const std::string& field, const std::string& what) {
  throw InputError("task record: " + field + ": " + what);
}

template <typename T>
T get(const json& j, const char* field) {
  if (!j.contains(field)) malformed(field, "missing");
  try {
    return j.at(field).get<T>();
  } catch (const json::exception& e) {
    malformed(field, e.what());
  }
}

Shape shape_in_order(const TaskSpec& task, const json& j) {
  Shape shape;
  for (const std::string& dim : task.dims)
    shape.dims.emplace_back(dim, get<int64_t>(j, dim.c_str()));
  if (j.contains("causal")) shape.dims.emplace_back("causal", get<int64_t>(j, "causal"));
  return shape;
}

// A {dim: size} object as a Shape, in the object's (sorted) key order.
Shape shape_of(const json& j) {
  Shape shape;
  for (const auto& [dim, size] : j.items()) shape.dims.emplace_back(dim, size.get<int64_t>());
  return shape;
}

DistributionSpec distribution_from_json(const json& j) {
  DistributionSpec d;
  d.name = get<std::string>(j, "name");
  const std::string kind = get<std::string>(j, "kind");
  if (kind != "normal" && kind != "uniform_int") malformed("kind", "'" + kind + "'");
  d.kind = kind == "normal" ? DistributionSpec::Kind::kNormal : DistributionSpec::Kind::kUniformInt;
  d.scale = get<double>(j, "scale");
  d.atol = get<double>(j, "atol");
  d.atol_rms = get<double>(j, "atol_rms");
  d.rtol = get<double>(j, "rtol");
  d.max_rel_frobenius = get<double>(j, "max_rel_frobenius");
  d.round_reference = get<bool>(j, "round_reference");
  const json outputs = get<json>(j, "outputs");
  for (const auto& [output, t] : outputs.items())
    d.outputs.push_back({output, get<double>(t, "atol"), get<double>(t, "atol_rms"),
                         get<double>(t, "rtol"), get<double>(t, "max_rel_frobenius")});
  return d;
}

}  // namespace

TaskSpec task_from_json(const json& detail) {
  TaskSpec task;
  task.id = get<std::string>(detail, "id");
  task.title = get<std::string>(detail, "title");
  task.arch = get<std::string>(detail, "arch");
  task.family = get<std::string>(detail, "family");
  if (find_family(task.family) == nullptr) malformed("family", "'" + task.family + "'");
  task.level = get<int>(detail, "level");
  task.dims = get<std::vector<std::string>>(detail, "dims");
  task.scalars = get<std::vector<std::string>>(detail, "scalars");
  const json multiple_of = get<json>(detail, "multiple_of");
  for (const auto& [dim, divisor] : multiple_of.items())
    task.multiple_of.dims.emplace_back(dim, divisor.get<int64_t>());
  const json tensors = get<json>(detail, "tensors"), shapes = get<json>(detail, "shapes");
  const json targets = get<json>(detail, "targets");
  for (const json& t : tensors) {
    const auto dtype = dtype_from_string(get<std::string>(t, "dtype"));
    if (!dtype) malformed("tensors.dtype", t.dump());
    TensorSpec tensor{
        get<std::string>(t, "name"),
        get<std::string>(t, "role") == "in" ? TensorRole::kInput : TensorRole::kOutput,
        *dtype,
        get<std::vector<std::string>>(t, "shape"),
        get<std::string>(t, "layout"),
        std::nullopt};
    if (t.contains("values"))
      tensor.values = StructuredValues{
          get<std::string>(t["values"], "kind"),       get<std::string>(t["values"], "total"),
          t["values"].value("max", std::string()),     t["values"].value("min", std::string()),
          t["values"].value("lengths", std::string()), t["values"].value("page", std::string()),
          t["values"].value("pages", std::string())};
    task.tensors.push_back(std::move(tensor));
  }
  for (const json& s : shapes)
    task.shapes.push_back({shape_in_order(task, s), get<bool>(s, "hidden"), get<bool>(s, "timed"),
                           get<double>(s, "flops"), get<double>(s, "bytes"),
                           s.value("regime", std::string())});
  for (const json& r : detail.value("regimes", json::array()))
    task.regimes.push_back({get<std::string>(r, "name"), shape_of(get<json>(r, "min")),
                            shape_of(get<json>(r, "max"))});
  for (const json& t : targets) {
    const auto level = evidence_level_from_string(get<std::string>(t, "required"));
    if (!level) malformed("targets.required", t.dump());
    task.targets.push_back(
        {.instruction = get<std::string>(t, "instruction"),
         .required = *level,
         .min_flop_share = get<double>(t, "min_flop_share"),
         .max_nontarget_flop_share = get<double>(t, "max_nontarget_flop_share"),
         .max_nontarget_integer_share = get<double>(t, "max_nontarget_integer_share"),
         .max_nontarget_instructions_per_mac = get<double>(t, "max_nontarget_instructions_per_mac"),
         .max_other_read_input_share =
             t.contains("max_other_read_input_share")
                 ? std::optional<double>(get<double>(t, "max_other_read_input_share"))
                 : std::nullopt});
  }
  const json correctness = get<json>(detail, "correctness");
  task.correctness.reference = get<std::string>(correctness, "reference");
  task.correctness.seeds = get<std::vector<uint64_t>>(correctness, "seeds");
  const json distributions = get<json>(correctness, "distributions");
  for (const json& d : distributions)
    task.correctness.distributions.push_back(distribution_from_json(d));
  const json baseline = get<json>(detail, "baseline");
  task.baseline.library = get<std::string>(baseline, "library");
  task.baseline.heuristic_algos = get<int>(baseline, "heuristic_algos");
  task.baseline.workspace_bytes = get<int64_t>(baseline, "workspace_bytes");
  return task;
}

json counters_json(const std::vector<CounterSpec>& counters) {
  json out = json::array();
  for (const CounterSpec& c : counters)
    out.push_back(
        {{"metric", c.metric}, {"arch", c.arch}, {"tolerance", c.tolerance}, {"note", c.note}});
  return out;
}

std::vector<CounterSpec> counters_from_json(const json& j) {
  std::vector<CounterSpec> out;
  for (const json& c : j)
    out.push_back({get<std::string>(c, "metric"), get<std::string>(c, "arch"),
                   get<double>(c, "tolerance"), get<std::string>(c, "note")});
  return out;
}

}  // namespace ptxb
