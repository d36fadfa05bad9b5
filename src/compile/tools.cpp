// Tool and cache locations (see tools.hpp) and the per-process nvcc version.
#include "compile/tools.hpp"

#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>

#include "core/error.hpp"
#include "sys/files.hpp"
#include "sys/home.hpp"
#include "sys/process.hpp"

namespace ptxb {
namespace fs = std::filesystem;
namespace {

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

bool is_executable(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

fs::path find_executable(const std::string& program) {
  if (program.empty()) return {};
  if (program.find('/') != std::string::npos)
    return is_executable(program) ? fs::path(program) : fs::path();
  std::istringstream dirs(env_or_empty("PATH"));
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    fs::path candidate = fs::path(dir) / program;
    if (is_executable(candidate)) return candidate;
  }
  return {};
}

fs::path find_cuda_tool(const char* env_var, const std::string& program) {
  if (auto env = env_or_empty(env_var); !env.empty()) return find_executable(env);
  if (fs::path found = find_executable(program); !found.empty()) return found;
  return find_executable("/usr/local/cuda/bin/" + program);
}

fs::path default_nvcc() {
  if (auto env = env_or_empty("PTXBENCH_NVCC"); !env.empty()) return env;
#ifdef PTXB_NVCC_PATH
  if (std::string built = PTXB_NVCC_PATH; !built.empty()) return built;
#endif
  return "nvcc";
}

fs::path default_cuobjdump() {
  if (auto env = env_or_empty("PTXBENCH_CUOBJDUMP"); !env.empty()) return env;
  if (fs::path bundled = ptxbench_home() / ".tools" / "bin" / "cuobjdump"; is_executable(bundled))
    return bundled;
  fs::path nvcc = find_executable(default_nvcc().string());
  if (!nvcc.empty()) {
    // NOTE: follow a symlinked nvcc (e.g. /usr/bin/nvcc -> /usr/local/cuda/bin/nvcc) to its
    // toolkit.
    std::error_code ec;
    fs::path real = fs::canonical(nvcc, ec);
    for (const fs::path& p : {nvcc, ec ? nvcc : real}) {
      if (fs::path beside = p.parent_path() / "cuobjdump"; is_executable(beside)) return beside;
    }
  }
  return {};
}

fs::path default_cache_dir() {
  if (auto env = env_or_empty("PTXBENCH_CACHE_DIR"); !env.empty()) return fs::path(env) / "compile";
  if (auto xdg = env_or_empty("XDG_CACHE_HOME"); !xdg.empty())
    return fs::path(xdg) / "ptxbench" / "compile";
  if (auto home = env_or_empty("HOME"); !home.empty())
    return fs::path(home) / ".cache" / "ptxbench" / "compile";
  return fs::temp_directory_path() / "ptxbench-cache" / "compile";
}

fs::path default_abi_include_dir() { return ptxbench_home() / "include"; }

const std::string& nvcc_version(const fs::path& nvcc) {
  static std::mutex mutex;
  static std::map<std::string, std::string> versions;
  std::lock_guard lock(mutex);
  auto it = versions.find(nvcc.string());
  if (it != versions.end()) return it->second;

  TempDir tmp("ptxbench-nvcc-version");
  ProcessSpec spec;
  spec.argv = {nvcc.string(), "--version"};
  spec.extra_env = {"NVCC_PREPEND_FLAGS=", "NVCC_APPEND_FLAGS="};
  spec.stdout_path = tmp.path() / "version.txt";
  spec.deadline = std::chrono::seconds(60);
  ProcessResult run = run_process(spec);
  std::string text = read_text_file(spec.stdout_path);
  if (!run.ok() || text.empty()) {
    throw_api("nvcc", "nvcc --version", run.exit_code.value_or(-1), nvcc.string(),
              run.describe() + (text.empty() ? "" : ": " + text), __FILE__, __LINE__);
  }
  return versions.emplace(nvcc.string(), std::move(text)).first->second;
}

}  // namespace ptxb
