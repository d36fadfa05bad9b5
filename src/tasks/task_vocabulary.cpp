// The vocabulary around TaskSpec (evidence levels, roles, distribution kinds, shape lists, tensor
// sizes, scalar values): what the worker needs of a task, without the TOML loader.
#include <algorithm>
#include <array>

#include "core/error.hpp"
#include "tasks/spec.hpp"

namespace ptxb {
namespace {

constexpr std::array<std::pair<EvidenceLevel, std::string_view>, 4> kLevels{{
    {EvidenceLevel::kS0, "S0"},
    {EvidenceLevel::kS1, "S1"},
    {EvidenceLevel::kR1, "R1"},
    {EvidenceLevel::kR2, "R2"},
}};

}  // namespace

std::string_view to_string(EvidenceLevel level) {
  for (const auto& [value, name] : kLevels)
    if (value == level) return name;
  PTXB_ASSERT(false, "unknown evidence level");
  return {};
}

std::optional<EvidenceLevel> evidence_level_from_string(std::string_view name) {
  for (const auto& [value, level_name] : kLevels)
    if (level_name == name) return value;
  return std::nullopt;
}

std::string_view to_string(TensorRole role) { return role == TensorRole::kInput ? "in" : "out"; }

std::string_view to_string(DistributionSpec::Kind kind) {
  return kind == DistributionSpec::Kind::kNormal ? "normal" : "uniform_int";
}

bool is_literal_extent(const std::string& dim) {
  return !dim.empty() && dim.size() <= 9 && dim[0] != '0' &&
         std::all_of(dim.begin(), dim.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<BlockedExtent> blocked_extent(const std::string& dim) {
  const size_t slash = dim.find('/');
  if (slash == std::string::npos || slash == 0) return std::nullopt;
  const std::string block = dim.substr(slash + 1);
  if (!is_literal_extent(block)) return std::nullopt;
  return BlockedExtent{dim.substr(0, slash), std::stoll(block)};
}

std::optional<PlusExtent> plus_extent(const std::string& dim) {
  const size_t plus = dim.find('+');
  if (plus == std::string::npos || plus == 0) return std::nullopt;
  const std::string added = dim.substr(plus + 1);
  if (!is_literal_extent(added)) return std::nullopt;
  return PlusExtent{dim.substr(0, plus), std::stoll(added)};
}

int64_t extent(const std::string& dim, const Shape& shape) {
  if (is_literal_extent(dim)) return std::stoll(dim);
  if (const auto plus = plus_extent(dim)) return shape.at(plus->dim) + plus->added;
  if (const auto blocked = blocked_extent(dim))
    return (shape.at(blocked->dim) + blocked->block - 1) / blocked->block;
  return shape.at(dim);
}

double tensor_bytes(const TensorSpec& tensor, const Shape& shape) {
  double elements = 1;
  for (const std::string& dim : tensor.dims) elements *= static_cast<double>(extent(dim, shape));
  return elements * static_cast<double>(size_bytes(tensor.dtype));
}

std::vector<double> scalar_values(const TaskSpec& task, const Shape& shape) {
  const Family& family = family_of(task.family);
  std::vector<double> values;
  for (const std::string& name : task.scalars) values.push_back(family.scalar_value(name, shape));
  return values;
}

std::vector<const TensorSpec*> TaskSpec::inputs() const {
  std::vector<const TensorSpec*> out;
  for (const TensorSpec& tensor : tensors)
    if (tensor.role == TensorRole::kInput) out.push_back(&tensor);
  return out;
}

std::vector<const TensorSpec*> TaskSpec::outputs() const {
  std::vector<const TensorSpec*> out;
  for (const TensorSpec& tensor : tensors)
    if (tensor.role == TensorRole::kOutput) out.push_back(&tensor);
  return out;
}

bool RegimeSpec::contains(const Shape& shape) const {
  for (const auto& [dim, bound] : min.dims)
    if (shape.at(dim) < bound) return false;
  for (const auto& [dim, bound] : max.dims)
    if (shape.at(dim) > bound) return false;
  return true;
}

std::vector<const ShapeCase*> TaskSpec::visible_shapes() const {
  std::vector<const ShapeCase*> out;
  for (const ShapeCase& shape : shapes)
    if (!shape.hidden) out.push_back(&shape);
  return out;
}

std::vector<const ShapeCase*> TaskSpec::hidden_shapes() const {
  std::vector<const ShapeCase*> out;
  for (const ShapeCase& shape : shapes)
    if (shape.hidden) out.push_back(&shape);
  return out;
}

}  // namespace ptxb
