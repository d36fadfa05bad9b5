// Helpers of the GEMM probe harnesses (gemm_probe.cu, grouped_probe.cu, fp8_probe.cu): an exit on
// a failing CUDA or library call, a submission loaded from its shared object and planned, tensor
// descriptors, random bf16 inputs, one cold call timed (L2 flushed, the stream held by a spin
// kernel while the host enqueues it), and the median of samples.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <ptxbench/abi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

#define CHECK(call)                                                                         \
  do {                                                                                      \
    if (auto status_ = (call); status_ != 0) {                                              \
      std::fprintf(stderr, "%s failed (%d) at line %d\n", #call, static_cast<int>(status_), \
                   __LINE__);                                                               \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

ptxb_tensor_desc row_major(int64_t rows, int64_t cols) {
  ptxb_tensor_desc t{};
  t.dtype = PTXB_BF16;
  t.rank = 2;
  t.shape[0] = rows;
  t.shape[1] = cols;
  t.strides[0] = cols;
  t.strides[1] = 1;
  return t;
}

void* random_bf16(int64_t count, unsigned seed) {
  std::vector<__nv_bfloat16> host(static_cast<size_t>(count));
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.f, 1.f);
  for (auto& x : host) x = __float2bfloat16_rn(dist(gen));
  void* d = nullptr;
  CHECK(cudaMalloc(&d, host.size() * 2));
  CHECK(cudaMemcpy(d, host.data(), host.size() * 2, cudaMemcpyHostToDevice));
  return d;
}

// Keeps the stream busy for about `cycles` clocks, so that a call's host side (tensor maps,
// cuBLASLt's checks) is enqueued before the GPU reaches its start event.
__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

// The entry points of a submission built as a shared object; exits when it cannot be loaded or
// lacks ptxb_run. `plan` is null where the object has no ptxb_plan.
struct Submission {
  ptxb_run_fn run = nullptr;
  ptxb_plan_fn plan = nullptr;
};

Submission load_submission(const char* path) {
  void* so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (so == nullptr) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    std::exit(1);
  }
  Submission s{reinterpret_cast<ptxb_run_fn>(dlsym(so, "ptxb_run")),
               reinterpret_cast<ptxb_plan_fn>(dlsym(so, "ptxb_plan"))};
  if (s.run == nullptr) {
    std::fprintf(stderr, "no ptxb_run in %s\n", path);
    std::exit(1);
  }
  return s;
}

// The submission's workspace for `problem` (its ptxb_plan, when it has one), allocated; `bytes`
// its size.
struct Workspace {
  void* data = nullptr;
  uint64_t bytes = 0;
};

Workspace plan_workspace(const Submission& s, const ptxb_problem& problem) {
  Workspace w;
  if (s.plan != nullptr) CHECK(s.plan(&problem, &w.bytes));
  if (w.bytes > 0) CHECK(cudaMalloc(&w.data, w.bytes));
  return w;
}

// One C = A * B^T bf16 call of a submission: random A (M, K) and B (N, K) (seeds 1 and 2), C
// (M, N), the workspace its ptxb_plan asks for, a stream of its own, and the ABI arguments that
// point at them (so it neither copies nor moves).
struct GemmCall {
  GemmCall(const Submission& sub, int64_t M, int64_t N, int64_t K)
      : a(random_bf16(M * K, 1)),
        b(random_bf16(N * K, 2)),
        inputs{row_major(M, K), row_major(N, K)},
        outputs{row_major(M, N)},
        problem{PTXB_ABI_VERSION, 2, 1, 0, inputs, outputs, nullptr},
        workspace(plan_workspace(sub, problem)) {
    CHECK(cudaMalloc(&c, M * N * 2));
    CHECK(cudaStreamCreate(&stream));
    in_ptrs[0] = a;
    in_ptrs[1] = b;
    out_ptrs[0] = c;
    args = {&problem, in_ptrs, out_ptrs, workspace.data, workspace.bytes, stream};
  }
  GemmCall(const GemmCall&) = delete;
  GemmCall& operator=(const GemmCall&) = delete;

  void* a;
  void* b;
  void* c = nullptr;
  ptxb_tensor_desc inputs[2];
  ptxb_tensor_desc outputs[1];
  ptxb_problem problem;
  Workspace workspace;
  cudaStream_t stream = nullptr;
  const void* in_ptrs[2] = {};
  void* out_ptrs[1] = {};
  ptxb_args args{};
};

// Times single calls on `stream` by CUDA events, each after an L2 flush and a spin of ~50 us.
class ColdTimer {
 public:
  explicit ColdTimer(cudaStream_t stream) : stream_(stream) {
    CHECK(cudaMalloc(&flush_, kFlushBytes));
    CHECK(cudaEventCreate(&start_));
    CHECK(cudaEventCreate(&stop_));
  }
  // Microseconds of `call()` (a status, 0 for success); `round` varies the flush's byte value.
  template <typename Call>
  double time_us(int round, Call&& call) {
    CHECK(cudaMemsetAsync(flush_, round & 0xff, kFlushBytes, stream_));
    spin<<<1, 1, 0, stream_>>>(100000);  // ~50 us at 2 GHz
    CHECK(cudaEventRecord(start_, stream_));
    CHECK(call());
    CHECK(cudaEventRecord(stop_, stream_));
    CHECK(cudaEventSynchronize(stop_));
    float ms = 0.f;
    CHECK(cudaEventElapsedTime(&ms, start_, stop_));
    return 1000.0 * ms;
  }

 private:
  static constexpr size_t kFlushBytes = size_t{256} << 20;  // well above the H200's 50 MB of L2
  cudaStream_t stream_;
  void* flush_ = nullptr;
  cudaEvent_t start_, stop_;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The median of `calls` cold calls of `call`, after 3 untimed ones.
template <typename Call>
double median_cold_us(ColdTimer& timer, int calls, Call&& call) {
  std::vector<double> times;
  for (int i = 0; i < calls + 3; ++i) {
    const double us = timer.time_us(i, call);
    if (i >= 3) times.push_back(us);
  }
  return median(times);
}

}  // namespace
