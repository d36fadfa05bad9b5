// JSON views of task specs (see task_json.hpp).
#include "tasks/task_json.hpp"

namespace ptxb {
namespace {

nlohmann::json shape_case_json(const ShapeCase& shape) {
  nlohmann::json out = shape_json(shape.shape);
  out["hidden"] = shape.hidden;
  out["timed"] = shape.timed;
  out["flops"] = shape.flops;
  out["bytes"] = shape.bytes;
  // NOTE: only when set, so that the definitions (and hashes) of tasks without regimes keep
  // their text.
  if (!shape.regime.empty()) out["regime"] = shape.regime;
  return out;
}

nlohmann::json tensors_json(const TaskSpec& task) {
  nlohmann::json out = nlohmann::json::array();
  for (const TensorSpec& tensor : task.tensors) {
    nlohmann::json t = {{"name", tensor.name},
                        {"role", to_string(tensor.role)},
                        {"dtype", to_string(tensor.dtype)},
                        {"shape", tensor.dims},
                        {"layout", tensor.layout}};
    if (tensor.values) {
      t["values"] = {{"kind", tensor.values->kind}, {"total", tensor.values->total}};
      // NOTE: only where present, so the definition hash of tasks without it is unchanged.
      const StructuredValues& v = *tensor.values;
      for (const auto& [key, value] :
           {std::pair{"max", &v.max}, std::pair{"min", &v.min}, std::pair{"lengths", &v.lengths},
            std::pair{"page", &v.page}, std::pair{"pages", &v.pages}})
        if (!value->empty()) t["values"][key] = *value;
    }
    out.push_back(std::move(t));
  }
  return out;
}

nlohmann::json regimes_json(const TaskSpec& task) {
  nlohmann::json out = nlohmann::json::array();
  for (const RegimeSpec& r : task.regimes)
    out.push_back({{"name", r.name}, {"min", shape_json(r.min)}, {"max", shape_json(r.max)}});
  return out;
}

nlohmann::json targets_json(const TaskSpec& task) {
  nlohmann::json out = nlohmann::json::array();
  for (const TargetSpec& target : task.targets) {
    out.push_back(
        {{"instruction", target.instruction},
         {"required", to_string(target.required)},
         {"min_flop_share", target.min_flop_share},
         {"max_nontarget_flop_share", target.max_nontarget_flop_share},
         {"max_nontarget_integer_share", target.max_nontarget_integer_share},
         {"max_nontarget_instructions_per_mac", target.max_nontarget_instructions_per_mac}});
    if (target.max_other_read_input_share)
      out.back()["max_other_read_input_share"] = *target.max_other_read_input_share;
  }
  return out;
}

nlohmann::json output_tolerances_json(const DistributionSpec& dist) {
  nlohmann::json out = nlohmann::json::object();
  for (const OutputTolerance& o : dist.outputs)
    out[o.output] = {{"atol", o.atol},
                     {"atol_rms", o.atol_rms},
                     {"rtol", o.rtol},
                     {"max_rel_frobenius", o.max_rel_frobenius}};
  return out;
}

nlohmann::json correctness_json(const CorrectnessSpec& spec) {
  nlohmann::json distributions = nlohmann::json::array();
  for (const DistributionSpec& dist : spec.distributions) {
    distributions.push_back({{"name", dist.name},
                             {"kind", to_string(dist.kind)},
                             {"scale", dist.scale},
                             {"atol", dist.atol},
                             {"atol_rms", dist.atol_rms},
                             {"rtol", dist.rtol},
                             {"max_rel_frobenius", dist.max_rel_frobenius},
                             {"round_reference", dist.round_reference},
                             {"outputs", output_tolerances_json(dist)}});
  }
  return {{"reference", spec.reference}, {"seeds", spec.seeds}, {"distributions", distributions}};
}

}  // namespace

nlohmann::json shape_json(const Shape& shape) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, size] : shape.dims) out[name] = size;
  return out;
}

const ShapeCase* find_shape(const TaskSpec& task, const nlohmann::json& shape) {
  for (const ShapeCase& sc : task.shapes) {
    bool same = shape.is_object() && shape.size() == sc.shape.dims.size();
    for (const auto& [name, size] : sc.shape.dims)
      same = same && shape.contains(name) && shape[name] == size;
    if (same) return &sc;
  }
  return nullptr;
}

std::string shape_label(const TaskSpec& task, const ShapeCase& sc) {
  if (!sc.hidden) return sc.shape.to_string();
  int index = 0;
  for (const ShapeCase* h : task.hidden_shapes()) {
    ++index;
    if (h == &sc) break;
  }
  return "hidden shape #" + std::to_string(index);
}

nlohmann::json task_summary_json(const TaskSpec& task) {
  nlohmann::json targets = nlohmann::json::array();
  for (const TargetSpec& target : task.targets) targets.push_back(target.instruction);
  return {{"id", task.id},
          {"title", task.title},
          {"arch", task.arch},
          {"family", task.family},
          {"level", task.level},
          {"targets", targets},
          {"visible_shapes", task.visible_shapes().size()},
          {"hidden_shapes", task.hidden_shapes().size()}};
}

nlohmann::json task_detail_json(const TaskSpec& task, HiddenShapes hidden) {
  nlohmann::json out = task_summary_json(task);
  out["dims"] = task.dims;
  out["scalars"] = task.scalars;
  out["multiple_of"] = shape_json(task.multiple_of);
  out["tensors"] = tensors_json(task);
  nlohmann::json shapes = nlohmann::json::array();
  for (const ShapeCase& shape : task.shapes)
    if (!shape.hidden || hidden == HiddenShapes::kInclude) shapes.push_back(shape_case_json(shape));
  out["shapes"] = shapes;
  if (!task.regimes.empty()) out["regimes"] = regimes_json(task);
  out["targets"] = targets_json(task);
  out["correctness"] = correctness_json(task.correctness);
  out["baseline"] = {{"library", task.baseline.library},
                     {"heuristic_algos", task.baseline.heuristic_algos},
                     {"workspace_bytes", task.baseline.workspace_bytes}};
  out["dir"] = task.dir.string();
  return out;
}

}  // namespace ptxb
