// Shapes, shape grids and regimes of a task.toml (see shape_reading.hpp).
#include "tasks/shape_reading.hpp"

#include <algorithm>
#include <map>

#include "families/family.hpp"

namespace ptxb::tasks_detail {
namespace {

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// A dimension's size, checked: positive and a multiple of the task's rule for it. `field` names
// where it was written ("M", "M[3]", "tuples[2][0]").
int64_t checked_size(const TableReader& reader, const std::string& field, const TaskSpec& task,
                     const std::string& dim, int64_t size) {
  if (size < 1) reader.fail(field, "must be a positive integer, got " + std::to_string(size));
  if (const auto divisor = task.multiple_of.find(dim); divisor && size % *divisor != 0)
    reader.fail(field, std::to_string(size) + " is not a multiple of " + std::to_string(*divisor) +
                           " (multiple_of." + dim + ")");
  return size;
}

// A shape from its sizes (in task.dims order) and flags; FLOPs and bytes by the family's rules.
ShapeCase make_shape(const TaskSpec& task, const std::vector<int64_t>& sizes, bool causal,
                     bool hidden, bool timed) {
  ShapeCase shape;
  for (size_t i = 0; i < task.dims.size(); ++i)
    shape.shape.dims.emplace_back(task.dims[i], sizes[i]);
  if (family_of(task.family).has_causal_flag())
    shape.shape.dims.emplace_back("causal", causal ? 1 : 0);
  shape.hidden = hidden;
  shape.timed = timed;
  shape.flops = family_of(task.family).flops(shape.shape);
  for (const TensorSpec& tensor : task.tensors) shape.bytes += tensor_bytes(tensor, shape.shape);
  return shape;
}

std::optional<bool> read_causal(const TableReader& reader, const TaskSpec& task) {
  const std::optional<bool> causal = reader.optional_boolean("causal");
  if (causal && !family_of(task.family).has_causal_flag())
    reader.fail("causal", "family " + task.family + " has no causal mask");
  return causal;
}

ShapeCase read_shape(const TableReader& reader, const TaskSpec& task) {
  std::vector<std::string> known = task.dims;
  known.insert(known.end(), {"hidden", "timed", "causal"});
  reader.only_keys(known);
  std::vector<int64_t> sizes;
  for (const std::string& dim : task.dims)
    sizes.push_back(checked_size(reader, dim, task, dim, reader.integer(dim)));
  return make_shape(task, sizes, read_causal(reader, task).value_or(false),
                    reader.optional_boolean("hidden").value_or(false),
                    reader.optional_boolean("timed").value_or(false));
}

// Every combination of one tuple (the values of `tuple_dims`) and one value of each other
// dimension's list, tuple-major, then the other dimensions in task.dims order.
std::vector<ShapeCase> read_grid(const TableReader& reader, const TaskSpec& task) {
  std::vector<std::string> known = task.dims;
  known.insert(known.end(), {"tuple_dims", "tuples", "hidden", "causal"});
  reader.only_keys(known);
  const std::vector<std::string> tuple_dims =
      reader.optional_string_list("tuple_dims").value_or(std::vector<std::string>{});
  for (size_t i = 0; i < tuple_dims.size(); ++i) {
    const std::string field = "tuple_dims[" + std::to_string(i) + "]";
    if (!contains(task.dims, tuple_dims[i]))
      reader.fail(field, "'" + tuple_dims[i] + "' is not one of dims");
    if (reader.has(tuple_dims[i]))
      reader.fail(tuple_dims[i], "is given by tuples (it is in tuple_dims)");
    if (std::count(tuple_dims.begin(), tuple_dims.end(), tuple_dims[i]) > 1)
      reader.fail(field, "duplicate dimension '" + tuple_dims[i] + "'");
  }
  std::vector<std::vector<int64_t>> tuples = {{}};
  if (!tuple_dims.empty())
    tuples = reader.integer_rows("tuples", tuple_dims.size());
  else if (reader.has("tuples"))
    reader.fail("tuples", "needs tuple_dims");
  if (tuples.empty()) reader.fail("tuples", "must list at least one tuple");
  for (size_t t = 0; t < tuples.size(); ++t)
    for (size_t j = 0; j < tuple_dims.size(); ++j)
      checked_size(reader, "tuples[" + std::to_string(t) + "][" + std::to_string(j) + "]", task,
                   tuple_dims[j], tuples[t][j]);
  // The other dimensions' value lists, in task.dims order.
  std::map<std::string, std::vector<int64_t>> lists;
  for (const std::string& dim : task.dims) {
    if (contains(tuple_dims, dim)) continue;
    std::vector<int64_t>& values = lists[dim] = reader.integer_list(dim);
    if (values.empty()) reader.fail(dim, "must list at least one value");
    for (size_t i = 0; i < values.size(); ++i)
      checked_size(reader, dim + "[" + std::to_string(i) + "]", task, dim, values[i]);
  }
  const bool causal = read_causal(reader, task).value_or(false);
  const bool hidden = reader.optional_boolean("hidden").value_or(false);
  std::vector<ShapeCase> out;
  for (const std::vector<int64_t>& tuple : tuples) {
    // An odometer over the other dimensions' lists.
    std::map<std::string, size_t> at;
    for (bool more = true; more;) {
      std::vector<int64_t> sizes;
      for (const std::string& dim : task.dims) {
        const auto pos = std::find(tuple_dims.begin(), tuple_dims.end(), dim);
        sizes.push_back(pos != tuple_dims.end() ? tuple[pos - tuple_dims.begin()]
                                                : lists[dim][at[dim]]);
      }
      out.push_back(make_shape(task, sizes, causal, hidden, false));
      more = false;
      for (auto it = task.dims.rbegin(); it != task.dims.rend() && !more; ++it) {
        if (contains(tuple_dims, *it)) continue;
        if (++at[*it] < lists[*it].size())
          more = true;
        else
          at[*it] = 0;
      }
    }
  }
  return out;
}

}  // namespace

void read_shapes(const TableReader& root, TaskSpec& task) {
  if (!root.has("shapes") && !root.has("shape_grids"))
    root.fail("shapes", "required field is missing (give [[shapes]], [[shape_grids]] or both)");
  std::vector<TableReader> tables =
      root.has("shapes") ? root.table_list("shapes") : std::vector<TableReader>{};
  for (size_t i = 0; i < tables.size(); ++i) {
    ShapeCase shape = read_shape(tables[i], task);
    for (size_t j = 0; j < task.shapes.size(); ++j)
      if (task.shapes[j].shape == shape.shape)
        tables[i].fail("", "duplicate shape (" + shape.shape.to_string() + ") already in shapes[" +
                               std::to_string(j) + "]");
    task.shapes.push_back(std::move(shape));
  }
  const size_t explicit_shapes = task.shapes.size();
  std::vector<size_t> grid_of;  // for each grid shape added, the grid it came from
  std::vector<TableReader> grids =
      root.has("shape_grids") ? root.table_list("shape_grids") : std::vector<TableReader>{};
  for (size_t g = 0; g < grids.size(); ++g) {
    for (ShapeCase& shape : read_grid(grids[g], task)) {
      const auto same = std::find_if(task.shapes.begin(), task.shapes.end(),
                                     [&](const ShapeCase& s) { return s.shape == shape.shape; });
      const size_t index = static_cast<size_t>(same - task.shapes.begin());
      if (same == task.shapes.end()) {
        task.shapes.push_back(std::move(shape));
        grid_of.push_back(g);
      } else if (index >= explicit_shapes) {
        grids[g].fail("", "shape (" + shape.shape.to_string() + ") is also in shape_grids[" +
                              std::to_string(grid_of[index - explicit_shapes]) + "]");
      } else if (same->hidden != shape.hidden) {
        tables[index].fail("hidden", "shape (" + shape.shape.to_string() + ") is " +
                                         (shape.hidden ? "hidden" : "visible") +
                                         " in shape_grids[" + std::to_string(g) +
                                         "]; say the same here");
      }
    }
  }
  if (task.visible_shapes().empty()) root.fail("shapes", "needs at least one visible shape");
  if (task.hidden_shapes().empty())
    root.fail("shapes", "needs at least one hidden shape (hidden = true)");
  if (std::none_of(task.shapes.begin(), task.shapes.end(), [](auto& s) { return s.timed; }))
    root.fail("shapes", "needs at least one timed shape (timed = true)");
}

void read_regimes(const TableReader& root, TaskSpec& task) {
  if (!root.has("regimes")) return;
  std::vector<TableReader> tables = root.table_list("regimes");
  if (tables.empty()) root.fail("regimes", "must list at least one regime when given");
  for (const TableReader& reader : tables) {
    reader.only_keys({"name", "min", "max"});
    RegimeSpec regime;
    regime.name = reader.string("name");
    if (regime.name.empty()) reader.fail("name", "must not be empty");
    for (const RegimeSpec& seen : task.regimes)
      if (seen.name == regime.name) reader.fail("name", "duplicate regime '" + regime.name + "'");
    for (const char* side : {"min", "max"}) {
      if (!reader.has(side)) continue;
      const TableReader bounds = reader.table(side);
      Shape& out = std::string(side) == "min" ? regime.min : regime.max;
      for (const std::string& dim : bounds.keys()) {
        if (!contains(task.dims, dim)) bounds.fail(dim, "'" + dim + "' is not one of dims");
        out.dims.emplace_back(dim, bounds.integer(dim));
      }
    }
    task.regimes.push_back(std::move(regime));
  }
  for (ShapeCase& sc : task.shapes) {
    const auto it = std::find_if(task.regimes.begin(), task.regimes.end(),
                                 [&](const RegimeSpec& r) { return r.contains(sc.shape); });
    if (it == task.regimes.end())
      root.fail("regimes", "shape (" + sc.shape.to_string() +
                               ") is in no regime (add a last regime without bounds)");
    sc.regime = it->name;
  }
}

}  // namespace ptxb::tasks_detail
