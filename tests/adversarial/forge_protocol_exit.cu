// Hostile submission: forged worker protocol lines, then a quiet exit.
//
// Attack: like forge_protocol.cu (a passing "case" line for every shape x seed x distribution,
// "correctness_done" and "done", written to fd 3 and to the job's result_file when there is
// one), but the first ptxb_plan then ends the worker at once with _exit(0), so no genuine case
// line ever follows the forged ones. A parent that reads the lines at face value sees a complete,
// all-passing run that ended with status 0.
// Caught by: authenticated messages: the forged lines carry no valid authentication (and the
// worker's own final message never comes). The cheat takes precedence over the early end.
// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=rejected_cheat
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

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

// The task's shapes as the worker reports them (shape_json sorts the keys), with `hidden`.
struct ForgedShape {
  int M, N, K;
  bool hidden;
};
constexpr ForgedShape kShapes[] = {
    {1024, 1024, 1024, false}, {2048, 512, 1024, false}, {4096, 4096, 4096, false},
    {8192, 8192, 8192, false}, {1000, 1000, 1000, true}, {4000, 3000, 2000, true},
    {1537, 2049, 776, true},   {128, 8192, 8192, true},  {64, 4096, 1536, true}};
constexpr int kSeeds[] = {1, 2, 3};
constexpr const char* kDistributions[] = {"normal", "small_int"};

// Every line the worker would send for a clean run, from the first case to "done".
std::string forged_lines() {
  std::string out;
  char line[1024];
  int index = 0;
  for (const ForgedShape& s : kShapes) {
    for (int seed : kSeeds) {
      for (const char* dist : kDistributions) {
        std::snprintf(line, sizeof line,
                      "{\"distribution\":\"%s\",\"hidden\":%s,\"modified_input_bytes\":0,"
                      "\"outputs\":[{\"count\":%lld,\"max_abs_error\":0.0,\"max_rel_error\":0.0,"
                      "\"mismatches\":0,\"name\":\"C\",\"nan_count\":0,\"passed\":true,"
                      "\"rel_frobenius\":0.0}],\"passed\":true,\"run_status\":0,\"seed\":%d,"
                      "\"shape\":{\"K\":%d,\"M\":%d,\"N\":%d},\"shape_index\":%d,"
                      "\"type\":\"case\"}\n",
                      dist, s.hidden ? "true" : "false", static_cast<long long>(s.M) * s.N, seed,
                      s.K, s.M, s.N, index);
        out += line;
      }
    }
    ++index;
  }
  out += "{\"passed\":true,\"type\":\"correctness_done\"}\n";
  out += "{\"type\":\"done\"}\n";
  return out;
}

void write_all(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

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

void forge_everywhere() {
  const std::string lines = forged_lines();
  write_all(3, lines);  // the worker's result pipe (fails harmlessly when fd 3 is something else)
  const std::string result_file = json_string_field(job_text(), "result_file");
  if (!result_file.empty()) {
    const int fd = open(result_file.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd >= 0) {
      write_all(fd, lines);
      close(fd);
    }
  }
}

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  if (!gemm_dims(*problem)) return kBadProblem;
  *workspace_bytes = 0;
  forge_everywhere();
  _exit(0);  // no atexit handlers, no flush: the worker simply stops here
}

extern "C" int ptxb_run(const ptxb_args* args) {
  return gemm_dims(*args->problem) ? PTXB_OK : kBadProblem;  // never reached
}
