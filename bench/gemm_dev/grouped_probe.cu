// A small harness for the grouped (MoE) GEMM experts outside the judge: loads a submission built
// as a shared object, draws the group offsets as the task does (families/structured_values.cpp:
// heavy-tailed sizes, an eighth of the groups empty, an eighth of one row), runs the kernel on
// random bf16 inputs and times it by CUDA events with an L2 flush and a short spin kernel before
// every call. No library, no check (the judge checks): a quick look at the time, the bytes it
// must move (every non-empty group's B, A, C) and a process small enough to run under ncu.
// Usage: grouped_probe KERNEL.so G M N K [CALLS=20] [SEED=1]
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "families/structured_values.hpp"
#include "probe_common.hpp"

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s KERNEL.so G M N K [CALLS] [SEED]\n", argv[0]);
    return 2;
  }
  const int64_t G = std::atoll(argv[2]), M = std::atoll(argv[3]), N = std::atoll(argv[4]),
                K = std::atoll(argv[5]);
  const int calls = argc > 6 ? std::atoi(argv[6]) : 20;
  const uint64_t seed = argc > 7 ? std::strtoull(argv[7], nullptr, 10) : 1;
  const Submission sub = load_submission(argv[1]);
  if (sub.plan == nullptr) {
    std::fprintf(stderr, "no ptxb_plan in %s\n", argv[1]);
    return 1;
  }
  const std::vector<int64_t> drawn = ptxb::draw_offsets(G, M, seed);
  std::vector<int> offsets(drawn.begin(), drawn.end());
  int64_t non_empty = 0, largest = 0;
  for (int64_t g = 0; g < G; ++g) {
    const int64_t rows = drawn[g + 1] - drawn[g];
    non_empty += rows > 0 ? 1 : 0;
    largest = std::max(largest, rows);
  }
  void* a = random_bf16(M * K, 1);
  void* b = random_bf16(G * N * K, 2);
  void *c = nullptr, *offsets_d = nullptr;
  CHECK(cudaMalloc(&c, M * N * 2));
  CHECK(cudaMalloc(&offsets_d, offsets.size() * sizeof(int)));
  CHECK(
      cudaMemcpy(offsets_d, offsets.data(), offsets.size() * sizeof(int), cudaMemcpyHostToDevice));

  ptxb_tensor_desc b_desc{};
  b_desc.dtype = PTXB_BF16;
  b_desc.rank = 3;
  b_desc.shape[0] = G, b_desc.shape[1] = N, b_desc.shape[2] = K;
  b_desc.strides[0] = N * K, b_desc.strides[1] = K, b_desc.strides[2] = 1;
  ptxb_tensor_desc offsets_desc{};
  offsets_desc.dtype = PTXB_I32;
  offsets_desc.rank = 1;
  offsets_desc.shape[0] = G + 1;
  offsets_desc.strides[0] = 1;
  const ptxb_tensor_desc inputs[3] = {row_major(M, K), b_desc, offsets_desc};
  const ptxb_tensor_desc outputs[1] = {row_major(M, N)};
  const ptxb_problem problem{PTXB_ABI_VERSION, 3, 1, 0, inputs, outputs, nullptr};
  const Workspace workspace = plan_workspace(sub, problem);
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  const void* in_ptrs[3] = {a, b, offsets_d};
  void* out_ptrs[1] = {c};
  const ptxb_args args{&problem, in_ptrs, out_ptrs, workspace.data, workspace.bytes, stream};

  ColdTimer timer(stream);
  const double us = median_cold_us(timer, calls, [&] { return sub.run(&args); });
  const double flop =
      2.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  const double bytes = 2.0 * static_cast<double>(non_empty * N * K + M * K + M * N);
  std::printf(
      "G%lld M%lld N%lld K%lld (%lld groups with rows, largest %lld)  kernel %.1f us  "
      "%.0f TFLOP/s  %.2f TB/s of the %.0f MB it must move\n",
      static_cast<long long>(G), static_cast<long long>(M), static_cast<long long>(N),
      static_cast<long long>(K), static_cast<long long>(non_empty), static_cast<long long>(largest),
      us, flop / us * 1e-6, bytes / us * 1e-6, bytes * 1e-6);
  return 0;
}
