#include "core/shape.hpp"

#include "core/error.hpp"

namespace ptxb {

std::optional<int64_t> Shape::find(std::string_view name) const {
  for (const auto& [dim, size] : dims)
    if (dim == name) return size;
  return std::nullopt;
}

int64_t Shape::at(std::string_view name) const {
  auto size = find(name);
  PTXB_ASSERT(size.has_value(), "unknown dimension " + std::string(name));
  return *size;
}

std::string Shape::to_string() const {
  std::string out;
  for (const auto& [name, value] : dims) {
    if (!out.empty()) out += ' ';
    out += name + "=" + std::to_string(value);
  }
  return out;
}

}  // namespace ptxb
