// Where PTXBench's own files (tasks/, include/, .tools/) live: PTXBENCH_HOME when set (a build
// used from another folder or machine), otherwise the source folder the binaries were built from.
#pragma once

#include <filesystem>

namespace ptxb {

std::filesystem::path ptxbench_home();

}  // namespace ptxb
