// JSON views of task specs for `ptxbench tasks --json` and for records that name their task.
// Hidden shapes appear only when asked for explicitly.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "tasks/spec.hpp"

namespace ptxb {

enum class HiddenShapes {
  kCountOnly,  ///< "hidden_shapes": <count>; the default everywhere a model could read the output
  kInclude,    ///< hidden shapes listed too, each with "hidden": true
};

/// {id, title, arch, family, level, targets: [names], visible_shapes: n, hidden_shapes: n}.
nlohmann::json task_summary_json(const TaskSpec& task);

/// Everything in the spec except the prompt text: the summary's keys, with "targets" as objects
/// {instruction, required, min_flop_share}, plus dims, tensors, shapes (per `hidden`),
/// correctness, baseline and dir.
nlohmann::json task_detail_json(const TaskSpec& task, HiddenShapes hidden);

nlohmann::json shape_json(const Shape& shape);  ///< {"M": 4096, "N": 4096, "K": 4096}

/// The task's shape case whose sizes equal the JSON object `shape` (as in verdicts), or null.
const ShapeCase* find_shape(const TaskSpec& task, const nlohmann::json& shape);

/// What a model may be told about a shape: visible shapes by size ("M=4096 N=4096 K=4096"),
/// hidden ones by number only ("hidden shape #2", counting the task's hidden shapes from 1).
std::string shape_label(const TaskSpec& task, const ShapeCase& sc);

}  // namespace ptxb
