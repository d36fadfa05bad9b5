// Reading a task's shapes (docs/tasks.md, "Shapes", "Shape grids", "Regimes"): explicit
// [[shapes]], [[shape_grids]] that expand to every combination of their values, and the
// [[regimes]] that name classes of shapes (decode, prefill). Internal to src/tasks (spec.cpp).
#pragma once

#include "tasks/spec.hpp"
#include "tasks/toml_reader.hpp"

namespace ptxb::tasks_detail {

/// Reads [[shapes]] and [[shape_grids]] into task.shapes: explicit shapes first, in file order,
/// then each grid's combinations; an explicit shape replaces the grid's shape of the same extents
/// (to mark it timed) and must agree with it on `hidden`. Needs task.dims, tensors and
/// multiple_of. Throws InputError naming the field.
void read_shapes(const TableReader& root, TaskSpec& task);

/// Reads [[regimes]] into task.regimes and sets every shape's regime: the first regime whose
/// bounds the shape meets; with regimes, every shape must meet one. Call after read_shapes.
void read_regimes(const TableReader& root, TaskSpec& task);

}  // namespace ptxb::tasks_detail
