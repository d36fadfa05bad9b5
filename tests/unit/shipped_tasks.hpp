// The repository's tasks folder and its instruction catalog as the unit tests read them: the
// catalog is loaded once per test binary.
#pragma once

#include <filesystem>

#include "tasks/catalog.hpp"

namespace ptxb::testing {

inline const std::filesystem::path kTasksRoot = std::filesystem::path(PTXB_SOURCE_DIR) / "tasks";

inline const Catalog& catalog() {
  static const Catalog loaded = load_catalog(kTasksRoot / "catalog");
  return loaded;
}

}  // namespace ptxb::testing
