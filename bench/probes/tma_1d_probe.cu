// Which 1-D TMA loads (cp.async.bulk.tensor.1d, fp32 map of one flat row, no swizzle) does the
// hardware take? The block-scaled fp8 expert's staged scales (kStagedScales) died with "illegal
// instruction" at the load of a 4-value (16-byte) box at coordinates that are not multiples of 4,
// while its 128-value boxes at multiples of 128 ran. Each case here (box values, first
// coordinate) runs in a child process of its own, so a fault costs only that case; it loads one
// box into shared memory, copies it out and compares with the source (zeros past the end).
// Build (repository root): nvcc -O2 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I kernels
//   bench/probes/tma_1d_probe.cu -o tma_1d_probe   (bench/build_dev_harnesses.sh builds it too)
// Usage: tma_1d_probe [ELEMENTS=64]; one line per case: box, coordinate, outcome.
// Answer (H100, bench/results/2026-12-05f-h100-session, call 1): every box size loads at starts
// that are multiples of 4 values (16 bytes) and faults at every other start.
#include <cuda.h>
#include <cuda_runtime.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "ptx/mbarrier.cuh"
#include "ptx/tensor_map.cuh"
#include "ptx/tma.cuh"

namespace {

constexpr int kMaxBox = 256;

// One thread: box of `map` at `coord` into shared memory, then out to `out` (box values).
__global__ void load_box(const __grid_constant__ CUtensorMap map, int coord, int box, float* out) {
  __shared__ alignas(128) float tile[kMaxBox];
  __shared__ uint64_t bar;
  mbar_init(&bar, 1);
  fence_mbarrier_init();
  mbar_arrive_expect_tx(&bar, static_cast<uint32_t>(box) * 4);
  tma_load_1d(tile, &map, &bar, coord);
  mbar_wait(&bar, 0);
  for (int i = 0; i < box; ++i) out[i] = tile[i];
}

// The outcome of one case, printed by the child: "ok", "wrong ..." or the CUDA error.
int run_case(int elements, int box, int coord) {
  std::vector<float> host(elements);
  for (int i = 0; i < elements; ++i) host[i] = 1.f + static_cast<float>(i);
  float *src = nullptr, *out = nullptr;
  if (cudaMalloc(&src, elements * 4) != cudaSuccess || cudaMalloc(&out, kMaxBox * 4) != cudaSuccess)
    return std::printf("cudaMalloc failed\n"), 1;
  cudaMemcpy(src, host.data(), elements * 4, cudaMemcpyHostToDevice);
  CUtensorMap map{};
  const cuuint64_t dims[1] = {static_cast<cuuint64_t>(elements)};
  const cuuint64_t strides[1] = {0};
  const cuuint32_t boxes[1] = {static_cast<cuuint32_t>(box)};
  const cuuint32_t element_strides[1] = {1};
  const CUresult encoded = tensor_map_encoder()(
      &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 1, src, dims, strides, boxes, element_strides,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (encoded != CUDA_SUCCESS) return std::printf("encode refused (%d)\n", encoded), 0;
  load_box<<<1, 1>>>(map, coord, box, out);
  const cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) return std::printf("fault: %s\n", cudaGetErrorName(err)), 0;
  std::vector<float> got(box);
  cudaMemcpy(got.data(), out, box * 4, cudaMemcpyDeviceToHost);
  for (int i = 0; i < box; ++i) {
    const int at = coord + i;
    const float want = at < elements ? host[at] : 0.f;
    if (got[i] != want) return std::printf("wrong at %d: %g, want %g\n", i, got[i], want), 0;
  }
  return std::printf("ok\n"), 0;
}

}  // namespace

int main(int argc, char** argv) {
  const int elements = argc > 1 ? std::atoi(argv[1]) : 64;
  const int boxes[] = {4, 8, 32, 128};
  const int coords[] = {0, 1, 2, 3, 4, 5, 8, 31, 32, 60};
  for (int box : boxes) {
    for (int coord : coords) {
      std::printf("box %3d coord %3d: ", box, coord);
      std::fflush(stdout);
      const pid_t child = fork();
      if (child == 0) {
        alarm(20);  // a load that never completes its barrier
        std::exit(run_case(elements, box, coord));
      }
      int status = 0;
      waitpid(child, &status, 0);
      if (WIFSIGNALED(status)) std::printf("child killed by signal %d\n", WTERMSIG(status));
    }
  }
  return 0;
}
