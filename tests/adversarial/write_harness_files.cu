// Hostile submission: tries to edit the harness's files from candidate code (reward hack 19).
//
// Attack: at the first ptxb_plan the candidate looks for this task's task.toml everywhere it
// could be: the "task_toml" path in the worker's own job file (argv[1], read from
// /proc/self/cmdline), $PTXBENCH_HOME/tasks/..., paths relative to the worker binary
// (/proc/self/exe: <exe dir>, .., ../..) and to the working directory (., .., ../..). It opens
// each for writing, the step that loosening the tolerances needs, and it also tries to create a
// file beside the worker binary. Every attempt and its result are printed to stderr.
// NOTE: an open that succeeds only appends a TOML comment line (which `git status` shows) and is
// reported as a sandbox hole; the file is never rewritten, so a failed sandbox costs a
// `git checkout`, not a corrupted task. ptxb_run then writes zeros to C (no GEMM).
// Caught by: Landlock (no writes outside the worker's private work dir): every open fails;
// the zero C fails the comparison. Expected outcome incorrect.
// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=incorrect
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace {

// ==== begin tests/adversarial/blocks/problem_checks.inc (generated: scripts/amalgamate.py) ====
// The problem checks of a hostile GEMM submission: is the problem C = A * B^T in row-major bf16?
// Hostile files hold a copy (scripts/amalgamate.py).
struct GemmDims {
  int M = 0, N = 0, K = 0;
};

bool is_row_major_2d(const ptxb_tensor_desc& t, int64_t rows, int64_t cols) {
  return t.dtype == PTXB_BF16 && t.rank == 2 && t.shape[0] == rows && t.shape[1] == cols &&
         t.strides[0] == cols && t.strides[1] == 1;
}

// The GEMM's dimensions, or nullopt when the problem is not C = A * B^T in row-major bf16 with
// K % 8 == 0 and every dimension in int range.
std::optional<GemmDims> gemm_dims(const ptxb_problem& p) {
  if (p.num_inputs != 2 || p.num_outputs != 1) return std::nullopt;
  const int64_t M = p.inputs[0].shape[0], K = p.inputs[0].shape[1], N = p.inputs[1].shape[0];
  if (M <= 0 || N <= 0 || K <= 0 || K % 8 != 0 || M > INT32_MAX || N > INT32_MAX || K > INT32_MAX)
    return std::nullopt;
  if (!is_row_major_2d(p.inputs[0], M, K) || !is_row_major_2d(p.inputs[1], N, K) ||
      !is_row_major_2d(p.outputs[0], M, N))
    return std::nullopt;
  return GemmDims{static_cast<int>(M), static_cast<int>(N), static_cast<int>(K)};
}

enum Status : int { kBadProblem = 1, kLaunchFailed = 3, kAttackFailed = 7 };
// ==== end tests/adversarial/blocks/problem_checks.inc ====

constexpr const char* kTaskFile = "tasks/sm90/gemm/bf16-wgmma/task.toml";
constexpr const char* kMarkerLine =
    "\n# write_harness_files.cu (hostile test): this file was writable from candidate code\n";
bool g_attempted = false;

std::string read_small_file(const char* path) {
  std::string out;
  std::FILE* f = std::fopen(path, "rb");
  if (f == nullptr) return out;
  char buf[4096];
  size_t n = 0;
  while (out.size() < (1u << 20) && (n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return out;
}

// The string value of "key" in a flat JSON object, without unescaping; empty when absent.
std::string json_string_field(const std::string& json, const std::string& key) {
  size_t at = json.find("\"" + key + "\"");
  if (at == std::string::npos) return {};
  at = json.find(':', at);
  if (at == std::string::npos) return {};
  at = json.find('"', at);
  if (at == std::string::npos) return {};
  const size_t end = json.find('"', at + 1);
  return end == std::string::npos ? std::string() : json.substr(at + 1, end - at - 1);
}

// The worker's job file (its argv[1]) as text; empty when unreadable.
std::string job_text() {
  const std::string cmdline = read_small_file("/proc/self/cmdline");
  const size_t first_nul = cmdline.find('\0');
  if (first_nul == std::string::npos) return {};
  const std::string job_path =
      cmdline.substr(first_nul + 1, cmdline.find('\0', first_nul + 1) - first_nul - 1);
  return job_path.empty() ? std::string() : read_small_file(job_path.c_str());
}

// The folder of the running executable (the worker), or empty.
std::string exe_dir() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return {};
  std::string path(buf, static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

std::vector<std::string> task_file_guesses() {
  std::vector<std::string> out;
  const std::string from_job = json_string_field(job_text(), "task_toml");
  if (!from_job.empty()) out.push_back(from_job);
  if (const char* home = std::getenv("PTXBENCH_HOME"))
    out.push_back(std::string(home) + "/" + kTaskFile);
  const std::string exe = exe_dir();
  if (!exe.empty())
    for (const char* up : {"/../../", "/../", "/"}) out.push_back(exe + up + kTaskFile);
  for (const char* up : {"../../", "../", ""}) out.push_back(std::string(up) + kTaskFile);
  return out;
}

// Opens `path` for writing without truncating; on success appends the marker and says so.
void try_append(const std::string& path, int extra_flags) {
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | extra_flags, 0644);
  if (fd < 0) {
    std::fprintf(stderr, "write_harness_files: open(%s) for writing failed: %s\n", path.c_str(),
                 std::strerror(errno));
    return;
  }
  const ssize_t n = write(fd, kMarkerLine, std::strlen(kMarkerLine));
  close(fd);
  std::fprintf(stderr,
               "write_harness_files: SANDBOX HOLE: opened %s for writing (appended %zd bytes)\n",
               path.c_str(), n);
}

void attack_harness_files() {
  for (const std::string& path : task_file_guesses()) try_append(path, 0);
  const std::string exe = exe_dir();
  if (!exe.empty()) try_append(exe + "/ptxbench-hostile-marker.txt", O_CREAT | O_EXCL);
  std::fflush(stderr);
}

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  if (!gemm_dims(*problem)) return kBadProblem;
  *workspace_bytes = 0;
  if (!g_attempted) {
    g_attempted = true;
    attack_harness_files();
  }
  return PTXB_OK;
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const std::optional<GemmDims> d = gemm_dims(*args->problem);
  if (!d) return kBadProblem;
  const size_t c_bytes = static_cast<size_t>(d->M) * static_cast<size_t>(d->N) * 2;
  return cudaMemsetAsync(args->outputs[0], 0, c_bytes, static_cast<cudaStream_t>(args->stream)) ==
                 cudaSuccess
             ? PTXB_OK
             : kLaunchFailed;
}
