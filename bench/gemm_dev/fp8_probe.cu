// A small harness for the fp8 GEMM experts outside the judge: loads a submission of
// sm90/gemm/fp8-e4m3 (scales: one f32 each) or fp8-blockwise (scale_a [ceil(K/128), M], scale_b
// [ceil(N/128), ceil(K/128)]) built as a shared object, runs it on random E4M3 inputs with random
// positive scales and times it by CUDA events with an L2 flush and a short spin kernel before
// every call. No library, no check (the judge checks): a quick look at the time and a process
// small enough to run under ncu.
// Usage: fp8_probe KERNEL.so tensor|block M N K [CALLS=20]
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "probe_common.hpp"

namespace {

void* random_e4m3(int64_t count, unsigned seed) {
  std::vector<__nv_fp8_e4m3> host(static_cast<size_t>(count));
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist(0.f, 1.f);
  for (auto& x : host) x = __nv_fp8_e4m3(dist(gen));
  void* d = nullptr;
  CHECK(cudaMalloc(&d, host.size()));
  CHECK(cudaMemcpy(d, host.data(), host.size(), cudaMemcpyHostToDevice));
  return d;
}

void* random_scales(int64_t count, unsigned seed) {
  std::vector<float> host(static_cast<size_t>(count));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(0.125f, 4.f);
  for (auto& x : host) x = dist(gen);
  void* d = nullptr;
  CHECK(cudaMalloc(&d, host.size() * sizeof(float)));
  CHECK(cudaMemcpy(d, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

ptxb_tensor_desc dense(ptxb_dtype dtype, int64_t rows, int64_t cols) {
  ptxb_tensor_desc t = row_major(rows, cols);
  t.dtype = dtype;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  const bool block = argc > 2 && std::strcmp(argv[2], "block") == 0;
  if (argc < 6 || (!block && std::strcmp(argv[2], "tensor") != 0)) {
    std::fprintf(stderr, "usage: %s KERNEL.so tensor|block M N K [CALLS]\n", argv[0]);
    return 2;
  }
  const int64_t M = std::atoll(argv[3]), N = std::atoll(argv[4]), K = std::atoll(argv[5]);
  const int calls = argc > 6 ? std::atoi(argv[6]) : 20;
  const Submission sub = load_submission(argv[1]);
  if (sub.plan == nullptr) {
    std::fprintf(stderr, "no ptxb_plan in %s\n", argv[1]);
    return 1;
  }
  const int64_t kb = (K + 127) / 128, nb = (N + 127) / 128;
  const ptxb_tensor_desc sa_desc = block ? dense(PTXB_F32, kb, M) : dense(PTXB_F32, 1, 1);
  const ptxb_tensor_desc sb_desc = block ? dense(PTXB_F32, nb, kb) : dense(PTXB_F32, 1, 1);
  ptxb_tensor_desc scale_a = sa_desc, scale_b = sb_desc;
  if (!block) {  // shape ["1"]: rank 1
    scale_a.rank = scale_b.rank = 1;
    scale_a.shape[0] = scale_b.shape[0] = 1;
    scale_a.strides[0] = scale_b.strides[0] = 1;
  }
  void* a = random_e4m3(M * K, 1);
  void* b = random_e4m3(N * K, 2);
  void* sa = random_scales(block ? kb * M : 1, 3);
  void* sb = random_scales(block ? nb * kb : 1, 4);
  void* c = nullptr;
  CHECK(cudaMalloc(&c, M * N * 2));

  const ptxb_tensor_desc inputs[4] = {dense(PTXB_F8E4M3, M, K), dense(PTXB_F8E4M3, N, K), scale_a,
                                      scale_b};
  const ptxb_tensor_desc outputs[1] = {row_major(M, N)};
  const ptxb_problem problem{PTXB_ABI_VERSION, 4, 1, 0, inputs, outputs, nullptr};
  const Workspace workspace = plan_workspace(sub, problem);
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  const void* in_ptrs[4] = {a, b, sa, sb};
  void* out_ptrs[1] = {c};
  const ptxb_args args{&problem, in_ptrs, out_ptrs, workspace.data, workspace.bytes, stream};

  ColdTimer timer(stream);
  const double us = median_cold_us(timer, calls, [&] { return sub.run(&args); });
  const double flop =
      2.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  std::printf("%s M%lld N%lld K%lld  kernel %.1f us  %.0f TFLOP/s\n", block ? "block" : "tensor",
              static_cast<long long>(M), static_cast<long long>(N), static_cast<long long>(K), us,
              flop / us * 1e-6);
  return 0;
}
