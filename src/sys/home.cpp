#include "sys/home.hpp"

#include <cstdlib>

namespace ptxb {

std::filesystem::path ptxbench_home() {
  const char* env = std::getenv("PTXBENCH_HOME");
  if (env != nullptr && *env != '\0') return std::filesystem::path(env);
  return std::filesystem::path(PTXB_SOURCE_DIR);
}

}  // namespace ptxb
