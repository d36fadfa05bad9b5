// Problem shapes: named dimension sizes such as M=4096 N=4096 K=4096, in the task's order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptxb {

/// Sizes of a task's symbolic dimensions, kept in the order the task declares them.
struct Shape {
  std::vector<std::pair<std::string, int64_t>> dims;

  std::optional<int64_t> find(std::string_view name) const;
  /// The size of `name`; throws InternalError if the dimension is unknown.
  int64_t at(std::string_view name) const;
  /// "M=4096 N=4096 K=4096".
  std::string to_string() const;
  bool operator==(const Shape&) const = default;
};

}  // namespace ptxb
