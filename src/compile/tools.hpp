// Where the static stage finds its tools and its cache. These read the environment, so call them
// once where settings are gathered (CLI, config) and pass the paths down in CompileOptions.
#pragma once

#include <filesystem>
#include <string>

namespace ptxb {

/// nvcc: $PTXBENCH_NVCC, else the nvcc CMake found (PTXB_NVCC_PATH), else "nvcc" (PATH search).
std::filesystem::path default_nvcc();

/// cuobjdump: $PTXBENCH_CUOBJDUMP, else <source>/.tools/bin/cuobjdump (scripts/bootstrap.sh puts
/// the PyPI wheel there) if executable, else the cuobjdump next to default_nvcc(), else empty:
/// SASS is then unavailable.
std::filesystem::path default_cuobjdump();

/// $PTXBENCH_CACHE_DIR, else $XDG_CACHE_HOME/ptxbench, else ~/.cache/ptxbench; always with a
/// "compile" subfolder appended.
std::filesystem::path default_cache_dir();

/// The folder holding ptxbench/abi.h in this checkout (<source>/include).
std::filesystem::path default_abi_include_dir();

/// The first executable named `program` on $PATH, or empty. A name with a '/' is returned as is
/// when executable.
std::filesystem::path find_executable(const std::string& program);

/// A CUDA toolkit tool: $`env_var` if set (checked to be executable), else `program` on PATH,
/// else /usr/local/cuda/bin/`program`; empty when none is executable.
std::filesystem::path find_cuda_tool(const char* env_var, const std::string& program);

/// `nvcc --version` output, run once per nvcc path per process (cached, thread-safe). Throws
/// ApiError when nvcc cannot be run.
const std::string& nvcc_version(const std::filesystem::path& nvcc);

}  // namespace ptxb
