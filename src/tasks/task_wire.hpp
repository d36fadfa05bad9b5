// A task as the parent hands it to the worker: the resolved spec (task_detail_json with hidden
// shapes) and the architecture's hardware counters, so that the worker parses no TOML and no
// catalog (it does not link the TOML parser) and every process judges the same task.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "tasks/catalog.hpp"
#include "tasks/spec.hpp"

namespace ptxb {

/// The inverse of task_detail_json(task, HiddenShapes::kInclude): every field the judge uses
/// (not the prompt, not the folder). Shapes keep the order of `dims` (then `causal`). Throws
/// InputError naming the field when `detail` is malformed.
TaskSpec task_from_json(const nlohmann::json& detail);

nlohmann::json counters_json(const std::vector<CounterSpec>& counters);
std::vector<CounterSpec> counters_from_json(const nlohmann::json& j);

}  // namespace ptxb
