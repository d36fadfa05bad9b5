// ptxbench-expect: task=sm90/gemm/bf16-wgmma-tma outcome=low_instruction_share target=cp.async.bulk.tensor
// Evidence cheat on the TMA task: the product is the cp.async wgmma expert's, its tiles loaded by
// cp.async; every call also loads one (64, 64) box of A by TMA over and over (L2 hits after the
// first), 0.6 of the A and B bytes in all, waiting on an mbarrier for each. The TMA count and
// byte floors hold in every call, profiled or not, so the timed calls' counters equal the profiled
// call's: the byte floor counts bytes moved, not distinct bytes. Caught by the task's cap on
// other loads (docs/evidence.md): cp.async read the operands from L2, many times over 0.25 of the
// input bytes.
#include <cuda.h>
#include <cudaTypedefs.h>

#include <algorithm>

__device__ bool divert_to_simt() { return false; }

// ==== begin tests/adversarial/blocks/tma_box_loads.inc (generated: scripts/amalgamate.py) ====
// TMA loads for show, for the evidence cheats on the TMA task: a kernel that loads boxes of A by
// TMA into shared memory, waiting on an mbarrier for each, and drops them. Hostile files hold a
// copy (scripts/amalgamate.py); they choose the box size and when to load.

namespace tma_show {

constexpr int kCtas = 132;
constexpr double kBytesPerTmaInstruction = 232448;  // the catalog's R2 unit for TMA loads

// Every call runs the same loop over the same boxes; only with `load` does it issue the loads
// (the empty asm keeps each box's coordinates computed either way, so that the two modes differ
// by the TMA, mbarrier and branch instructions alone). Boxes are (box_rows, box_cols) bf16.
__global__ void __launch_bounds__(32)
    load_and_drop(const __grid_constant__ CUtensorMap map, int loads_per_cta, int box_cols,
                  int box_rows, int cols_per_box, int rows_per_box, uint32_t box_bytes, int load) {
  __shared__ alignas(128) uint16_t tile[64 * 64];
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x != 0) return;
  const uint32_t bar_addr = static_cast<uint32_t>(__cvta_generic_to_shared(&bar));
  const uint32_t tile_addr = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_addr));
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  for (int i = 0; i < loads_per_cta; ++i) {
    const int box = blockIdx.x * loads_per_cta + i;
    const int col = (box % box_cols) * cols_per_box;
    const int row = ((box / box_cols) % box_rows) * rows_per_box;
    asm volatile("" ::"r"(col), "r"(row));
    if (!load) continue;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar_addr),
                 "r"(box_bytes)
                 : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%3, %4}], [%2];" ::"r"(tile_addr),
        "l"(reinterpret_cast<uint64_t>(&map)), "r"(bar_addr), "r"(col), "r"(row)
        : "memory");
    uint32_t done = 0;
    while (!done)
      asm volatile(
          "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
          "selp.u32 %0, 1, 0, p;\n}\n"
          : "=r"(done)
          : "r"(bar_addr), "r"(static_cast<uint32_t>(i & 1))
          : "memory");
  }
}

// Runs the box loop on `stream` over at least as many (rows, cols) boxes of A (M, K) as the A and
// B bytes need at the catalog's bytes per TMA instruction (twice the R2 count floor), and at least
// as many as move `input_share` of the A and B bytes, loading them by TMA only when `load`; with
// `one_box`, every load is the box at the origin (an L2 hit after the first). rows and cols at
// most 64; cols * 2 bytes a multiple of 16.
int launch(const ptxb_args* args, cudaStream_t stream, int rows, int cols, bool load,
           double input_share = 0, bool one_box = false) {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found{};
    cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault,
                                     &found);
    return found == cudaDriverEntryPointSuccess
               ? reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(entry)
               : nullptr;
  }();
  if (encode == nullptr) return 1;
  const ptxb_problem* p = args->problem;
  const int64_t M = p->inputs[0].shape[0], K = p->inputs[0].shape[1], N = p->inputs[1].shape[0];
  CUtensorMap map;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(K), static_cast<cuuint64_t>(M)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(K) * 2};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(cols), static_cast<cuuint32_t>(rows)};
  const cuuint32_t elem_strides[2] = {1, 1};
  if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(args->inputs[0]), dims,
             strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
             CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
    return 1;
  const double bytes = 2.0 * (M * K + N * K);
  const double box_bytes = 2.0 * rows * cols;
  const int loads = static_cast<int>(
      std::max(bytes / kBytesPerTmaInstruction, input_share * bytes / box_bytes) + 1);
  const int loads_per_cta = (loads + kCtas - 1) / kCtas + 1;
  const int box_cols = one_box ? 1 : static_cast<int>((K + cols - 1) / cols);
  const int box_rows = one_box ? 1 : static_cast<int>((M + rows - 1) / rows);
  load_and_drop<<<kCtas, 32, 0, stream>>>(map, loads_per_cta, box_cols, box_rows, cols, rows,
                                          static_cast<uint32_t>(rows * cols * 2), load);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

}  // namespace tma_show
// ==== end tests/adversarial/blocks/tma_box_loads.inc ====

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const int status = expert_run(args);
  if (status != 0) return status;
  return tma_show::launch(args, static_cast<cudaStream_t>(args->stream), 64, 64, true, 0.6,
                          /*one_box=*/true);
}
