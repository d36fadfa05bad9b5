// Expert solution for sm90/gemm/fp8-e4m3: C[M,N] = s_a * s_b * (A[M,K] * B[N,K]^T) with E4M3
// operands (row-major, K-major), one f32 scale each (device tensors of one element) and bf16 C.
//
// Design (the bf16 TMA expert's pipeline, for fp8):
// - one CTA per SM looping over 128x128 output tiles (kPersistent), 384 threads = 3
//   warpgroups: a TMA producer and two consumer warpgroups of 64x128 each;
//   kStages-deep ring of (128x128-byte) A and B tiles with the 128-byte
//   swizzle, full/empty mbarriers per stage; setmaxnreg moves registers to the consumers;
// - per 128-element k-block each consumer issues four wgmma.mma_async m64n128k32 e4m3 x e4m3 into
//   a fresh fp32 accumulator and then adds it into its running accumulator in registers:
//   the tensor cores' fp8 accumulation keeps fewer bits than fp32, so partial sums are promoted
//   every 128 K (as DeepSeek-V3 and cuBLASLt without fast accumulation do). The adds are 1/256 of
//   the FLOPs (the task's non-target limit is 2%);
// - the epilogue multiplies by s_a * s_b in fp32 and stages bf16 in shared memory for TMA
//   stores, the map clipping rows >= M, cols >= N (kTmaStoreEpilogue; off: bf16x2 stores from
//   registers, masked);
// - edges: TMA zero-fills out-of-bounds rows and the K tail;
// - few rows: where M is one nearly full tile row and the 128x128 tiles would be split along K,
//   narrow 128x64 tiles over the whole of K, one per CTA (gemm_fp8_narrow, use_narrow): no
//   partials and no second kernel.
// Requirements checked by ptxb_run: K % 16 == 0 (16-byte row pitch for TMA), contiguous row-major
// tensors, scales of one f32 element each.
// NOTE: a submission is one self-contained file (docs/abi.md): the PTX wrappers and the fp8 GEMM
// pieces below are copies of kernels/ptx/ and kernels/gemm/sm90_gemm_fp8_tma_ws.cuh, kept equal
// to them by scripts/amalgamate.py.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <algorithm>
#include <cstdint>
#include <utility>

// ==== begin kernels/ptx/smem.cuh (generated: scripts/amalgamate.py) ====
// Shared-memory addresses as PTX instructions take them (the 32-bit offset in the shared window),
// and the fence between the generic and the async proxy's view of shared memory.

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
// Orders this thread's generic-proxy accesses of shared memory (plain stores, cp.async, an
// mbarrier.init) before later async-proxy accesses (wgmma operand reads, TMA, bulk copies).
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
// A float of shared memory at generic address p by ld.shared, where the compiler cannot see that
// p is shared (it would emit a generic load). Volatile, with a memory clobber: it stays after the
// mbarrier wait that makes the value visible.
__device__ __forceinline__ float ld_shared_f32(const void* p) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(smem_addr(p)) : "memory");
  return v;
}
// Stores 32 bits at shared-memory address `addr` (smem_addr) by st.shared, where a store through
// a generic pointer would take a generic store (ST.E: a 64-bit address register per pointer).
__device__ __forceinline__ void st_shared_b32(uint32_t addr, uint32_t v) {
  asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
// ==== end kernels/ptx/smem.cuh ====
// ==== begin kernels/ptx/cluster.cuh (generated: scripts/amalgamate.py) ====
// Thread-block clusters (sm_90): this CTA's rank in its cluster, the cluster-wide barrier, an
// mbarrier arrive on another CTA's barrier and reads of another CTA's shared memory (the TMA load
// multicast into several CTAs is in ptx/tma.cuh). Peers address each other's shared memory at the
// same offsets (the kernel's layout).

__device__ __forceinline__ uint32_t cluster_ctarank() {
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}
// Every thread of every CTA of the cluster arrives (release) and waits (acquire): mbarrier inits
// and shared-memory writes before it are visible to the peers after it.
__device__ __forceinline__ void cluster_sync() {
  asm volatile(
      "barrier.cluster.arrive.release.aligned;\n"
      "barrier.cluster.wait.acquire.aligned;" ::
          : "memory");
}
// Arrives on the mbarrier at `bar`'s offset in CTA `cta` of the cluster (this CTA's own rank
// included), with the default semantics (release, CTA scope). For releasing a stage whose reads
// have completed (wgmma.wait_group): the peer's later TMA write is a write after a finished read,
// which needs no cluster-scope fence. NOTE: `.release.cluster` compiles to MEMBAR.ALL.CTA and
// MEMBAR.ALL.GPU before every arrive; in the 2-CTA GEMM that was 59% of the stall cycles (ncu,
// bench/results/2026-12-03d-h200-session-846c033) and the kernel ran at half speed.
__device__ __forceinline__ void mbar_arrive_cluster(uint64_t* bar, uint32_t cta) {
  asm volatile(
      "{\n.reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}" ::"r"(smem_addr(bar)),
      "r"(cta)
      : "memory");
}
// Two floats at `local`'s offset in the shared memory of CTA `cta` of the cluster (8-byte
// aligned), read after a cluster barrier that ordered their writes.
__device__ __forceinline__ void ld_shared_cluster_f32x2(const void* local, uint32_t cta, float& x,
                                                        float& y) {
  asm volatile(
      "{\n.reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %2, %3;\n"
      "ld.shared::cluster.v2.f32 {%0, %1}, [remote];\n}"
      : "=f"(x), "=f"(y)
      : "r"(smem_addr(local)), "r"(cta)
      : "memory");
}
// ==== end kernels/ptx/cluster.cuh ====
// ==== begin kernels/ptx/l2_policy.cuh (generated: scripts/amalgamate.py) ====
// L2 eviction policies (createpolicy) for the .L2::cache_hint forms of loads and stores: lines
// touched under evict_first are the first L2 gives up when it needs room, evict_last the last.
// E.g. a stream read once (evict_first) beside data read again soon (evict_last).

__device__ __forceinline__ uint64_t l2_policy_evict_first() {
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}
__device__ __forceinline__ uint64_t l2_policy_evict_last() {
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}
// Two floats to global memory (8-byte aligned) under an L2 policy.
__device__ __forceinline__ void st_global_f32x2_hint(float* dst, float x, float y,
                                                     uint64_t policy) {
  asm volatile("st.global.L2::cache_hint.v2.f32 [%0], {%1, %2}, %3;" ::"l"(dst), "f"(x), "f"(y),
               "l"(policy)
               : "memory");
}
// ==== end kernels/ptx/l2_policy.cuh ====
// ==== begin kernels/ptx/mbarrier.cuh (generated: scripts/amalgamate.py) ====
// mbarrier (shared::cta, 64-bit) wrappers: init, arrive, arrive with an expected transaction
// byte count (TMA and bulk copies complete those bytes), and the parity wait (try_wait in a
// loop). The barrier lives in shared memory; `parity` is the phase's parity (0, 1, 0, ...).

__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count));
}
// Releases this thread's mbarrier.init to the other threads of the cluster (before the barrier
// that publishes it; TMA signalling the barrier also needs fence_proxy_async_shared).
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
               "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}
// One try: true once the phase with `parity` has completed (the hardware may suspend the thread
// for a while before answering false). `addr` is smem_addr(bar).
__device__ __forceinline__ bool mbar_try_wait(uint32_t addr, uint32_t parity) {
  uint32_t done;
  asm volatile(
      "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
      "selp.u32 %0, 1, 0, p;\n}\n"
      : "=r"(done)
      : "r"(addr), "r"(parity)
      : "memory");
  return done != 0;
}
// Spins until the phase with `parity` has completed.
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  const uint32_t addr = smem_addr(bar);
  while (!mbar_try_wait(addr, parity)) {
  }
}
// ==== end kernels/ptx/mbarrier.cuh ====
// ==== begin kernels/ptx/tma.cuh (generated: scripts/amalgamate.py) ====
// TMA and bulk copies, global -> shared, completing their bytes on an mbarrier
// (cp.async.bulk.tensor / cp.async.bulk with mbarrier::complete_tx::bytes). The caller arms the
// barrier with mbar_arrive_expect_tx for the bytes first. `map` is a CUtensorMap in global,
// constant or parameter space (a __grid_constant__ kernel parameter). And TMA stores and
// reductions, shared -> global, tracked as bulk groups of the issuing thread.

// The box of a 1-D map at element `at` into `dst` (elements past the map's end read as zeros).
__device__ __forceinline__ void tma_load_1d(void* dst, const CUtensorMap* map, uint64_t* bar,
                                            int at) {
  asm volatile(
      "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3}], [%2];" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(at)
      : "memory");
}
// The box of a 2-D map at coordinates (inner, outer) into `dst`.
__device__ __forceinline__ void tma_load_2d(void* dst, const CUtensorMap* map, uint64_t* bar,
                                            int inner, int outer) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(inner), "r"(outer)
      : "memory");
}
// The box of a 2-D map at (inner, outer) into `dst` of every CTA whose bit is set in `cta_mask`
// (bit i: its rank in the cluster); each CTA's bytes complete on its own mbarrier at `bar`'s
// offset.
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const CUtensorMap* map,
                                                      uint64_t* bar, int inner, int outer,
                                                      uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(inner), "r"(outer),
      "h"(cta_mask)
      : "memory");
}
// tma_load_2d with an L2 eviction policy for the box's lines (ptx/l2_policy.cuh).
__device__ __forceinline__ void tma_load_2d_hint(void* dst, const CUtensorMap* map, uint64_t* bar,
                                                 int inner, int outer, uint64_t policy) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".L2::cache_hint [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(inner), "r"(outer), "l"(policy)
      : "memory");
}
// The box of a 3-D map at coordinates (c0, c1, c2), innermost first, into `dst`.
__device__ __forceinline__ void tma_load_3d(void* dst, const CUtensorMap* map, uint64_t* bar,
                                            int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}
// A 1-D copy of `bytes` (a multiple of 16; both ends 16-byte aligned).
__device__ __forceinline__ void bulk_load(void* dst, const void* src, uint32_t bytes,
                                          uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::
          "r"(smem_addr(dst)),
      "l"(reinterpret_cast<uint64_t>(src)), "r"(bytes), "r"(smem_addr(bar))
      : "memory");
}
// Fetches the map's descriptor ahead of the first copy that uses it.
__device__ __forceinline__ void prefetch_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}
// The box of a 2-D map at coordinates (inner, outer) from `src` (written by this CTA's threads,
// then fence_proxy_async_shared and a barrier) to global memory; elements outside the map's
// bounds are not written. Joins the issuing thread's open bulk group.
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, const void* src, int inner,
                                             int outer) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(smem_addr(src)), "r"(inner), "r"(outer)
               : "memory");
}
// The box of a 3-D map at coordinates (c0, c1, c2), innermost first, from `src` (written as for
// tma_store_2d) added element-wise into global memory (in the map's type, e.g. fp32), each
// element's addition atomic; elements outside the map's bounds are skipped. Joins the issuing
// thread's open bulk group.
__device__ __forceinline__ void tma_reduce_add_3d(const CUtensorMap* map, const void* src, int c0,
                                                  int c1, int c2) {
  asm volatile(
      "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group"
      " [%0, {%2, %3, %4}], [%1];" ::"l"(reinterpret_cast<uint64_t>(map)),
      "r"(smem_addr(src)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}
// Closes the issuing thread's open bulk group (the stores since the last commit).
__device__ __forceinline__ void bulk_commit_group() {
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
// Waits until at most kPending of this thread's bulk groups are still under way (their global
// writes or reductions done and visible, their reads of shared memory too).
template <int kPending>
__device__ __forceinline__ void bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(kPending) : "memory");
}
// Waits until at most kPending of this thread's bulk groups still read their shared memory (the
// source may then be overwritten, or the CTA exit); their global writes may still be under way.
template <int kPending>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(kPending) : "memory");
}
// ==== end kernels/ptx/tma.cuh ====
// ==== begin kernels/ptx/setmaxnreg.cuh (generated: scripts/amalgamate.py) ====
// Warpgroup register reallocation (setmaxnreg): producers give registers up, consumers take them.
// Every thread of the warpgroup executes it; kRegs is the new per-thread count.

template <int kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(kRegs >= 24 && kRegs <= 256 && kRegs % 8 == 0, "setmaxnreg register count");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(kRegs));
}
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(kRegs >= 24 && kRegs <= 256 && kRegs % 8 == 0, "setmaxnreg register count");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(kRegs));
}
// ==== end kernels/ptx/setmaxnreg.cuh ====
// ==== begin kernels/ptx/wgmma.cuh (generated: scripts/amalgamate.py) ====
// Hopper warpgroup MMA plumbing: the warpgroup index, shared-memory matrix descriptors, fence /
// commit / wait, and the register fence that keeps the compiler from moving accumulator accesses
// across an asynchronous wgmma. The mma_async instructions themselves are written where they are
// used (one form per tile shape and operand source).

// The calling thread's warpgroup (128 consecutive threads of the block), read from lane 0.
// NOTE: threadIdx.x / 128 is the same in every lane of a warp, but ptxas does not know it; read
// through shfl.sync it is known warp-uniform, and what derives from it (shared-memory offsets,
// descriptors, barrier addresses) stays in uniform registers: fewer instructions in the
// consumers' loops (2-5% faster fp8 GEMM and attention backward experts on an H100). Call it with
// every lane of the warp active.
__device__ __forceinline__ int warpgroup_index() {
  return __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x / 128), 0);
}

// Descriptor of a tile stored with the 128-byte swizzle: start address, leading byte offset
// (LBO) and stride byte offset (SBO), each encoded as (bytes & 0x3FFFF) >> 4; swizzle mode 1.
// K-major tiles: LBO is unused (16), SBO = 1024 (8 rows of 128 bytes).
__device__ __forceinline__ uint64_t wgmma_desc_sw128(const void* p, uint32_t lbo, uint32_t sbo) {
  uint64_t desc = (smem_addr(p) & 0x3FFFF) >> 4;
  desc |= uint64_t((lbo & 0x3FFFF) >> 4) << 16;
  desc |= uint64_t((sbo & 0x3FFFF) >> 4) << 32;
  desc |= uint64_t(1) << 62;  // 128-byte swizzle
  return desc;
}
// `desc` with its start address `bytes` further (a multiple of 16): the k-slices of a tile take
// the first slice's descriptor plus their offset instead of a descriptor formed from each address
// (a mask, a shift and an or each). The start address field (bits 0-13, in 16-byte units) cannot
// carry into the next field: every shared-memory address lies below 256 KB.
__device__ __forceinline__ uint64_t wgmma_desc_advance(uint64_t desc, uint32_t bytes) {
  return desc + (bytes >> 4);
}
// The descriptor of the k-slice `bytes` into a K-major 128-byte-swizzled tile (LBO 16, SBO 1024),
// whose own descriptor is `tile_desc`: stepped from it (kStep) or formed from the slice's address.
// The GEMM experts' consumers take one of the two forms by a knob (kStepDescriptors).
template <bool kStep>
__device__ __forceinline__ uint64_t wgmma_desc_sw128_slice(const void* tile, uint64_t tile_desc,
                                                           uint32_t bytes) {
  if constexpr (kStep) return wgmma_desc_advance(tile_desc, bytes);
  return wgmma_desc_sw128(static_cast<const uint8_t*>(tile) + bytes, 16, 1024);
}
// Descriptor of an unswizzled tile of 8x16-byte core matrices, LBO and SBO as above.
__device__ __forceinline__ uint64_t wgmma_desc_interleaved(const void* p, uint32_t lbo,
                                                           uint32_t sbo) {
  uint64_t desc = (smem_addr(p) & 0x3FFFF) >> 4;
  desc |= uint64_t((lbo & 0x3FFFF) >> 4) << 16;
  desc |= uint64_t((sbo & 0x3FFFF) >> 4) << 32;
  return desc;  // base offset 0, no swizzle
}
__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
// Waits until at most kPending committed wgmma groups are still in flight.
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
}
// Ties registers to this point of the program: the compiler may not move their reads above a
// preceding wgmma.wait_group nor their writes below a following wgmma.
template <int kN>
__device__ __forceinline__ void fence_regs(float (&r)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+f"(r[i])::"memory");
}
template <int kN>
__device__ __forceinline__ void fence_regs(uint32_t (&r)[kN]) {
#pragma unroll
  for (int i = 0; i < kN; ++i) asm volatile("" : "+r"(r[i])::"memory");
}
// ==== end kernels/ptx/wgmma.cuh ====
// ==== begin kernels/ptx/tensor_map.cuh (generated: scripts/amalgamate.py) ====
// Host side of TMA: the driver's tensor-map encoder, reached through the CUDA runtime (a
// submission links only the runtime, docs/abi.md). nullptr when the driver does not offer it.

inline PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault,
                                         &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
      return static_cast<PFN_cuTensorMapEncodeTiled_v12000>(nullptr);
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(entry);
  }();
  return fn;
}
// ==== end kernels/ptx/tensor_map.cuh ====
// ==== begin kernels/ptx/griddepcontrol.cuh (generated: scripts/amalgamate.py) ====
// Programmatic dependent launch (sm_90). A kernel launched as a programmatic dependent of the
// kernel before it on its stream (launch_programmatic) may start once every CTA of that kernel
// called griddep_launch_dependents or exited; before it reads what that kernel wrote it calls
// griddep_wait, which returns when that grid has completed and its writes are visible.

__device__ __forceinline__ void griddep_launch_dependents() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}
__device__ __forceinline__ void griddep_wait() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
}

// `kernel` on `grid` CTAs of `block` threads with `smem` bytes of dynamic shared memory on
// `stream`: a programmatic dependent of the kernel before it when `dependent`, else an ordinary
// launch.
template <typename... Params, typename... Args>
cudaError_t launch_programmatic(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem,
                                cudaStream_t stream, bool dependent, Args... args) {
  cudaLaunchAttribute attribute = {};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = dependent ? 1 : 0;
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, args...);
}
// ==== end kernels/ptx/griddepcontrol.cuh ====

// ==== begin kernels/gemm/sm90_gemm_split_sum.cuh (generated: scripts/amalgamate.py) ====
// Split-K of the GEMM experts (gemm/sm90_gemm_bf16_tma_ws_gemm.cuh, gemm/sm90_gemm_fp8_tma_ws.cuh):
// how K is cut, the sum of the splits' partials, and the launch of such sums as programmatic
// dependents of the GEMM kernel that wrote the partials. Experts hold a copy
// (scripts/amalgamate.py).

namespace {

// How a GEMM expert cuts K: k-blocks per split and the number of splits (1: no split).
struct SplitK {
  int split_kb;
  int splits;
};
// The splits of a shape whose `tiles` output tiles fill at most half of the `sms` SMs: as many as
// the idle SMs allow while every split keeps min_k_blocks of the k_blocks; 1 for larger shapes.
int few_tile_splits(int64_t tiles, int k_blocks, int sms, int min_k_blocks) {
  if (tiles * 2 > sms) return 1;
  return static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(sms / tiles, k_blocks / min_k_blocks)));
}
// K's k_blocks cut into at most `splits` splits of equal size, none of them empty.
SplitK cut_k(int k_blocks, int splits) {
  const int split_kb = (k_blocks + splits - 1) / splits;
  return {split_kb, (k_blocks + split_kb - 1) / split_kb};
}

// The workspace the fp32 partials of `split` take for an (M, N) output: none for one split.
uint64_t split_partial_bytes(const SplitK& split, int64_t M, int64_t N) {
  return split.splits > 1 ? static_cast<uint64_t>(split.splits) * M * N * sizeof(float) : 0;
}

// C = the sum over the splits of the fp32 partials (`splits` planes of `count` elements), in split
// order, rounded to bf16: four elements a step (16-byte loads: the ABI's pointers are 256-byte
// aligned, and count % 4 == 0 keeps every split's partials aligned), else one by one. The loads of
// the first kReduceInFlight splits are issued together before the sum (one memory latency per step
// instead of one per split: the reduction is latency-bound otherwise: the loop's SASS had up to
// three load latencies per step at four splits); the launch gives every thread about one step.
// H200, bf16 experts side by side with the loads one by one
// (bench/results/2026-12-03f-h200-session-083f534, call A): 128x8192x8192 0.872 -> 0.877 of
// cuBLASLt, the llm task's few-row shapes 0.940 -> 0.947 and 0.962 -> 0.970.
constexpr int kReduceInFlight = 8;
__global__ void reduce_splits(const float* partials, __nv_bfloat16* c, int64_t count, int splits) {
  // Launched as a programmatic dependent: the GEMM grid has completed and its partials are
  // visible after this. Returns at once after an ordinary launch.
  griddep_wait();
  const int64_t stride = int64_t{gridDim.x} * blockDim.x;
  const int64_t first = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  const int64_t quads = count % 4 == 0 ? count / 4 : 0;
  const auto* parts = reinterpret_cast<const float4*>(partials);
  for (int64_t q = first; q < quads; q += stride) {
    float4 p[kReduceInFlight];
#pragma unroll
    for (int s = 0; s < kReduceInFlight; ++s)
      if (s < splits) p[s] = parts[s * quads + q];
    float4 sum = p[0];
#pragma unroll
    for (int s = 1; s < kReduceInFlight; ++s) {
      if (s >= splits) break;
      sum.x += p[s].x;
      sum.y += p[s].y;
      sum.z += p[s].z;
      sum.w += p[s].w;
    }
    for (int s = kReduceInFlight; s < splits; ++s) {
      const float4 more = parts[s * quads + q];
      sum.x += more.x;
      sum.y += more.y;
      sum.z += more.z;
      sum.w += more.w;
    }
    __nv_bfloat162* out = reinterpret_cast<__nv_bfloat162*>(c + 4 * q);
    out[0] = __floats2bfloat162_rn(sum.x, sum.y);
    out[1] = __floats2bfloat162_rn(sum.z, sum.w);
  }
  for (int64_t i = quads * 4 + first; i < count; i += stride) {
    float sum = partials[i];
    for (int s = 1; s < splits; ++s) sum += partials[s * count + i];
    c[i] = __float2bfloat16_rn(sum);
  }
}

// `kernel` on enough CTAs of 256 threads for `steps` one per thread (at most 32 per SM of `sms`),
// a programmatic dependent of the kernel before it on `stream` when `dependent` (its CTAs may
// launch once every CTA of that kernel allowed it; they wait in griddep_wait), else an
// ordinary launch.
template <typename... Params, typename... Args>
cudaError_t launch_dependent(void (*kernel)(Params...), int64_t steps, int sms, bool dependent,
                             cudaStream_t stream, Args... args) {
  const auto ctas = static_cast<unsigned>(std::min<int64_t>((steps + 255) / 256, 32 * sms));
  return launch_programmatic(kernel, dim3(ctas), dim3(256), 0, stream, dependent, args...);
}

// After the GEMM kernel on `stream` wrote `split.splits` partial (M, N) products into `partials`:
// reduce_splits sums them into c, a programmatic dependent of that kernel when `dependent`, on
// `sms` SMs. Nothing to do for one split.
cudaError_t sum_splits(const SplitK& split, const float* partials, __nv_bfloat16* c, int64_t M,
                       int64_t N, int sms, bool dependent, cudaStream_t stream) {
  if (split.splits <= 1) return cudaSuccess;
  const int64_t count = M * N;
  return launch_dependent(reduce_splits, count % 4 == 0 ? count / 4 : count, sms, dependent, stream,
                          partials, c, count, split.splits);
}

}  // namespace
// ==== end kernels/gemm/sm90_gemm_split_sum.cuh ====
// ==== begin kernels/ptx/barrier.cuh (generated: scripts/amalgamate.py) ====
// Named CTA barriers (bar.sync / bar.arrive with an id and a thread count): a subset of the CTA's
// warps, e.g. one warpgroup, synchronizes without the others. Id 0 is __syncthreads; ids 1..15
// are free for the caller to assign.

// Waits until kThreads threads (a multiple of 32) of the CTA have arrived at barrier `id`; the
// calling warp counts for its 32 threads. Orders this thread's memory accesses around it.
template <int kThreads>
__device__ __forceinline__ void named_barrier_sync(int id) {
  static_assert(kThreads > 0 && kThreads % 32 == 0, "whole warps");
  asm volatile("bar.sync %0, %1;" ::"r"(id), "n"(kThreads) : "memory");
}

// The same wait on barrier kId given as an immediate.
// NOTE: with a register id ptxas reserves all 16 barriers for the kernel, with an immediate only
// the ids it names.
template <int kId, int kThreads>
__device__ __forceinline__ void named_barrier_sync_immediate() {
  static_assert(kId >= 0 && kId < 16, "barrier ids 0..15");
  static_assert(kThreads > 0 && kThreads % 32 == 0, "whole warps");
  asm volatile("bar.sync %0, %1;" ::"n"(kId), "n"(kThreads) : "memory");
}

// Counts the calling warp as arrived at barrier `id` of kThreads threads and goes on without
// waiting: the signalling side of a producer/consumer hand-off whose other side calls
// named_barrier_sync with the same id and count.
template <int kThreads>
__device__ __forceinline__ void named_barrier_arrive(int id) {
  static_assert(kThreads > 0 && kThreads % 32 == 0, "whole warps");
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "n"(kThreads) : "memory");
}
// ==== end kernels/ptx/barrier.cuh ====
// ==== begin kernels/gemm/sm90_tma_store_tile.cuh (generated: scripts/amalgamate.py) ====
// The TMA-store epilogue of the GEMM experts: a consumer warpgroup's (64, kTileCols) fp32
// accumulator tile (wgmma's D fragment: row warp*16 + lane/4 (+8), columns 8i + 2(lane%4) (+1)),
// optionally times a scale, rounded to bf16, as kTileCols / 64 boxes of 64 rows by 64 columns
// (8 KB, 128-byte swizzle: the writes hit 32 distinct banks per warp), staged in shared memory
// only this consumer warpgroup touches and stored through `map_c` (box {64, 64}:
// encode_c_store), which clips rows >= M and columns >= N. The tile goes out in kTileCols / kCols
// passes of kCols columns (a multiple of 64), each through one of kBuffers buffers of the staging
// in turn (kBuffers * kCols columns; box j at staging + j * box_stride, 1024-byte aligned). Before
// a pass writes its buffer, thread 0 of the warpgroup waits until the store that last read it
// has (at most kBuffers - 1 later store groups still reading): with two buffers a pass's writes
// overlap the previous pass's store. The last stores are left reading (bulk_wait_group_read
// before the staging is reused or the CTA exits). Named barrier 2 + consumer.

namespace {

constexpr int kStoreBoxCols = 64;
// Whether the staging is written by st.shared at 32-bit shared addresses instead of through a
// generic pointer (ST.E with 64-bit addresses: ptxas does not see that the staging is shared).
// With the uniform warpgroup index the generic form made ptxas spill 8 bytes in the block-scaled
// fp8 kernel; this form does not. Measured together with the index and stepped descriptors, not
// apart (H100, kernels alone, one run, bench/results/2026-12-05h-h100-session call 3): block-scaled
// 119.4 / 879.1 us before both, 113.0 / 830.8 with generic stores (the spill), 114.1 / 863.6 with
// these at 4096^3 / 8192^3; variants `*_generic_staging` (bench/gemm_dev/variants.sh) turn it off.
constexpr bool kStagingStoresShared = true;

// One pass: columns [kPass * kCols, (kPass + 1) * kCols) of the tile, through buffer
// kPass % kBuffers.
// NOTE: a template per pass, not a loop over passes: with a loop ptxas kept d in local memory.
template <int kTileCols, int kCols, bool kScaled, int kBuffers, int kPass>
__device__ __forceinline__ void store_pass_tma(const float (&d)[kTileCols / 2], float scale,
                                               uint8_t* staging_base, uint32_t box_stride,
                                               const CUtensorMap* map_c, int consumer, int row0,
                                               int n0) {
  const int warp = (threadIdx.x / 32) % 4;
  const int lane = threadIdx.x % 32;
  const bool leader = threadIdx.x % 128 == 0;
  uint8_t* staging = staging_base + (kPass % kBuffers) * (kCols / kStoreBoxCols) * box_stride;
  if (leader) bulk_wait_group_read<kBuffers - 1>();
  named_barrier_sync<128>(2 + consumer);
#pragma unroll
  for (int c = 0; c < kCols / 8; ++c) {
    const int i = kPass * kCols / 8 + c;  // the accumulator's columns 8 i .. 8 i + 7
    uint8_t* box = staging + (c / 8) * box_stride;
    const int chunk = c % 8;  // 16-byte chunk of the box row
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int r = warp * 16 + lane / 4 + half * 8;
      const uint32_t offset = r * 128 + ((chunk ^ (r % 8)) * 16) + (lane % 4) * 4;
      float v0 = d[i * 4 + half * 2], v1 = d[i * 4 + half * 2 + 1];
      if constexpr (kScaled) v0 *= scale, v1 *= scale;
      const __nv_bfloat162 pair = __floats2bfloat162_rn(v0, v1);
      if constexpr (kStagingStoresShared)
        st_shared_b32(smem_addr(box) + offset, *reinterpret_cast<const uint32_t*>(&pair));
      else
        *reinterpret_cast<__nv_bfloat162*>(box + offset) = pair;
    }
  }
  fence_proxy_async_shared();
  named_barrier_sync<128>(2 + consumer);
  if (leader) {
#pragma unroll
    for (int j = 0; j < kCols / kStoreBoxCols; ++j)
      tma_store_2d(map_c, staging + j * box_stride, n0 + kPass * kCols + j * kStoreBoxCols, row0);
    bulk_commit_group();
  }
}

template <int kTileCols, int kCols, bool kScaled, int kBuffers, int... kPasses>
__device__ __forceinline__ void store_passes_tma(const float (&d)[kTileCols / 2], float scale,
                                                 uint8_t* staging, uint32_t box_stride,
                                                 const CUtensorMap* map_c, int consumer, int row0,
                                                 int n0, std::integer_sequence<int, kPasses...>) {
  (store_pass_tma<kTileCols, kCols, kScaled, kBuffers, kPasses>(d, scale, staging, box_stride,
                                                                map_c, consumer, row0, n0),
   ...);
}

// The whole tile; `scale` multiplies every value when kScaled (else it is not read).
template <int kTileCols, int kCols, bool kScaled = false, int kBuffers = 1>
__device__ __forceinline__ void store_tile_tma(const float (&d)[kTileCols / 2], float scale,
                                               uint8_t* staging, uint32_t box_stride,
                                               const CUtensorMap* map_c, int consumer, int row0,
                                               int n0) {
  static_assert(kCols % kStoreBoxCols == 0 && kTileCols % kCols == 0, "whole boxes, passes");
  static_assert(kBuffers >= 1 && kBuffers <= 8, "bulk_wait_group_read's immediate");
  store_passes_tma<kTileCols, kCols, kScaled, kBuffers>(
      d, scale, staging, box_stride, map_c, consumer, row0, n0,
      std::make_integer_sequence<int, kTileCols / kCols>{});
}

// A row-major (rows, cols) bf16 matrix written in (64, kStoreBoxCols) boxes with the 128-byte
// swizzle (store_tile_tma). Needs cols % 8 == 0 (16-byte row pitch) and a 16-byte aligned ptr.
bool encode_c_store(CUtensorMap* map, void* ptr, int64_t rows, int64_t cols) {
  auto encode = tensor_map_encoder();
  if (encode == nullptr || cols % 8 != 0 || reinterpret_cast<uintptr_t>(ptr) % 16 != 0)
    return false;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(cols) * 2};
  const cuuint32_t box[2] = {kStoreBoxCols, 64};
  const cuuint32_t element_strides[2] = {1, 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, ptr, dims, strides, box, element_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

}  // namespace
// ==== end kernels/gemm/sm90_tma_store_tile.cuh ====

namespace {
// Knobs of kernels/gemm/sm90_gemm_fp8_tma_ws.cuh. Both on: on the H200 the cold speedups of the
// four timed shapes went from 0.733 / 0.788 / 0.838 / 0.664 (both off) to 0.857 / 0.822 / 0.849 /
// 0.891 (bench/gemm_dev/variants.sh, one round; either alone gained less).
constexpr bool kPersistent = true;
constexpr bool kTmaStoreEpilogue = true;
// Pairs of CTAs along M with 8 blocks of two tile rows per raster group (16 tile rows, as the
// single-CTA raster): on the H200, over single CTAs with kGroupM 16, 8192^3 0.916 -> 0.929 and
// 0.896 -> 0.909 of cuBLASLt in two machine starts, the hidden shape +1.5%, 4096^3 and the
// few-row shape (one tile row: no cluster) level (bench/results/2026-12-04-*).
constexpr int kClusterM = 2;
constexpr int kGroupM = 8;
constexpr bool kStagedScales = false;  // one scale per tensor, applied once to C
}  // namespace

// ==== begin kernels/gemm/sm90_ring_position.cuh (generated: scripts/amalgamate.py) ====
// Where the next k-block goes in a warp-specialized kernel's ring of kDepth shared-memory stages:
// stage() and the parity of that stage's phase (the number of earlier passes over the ring, mod
// 2), phase(), which the full and empty mbarrier waits take; previous_stage(), the stage the
// consumers hand back after the next k-block's MMAs are issued. Two forms with the same sequence
// (checked on the host by tests/kernels/ring_position.cu): RingCount keeps a running count and
// divides it by kDepth at each use, RingPosition advances stage and phase one k-block at a time
// (no division, where kDepth is no power of two). Side by side on an H100
// (bench/results/2026-12-05g-h100-session, call 4), RingPosition took the block-scaled fp8 expert
// (kDepth 5) from 0.891 / 0.851 / 0.942 / 0.899 to 0.897 / 0.877 / 0.941 / 0.924 of cuBLASLt
// (4096^3 / 8192^3 / 128x8192x8192 / hidden) and the per-tensor one (kDepth 6) from 0.924 / 0.905
// to 0.909 / 0.891 (4096^3 / 8192^3): that one keeps RingCount. Experts hold a copy
// (scripts/amalgamate.py).

namespace {

template <uint32_t kDepth>
struct RingCount {
  static_assert(kDepth >= 1, "a ring of at least one stage");
  uint32_t count = 0;  // k-blocks through the ring so far
  __host__ __device__ __forceinline__ uint32_t stage() const { return count % kDepth; }
  __host__ __device__ __forceinline__ uint32_t phase() const { return (count / kDepth) & 1; }
  /// The stage of the k-block before this one (meaningless before the first advance()).
  __host__ __device__ __forceinline__ uint32_t previous_stage() const {
    return (count - 1) % kDepth;
  }
  __host__ __device__ __forceinline__ void advance() { ++count; }
};

template <uint32_t kDepth>
struct RingPosition {
  static_assert(kDepth >= 1, "a ring of at least one stage");
  uint32_t stage_ = 0;
  uint32_t phase_ = 0;
  __host__ __device__ __forceinline__ uint32_t stage() const { return stage_; }
  __host__ __device__ __forceinline__ uint32_t phase() const { return phase_; }
  /// The stage of the k-block before this one, around the ring (meaningless before the first
  /// advance()).
  __host__ __device__ __forceinline__ uint32_t previous_stage() const {
    return stage_ == 0 ? kDepth - 1 : stage_ - 1;
  }
  __host__ __device__ __forceinline__ void advance() {
    if (++stage_ == kDepth) {
      stage_ = 0;
      phase_ ^= 1;
    }
  }
};

}  // namespace
// ==== end kernels/gemm/sm90_ring_position.cuh ====
// ==== begin kernels/gemm/sm90_gemm_fp8_tma_ws.cuh (generated: scripts/amalgamate.py) ====
// The pieces of the warp-specialized TMA + wgmma E4M3 GEMM of the fp8 expert solutions (C = A *
// B^T with E4M3 operands, fp32 accumulation, bf16 out; row-major, K-major): the tile's shared
// memory and mbarrier ring, the producer, the consumers with partial sums promoted every k-block
// by a promotion policy (per-tensor: a plain sum; block-scaled: times that k-block's scales), the
// epilogue (stores from registers, or the TMA-store epilogue of gemm/sm90_tma_store_tile.cuh),
// split-K's partial stores and reduction (kSplitK), the tile loop and the host's tensor maps.
// Experts hold a copy (scripts/amalgamate.py); each chooses the two knobs below.

namespace {

constexpr int kBlockM = 128;
constexpr int kBlockN = 128;
constexpr int kBlockK = 128;  // 128 E4M3 = 128 bytes: one row of the 128-byte swizzle pattern
constexpr int kStages = kStagedScales ? 5 : 6;
constexpr int kConsumers = 2;  // consumer warpgroups, each (64, kBlockN)
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr uint32_t kATileBytes = kBlockM * kBlockK;
constexpr uint32_t kBTileBytes = kBlockN * kBlockK;
constexpr int kAccum = kBlockN / 2;  // fp32 accumulator registers per thread (64 x kBlockN / 128)
// The expert declares before this file, in the anonymous namespace: kPersistent (a CTA per SM
// loops over output tiles, the producer loading the next tile while the consumers store the
// last; else a CTA per tile), kTmaStoreEpilogue (C leaves through the TMA-store epilogue,
// staging of its own, (64, kBlockN) bf16 per consumer: 16 KB each, next to the 6 stages; else
// bf16x2 stores from registers), kGroupM (tile rows sharing each B column tile while it is in
// L2; in cluster launches, blocks of kClusterM tile rows) and kClusterM (CTAs per cluster along
// M: 1, or 2 for pairs computing tiles (m0, n0) and (m0 + kBlockM, n0), each loading its A tile
// and half of their common B tile, multicast into both: a quarter less L2-to-SM traffic per
// CTA; a launch pairs CTAs only with no split of K and two tile rows or more (cluster_for),
// otherwise it runs the kernels' 1-CTA instantiation) and kStagedScales (the block-scaled
// expert's scales loaded by TMA with each stage's tiles into a slot per stage, ScaleSlot; the
// ring then has 5 stages, 6 do not fit beside the slots; false for the per-tensor expert).
static_assert(kClusterM == 1 || kClusterM == 2, "clusters of 1 or 2 CTAs along M");
static_assert(kGroupM >= 1, "at least one tile row per raster group");
constexpr uint32_t kStagingBytes = 64 * kBlockN * 2;  // a consumer's staged tile

struct SharedStorage {
  uint8_t a[kStages][kBlockM * kBlockK];  // (kBlockM, kBlockK) per stage, swizzled
  uint8_t b[kStages][kBlockN * kBlockK];  // (kBlockN, kBlockK) per stage, swizzled
  uint64_t full[kStages];
  uint64_t empty[kStages];
  // NOTE: last, so that the layout before it does not depend on kTmaStoreEpilogue.
  static constexpr size_t kStagingAlign = kTmaStoreEpilogue ? 1024 : 8;  // the swizzle atom
  alignas(kStagingAlign) uint8_t staging[kTmaStoreEpilogue ? kConsumers * kStagingBytes : 8];
};
// A stage's scales when kStagedScales, each a 1-D TMA box of its tensor read flat, starting on
// the 16-byte boundary at or before the first value the tile needs: a[lead + r] = sa[kb, m0 + r]
// for the tile's rows, lead = scale_lead(kb * M + m0) (rows past M hold whatever follows in sa,
// or zeros past its end: those rows are never stored), and b[lead] = sb[n0 / kBlockN, kb], lead =
// scale_lead(n-block * k_blocks + kb) (the rest unused). NOTE: a 1-D TMA load must start on a
// 16-byte boundary: at element starts 1, 2, 3, 5 and 31 every box size from 4 to 128 fp32 values
// stopped with "illegal instruction", at 0, 4, 8, 32 and 60 all loaded (H100,
// bench/probes/tma_1d_probe.cu, bench/results/2026-12-05f-h100-session). Placed after
// SharedStorage (sizeof a multiple of its 1024-byte alignment), so that its layout is the same
// either way.
constexpr int kScaleLead = 4;    // fp32 values in 16 bytes: boxes start at multiples of it
struct alignas(128) ScaleSlot {  // NOTE: 128-byte aligned TMA destinations
  float a[kBlockM + kScaleLead];
  alignas(128) float b[32];  // a TMA box of 128 bytes
};
static_assert(kBlockM + kScaleLead <= 256, "a TMA box holds at most 256 values a dimension");
static_assert(sizeof(ScaleSlot::a) % 16 == 0 && sizeof(ScaleSlot::b) % 16 == 0,
              "a TMA box's inner dimension is a multiple of 16 bytes");
// The place in its slot's box of the scale at flat index `first` >= 0 (the values before it in
// the box: its 16-byte boundary's). The producer's box starts at first - scale_lead(first).
// NOTE: an unsigned remainder, a mask; a signed one costs the consumers a sign fix-up (four
// instructions in two k-blocks).
[[maybe_unused]] __host__ __device__ constexpr int scale_lead(int first) {
  return static_cast<int>(static_cast<uint32_t>(first) % kScaleLead);
}
// NOTE: [[maybe_unused]]: the per-tensor expert has no use for the slots.
[[maybe_unused]] constexpr uint32_t kScaleABytes = sizeof(ScaleSlot::a);
[[maybe_unused]] constexpr uint32_t kScaleBBytes = sizeof(ScaleSlot::b);
constexpr size_t kScaleSlotsBytes = kStagedScales ? kStages * sizeof(ScaleSlot) : 0;
// NOTE: +1024 so the kernel can align the dynamic shared-memory base to the swizzle atom.
constexpr size_t kSharedBytes = sizeof(SharedStorage) + kScaleSlotsBytes + 1024;
static_assert(kSharedBytes <= 227 * 1024, "sm_90's opt-in shared memory per block");

// wgmma m64n128k32, e4m3 x e4m3 -> f32, A and B from shared memory (K-major: fp8 has no
// transposed form). Accumulates into d (64 floats per thread) when scale_d != 0, overwrites it
// when 0.
__device__ __forceinline__ void wgmma_m64n128k32_e4m3(float (&d)[kAccum], uint64_t desc_a,
                                                      uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {"
      "%0, %1, %2, %3, %4, %5, %6, %7,"
      "%8, %9, %10, %11, %12, %13, %14, %15,"
      "%16, %17, %18, %19, %20, %21, %22, %23,"
      "%24, %25, %26, %27, %28, %29, %30, %31,"
      "%32, %33, %34, %35, %36, %37, %38, %39,"
      "%40, %41, %42, %43, %44, %45, %46, %47,"
      "%48, %49, %50, %51, %52, %53, %54, %55,"
      "%56, %57, %58, %59, %60, %61, %62, %63},"
      " %64, %65, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

struct TileCoord {
  int m0;
  int n0;
};

// Grouped raster: kGroupM consecutive tile rows share each B column tile while it is in L2.
__device__ __forceinline__ TileCoord tile_of_block(int block, int tiles_m, int tiles_n) {
  const int per_group = kGroupM * tiles_n;
  const int group = block / per_group;
  const int first_m = group * kGroupM;
  const int rows_in_group = min(tiles_m - first_m, kGroupM);
  const int in_group = block % per_group;
  return {(first_m + in_group % rows_in_group) * kBlockM, (in_group / rows_in_group) * kBlockN};
}

// Work units of a launch in clusters of kCluster CTAs along M: unit u is block u % blocks of C
// (grouped raster over blocks of kCluster tile rows by one tile column) and split u / blocks of
// K; the CTA of rank r in its cluster computes the block's tile row r (a row past M, in the last
// block of an odd number of tile rows, loads zeros and stores nothing).
template <int kCluster>
struct UnitMap {
  int rows, tiles_n, blocks, rank;
  __device__ __forceinline__ UnitMap(int M, int N)
      : rows(((M + kBlockM - 1) / kBlockM + kCluster - 1) / kCluster),
        tiles_n((N + kBlockN - 1) / kBlockN),
        blocks(rows * tiles_n),
        rank(kCluster == 1 ? 0 : static_cast<int>(cluster_ctarank())) {}
  __device__ __forceinline__ TileCoord tile(int u) const {
    const TileCoord block = tile_of_block(u % blocks, rows, tiles_n);
    if constexpr (kCluster == 1) return block;
    return {(block.m0 / kBlockM * kCluster + rank) * kBlockM, block.n0};
  }
  __device__ __forceinline__ int split(int u) const { return u / blocks; }
};

// This thread's first row of a consumer's (64, kBlockN) tile starting at row0; its second is 8
// below. Fragment layout of wgmma's D: row warp*16 + lane/4 (+8), cols 8i + 2(lane%4) (+1).
__device__ __forceinline__ int fragment_row(int row0) {
  return row0 + ((threadIdx.x / 32) % 4) * 16 + (threadIdx.x % 32) / 4;
}

// Writes a consumer's (64, kBlockN) fp32 accumulator tile times `scale` as bf16, masking rows >= M,
// cols >= N.
__device__ __forceinline__ void store_tile(const float (&d)[kAccum], float scale, __nv_bfloat16* c,
                                           int row0, int n0, int M, int N) {
  const int lane = threadIdx.x % 32;
  const int row_a = fragment_row(row0);
  const bool pair_ok = (N % 2) == 0;  // bf16x2 stores need an even row pitch
#pragma unroll
  for (int i = 0; i < kBlockN / 8; ++i) {
    const int col = n0 + i * 8 + (lane % 4) * 2;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = row_a + half * 8;
      if (row >= M || col >= N) continue;
      const float v0 = d[i * 4 + half * 2] * scale;
      const float v1 = d[i * 4 + half * 2 + 1] * scale;
      __nv_bfloat16* dst = c + static_cast<int64_t>(row) * N + col;
      if (pair_ok && col + 1 < N) {
        *reinterpret_cast<__nv_bfloat162*>(dst) = __floats2bfloat162_rn(v0, v1);
      } else {
        dst[0] = __float2bfloat16_rn(v0);
        if (col + 1 < N) dst[1] = __float2bfloat16_rn(v1);
      }
    }
  }
}

// Writes a consumer's (64, kBlockN) fp32 accumulator tile times `scale` as fp32 partial sums into
// `part` (row-major (M, N)), masking rows >= M, cols >= N; float2 stores when N is even.
__device__ __forceinline__ void store_partial(const float (&d)[kAccum], float scale, float* part,
                                              int row0, int n0, int M, int N) {
  const int lane = threadIdx.x % 32;
  const int row_a = fragment_row(row0);
#pragma unroll
  for (int i = 0; i < kBlockN / 8; ++i) {
    const int col = n0 + i * 8 + (lane % 4) * 2;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = row_a + half * 8;
      if (row >= M || col >= N) continue;
      float* dst = part + static_cast<int64_t>(row) * N + col;
      const float v0 = d[i * 4 + half * 2] * scale, v1 = d[i * 4 + half * 2 + 1] * scale;
      if (N % 2 == 0 && col + 1 < N) {
        *reinterpret_cast<float2*>(dst) = make_float2(v0, v1);
      } else {
        dst[0] = v0;
        if (col + 1 < N) dst[1] = v1;
      }
    }
  }
}

// Split-K for shapes whose output tiles fill less than half the SMs (few rows): `splits` work
// units per tile, each kMinKBlocksPerSplit k-blocks at least, their fp32 partials (times the
// scale) summed in split order by reduce_splits, a programmatic dependent launch of the GEMM
// kernel (its CTAs allow it at their start; it waits for the GEMM grid). Both experts split; the
// block-scaled one applies each split's own block scales at its promotions. H200, with
// kOverlapPromotion: per tensor 128x8192x8192 0.867 -> 0.884 of cuBLASLt
// (bench/results/2026-12-03f-h200-session-083f534), block-scaled 0.876 -> 0.971-0.988
// (bench/results/2026-12-03g-h200-session-2d2472b, call C), the other shapes level
// (bench/gemm_dev/variants.sh `fp8_nosplitk`, `fp8b_nosplitk`).
constexpr bool kSplitK = true;
constexpr int kMinKBlocksPerSplit = 4;  // 512 E4M3 elements of K
SplitK split_k(int64_t M, int64_t N, int64_t K, int sms) {
  const int64_t tiles = ((M + kBlockM - 1) / kBlockM) * ((N + kBlockN - 1) / kBlockN);
  const int k_blocks = static_cast<int>((K + kBlockK - 1) / kBlockK);
  return cut_k(k_blocks, kSplitK ? few_tile_splits(tiles, k_blocks, sms, kMinKBlocksPerSplit) : 1);
}

// The shared memory of a CTA, aligned to 1024 bytes (the 128-byte swizzle's period).
__device__ __forceinline__ SharedStorage& shared_storage() {
  extern __shared__ uint8_t smem_raw[];
  return *reinterpret_cast<SharedStorage*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) &
                                           ~uintptr_t(1023));
}

// The ScaleSlots of the ring's stages (kStagedScales), after shared_storage().
[[maybe_unused]] __device__ __forceinline__ ScaleSlot* scale_slots(SharedStorage& smem) {
  return reinterpret_cast<ScaleSlot*>(reinterpret_cast<uint8_t*>(&smem) + sizeof(SharedStorage));
}

// Calls body(u) for each work unit u of this CTA's cluster c (blockIdx.x / kCluster of the
// launch's C clusters): c, c + C, ... below `units` when kPersistent, else c alone (a cluster
// per unit).
template <int kCluster = 1, typename Body>
__device__ __forceinline__ void for_each_tile(int units, Body&& body) {
  const int cluster = static_cast<int>(blockIdx.x) / kCluster;
  if constexpr (kPersistent) {
    const int clusters = static_cast<int>(gridDim.x) / kCluster;
    for (int u = cluster; u < units; u += clusters) body(u);
  } else {
    body(cluster);
  }
}

// Thread 0: one full and one empty mbarrier per stage (the empty one counts the consumer warps
// of every CTA of the cluster: they all read the stage's multicast half of B).
template <int kCluster = 1>
__device__ __forceinline__ void init_barriers(SharedStorage& smem) {
  for (int s = 0; s < kStages; ++s) {
    mbar_init(&smem.full[s], 1);
    mbar_init(&smem.empty[s], kCluster * kConsumers * 4);  // lane 0 of every consumer warp
  }
  fence_mbarrier_init();
}

// Every thread, after thread 0's init_barriers: the barriers exist (in every CTA of the cluster)
// before any thread waits on them or a peer multicasts or arrives there.
template <int kCluster = 1>
__device__ __forceinline__ void barriers_ready() {
  if constexpr (kCluster == 1) {
    __syncthreads();
  } else {
    __syncwarp();  // barrier.cluster is .aligned: the warp converged
    cluster_sync();
  }
}

// The producer thread: streams the tile's (kBlockM, kBlockK) A and (kBlockN, kBlockK) B k-blocks
// through the ring: k_blocks of them from k-block kb_begin (a split of K; 0: the whole K). `ring`
// (RingCount or RingPosition, gemm/sm90_ring_position.cuh) is where this CTA's earlier tiles left
// the ring (a fresh one for the first) and is advanced past this tile's. In a cluster of 2 (map_b's
// box: kBlockN / 2 rows) each CTA loads its half of B into both CTAs; a CTA's full barrier still
// expects the whole B tile. `extra` loads StageLoads::kBytes more into stage s for k-block kb of
// tile (m0, n0) on the stage's full barrier: extra.load(smem, s, kb, m0, n0). Each expert defines
// its StageLoads (the per-tensor expert: none; the block-scaled one: its scales, into the stage's
// ScaleSlot).
template <int kCluster, typename StageLoads, typename Ring>
__device__ __forceinline__ void produce(SharedStorage& smem, const CUtensorMap* map_a,
                                        const CUtensorMap* map_b, int m0, int n0, int k_blocks,
                                        Ring& ring, int kb_begin, const StageLoads& extra) {
  prefetch_map(map_a);
  prefetch_map(map_b);
  for (int kb = 0; kb < k_blocks; ++kb, ring.advance()) {
    const uint32_t s = ring.stage();
    // NOTE: a fresh barrier counts as having completed the phase before phase 0, so the first
    // pass over the ring (parity 1) does not wait.
    mbar_wait(&smem.empty[s], ring.phase() ^ 1);
    mbar_arrive_expect_tx(&smem.full[s], kATileBytes + kBTileBytes + StageLoads::kBytes);
    tma_load_2d(smem.a[s], map_a, &smem.full[s], (kb_begin + kb) * kBlockK, m0);
    extra.load(smem, s, kb_begin + kb, m0, n0);
    if constexpr (kCluster == 1) {
      tma_load_2d(smem.b[s], map_b, &smem.full[s], (kb_begin + kb) * kBlockK, n0);
    } else {
      constexpr int kHalf = kBlockN / kCluster;
      const uint32_t rank = cluster_ctarank();
      tma_load_2d_multicast(smem.b[s] + rank * kHalf * kBlockK, map_b, &smem.full[s],
                            (kb_begin + kb) * kBlockK, n0 + static_cast<int>(rank) * kHalf,
                            (1u << kCluster) - 1);
    }
  }
}

// The producer thread, after its last unit in a cluster of 2: waits until the consumers of both
// CTAs released every stage, so that no peer arrives on this CTA's barriers after it exits.
template <int kCluster, typename Ring>
__device__ __forceinline__ void producer_tail(SharedStorage& smem, Ring ring) {
  if constexpr (kCluster > 1)
    for (int i = 0; i < kStages; ++i, ring.advance())
      mbar_wait(&smem.empty[ring.stage()], ring.phase() ^ 1);
}

// Lane 0 of a consumer warp: stage `s` read, back to the producer of every CTA of the cluster
// (each refills the stage's half of B in both).
template <int kCluster = 1>
__device__ __forceinline__ void release_stage(SharedStorage& smem, uint32_t s) {
  if constexpr (kCluster == 1) {
    mbar_arrive(&smem.empty[s]);
  } else {
#pragma unroll
    for (uint32_t cta = 0; cta < kCluster; ++cta) mbar_arrive_cluster(&smem.empty[s], cta);
  }
}

// A promotion policy (each expert defines its own): Scales load(kb, s) gives what
// apply(scales, part, acc) needs to add k-block kb's partial sums `part` into `acc` (stage s);
// consume() calls it before waiting for the stage when kReadsStage is false (global loads that
// overlap the wait), after it when true (loads from the stage's ScaleSlot).

// Whether a consumer promotes each k-block's partial sums while the next k-block's MMAs run (two
// partial buffers, alternating) instead of after waiting for its own MMAs (the tensor cores of
// this warpgroup idle during every promotion). H200
// (bench/results/2026-12-03f-h200-session-083f534): per tensor 0.855/0.829/0.863/0.894 ->
// 0.927/0.888/0.867/0.943 of cuBLASLt, block-scaled 0.697/0.678/0.680/0.671 ->
// 0.837/0.844/0.908/0.785 (bench/gemm_dev/variants.sh `fp8_nooverlap`, `fp8b_nooverlap`).
constexpr bool kOverlapPromotion = true;

// Whether mma_k_block forms the descriptors of a k-block's k-slices from the first slice's
// (wgmma_desc_advance by the slice's 32 bytes) instead of from each slice's address (a mask, a
// shift and an or per descriptor: 8 descriptors a k-block). In the block-scaled consumers' loop,
// 109 -> 93 instructions besides the FFMAs in two k-blocks (ptxas 13.0). H100, one machine start
// (bench/results/2026-12-05g-h100-session, calls 7 and 8): kernels alone, block-scaled 126.2 ->
// 119.6 us at 4096^3 and 913.7 -> 871.7 at 8192^3, per tensor 111.7 -> 108.8 and 828.8 -> 827.5;
// `ptxbench eval`, one round, block-scaled (with the unsigned scale_lead below) 0.905 / 0.896 /
// 0.942 / 0.901 -> 0.946 / 0.944 / 0.944 / 0.932 of cuBLASLt, per tensor 0.917 / 0.910 / 1.102 /
// 0.917 -> 0.925 / 0.909 / 1.103 / 0.926 (bench/gemm_dev/variants.sh `fp8b_slicedesc`,
// `fp8_slicedesc` turn it off).
constexpr bool kStepDescriptors = true;

// The MMAs of one k-block (stage s) for consumer warpgroup `consumer` into `part`, committed as
// one group.
__device__ __forceinline__ void mma_k_block(SharedStorage& smem, int consumer, uint32_t s,
                                            float (&part)[kAccum]) {
  const uint8_t* a_tile = smem.a[s] + consumer * 64 * kBlockK;  // (64, kBlockK)
  const uint8_t* b_tile = smem.b[s];                            // (kBlockN, kBlockK)
  const uint64_t a_desc = wgmma_desc_sw128(a_tile, 16, 1024);
  const uint64_t b_desc = wgmma_desc_sw128(b_tile, 16, 1024);
  wgmma_fence();
#pragma unroll
  for (int k = 0; k < kBlockK / 32; ++k) {
    // NOTE: inside a 128-byte swizzled row, the k-th 32-element slice starts 32*k bytes in;
    // the hardware applies the swizzle to the computed addresses.
    const uint64_t a_slice = wgmma_desc_sw128_slice<kStepDescriptors>(a_tile, a_desc, 32 * k);
    const uint64_t b_slice = wgmma_desc_sw128_slice<kStepDescriptors>(b_tile, b_desc, 32 * k);
    wgmma_m64n128k32_e4m3(part, a_slice, b_slice, k > 0 ? 1 : 0);
  }
  wgmma_commit();
}

// Consumer warpgroup `consumer`: its (64, kBlockN) half of the tile in acc (fp32). Each k-block's
// MMAs accumulate in a partial buffer (the tensor cores' fp8 accumulation), then promotion.apply
// adds it into acc; promotion.load(kb, s) runs before the k-block's wait, so its loads overlap the
// MMAs (or after it, reading the stage: Promotion::kReadsStage). The k-blocks are kb_begin ..
// kb_begin + k_blocks - 1 (a split of K; 0: from the first). kOverlapPromotion: k-block kb's MMAs
// go into buffer kb % 2 and are issued before k-block kb - 1 is promoted (once its group is done:
// wgmma_wait<1>). `ring` as in produce(): the consumers' position runs in step with the
// producer's.
template <int kCluster = 1, typename Promotion, typename Ring>
__device__ __forceinline__ void consume(SharedStorage& smem, int consumer, int k_blocks,
                                        const Promotion& promotion, float (&acc)[kAccum],
                                        Ring& ring, int kb_begin = 0) {
  const bool lane0 = (threadIdx.x % 32) == 0;
  float part[kAccum];
#pragma unroll
  for (int i = 0; i < kAccum; ++i) acc[i] = 0.f;
  // Waits for stage s (at the ring's position) and gives k-block kb's scales, loaded before the
  // wait or after it (Promotion::kReadsStage).
  auto wait_and_load = [&](int kb, uint32_t s) {
    if constexpr (Promotion::kReadsStage) {
      mbar_wait(&smem.full[s], ring.phase());
      return promotion.load(kb, s);
    } else {
      const auto scales = promotion.load(kb, s);
      mbar_wait(&smem.full[s], ring.phase());
      return scales;
    }
  };

  if constexpr (kOverlapPromotion) {
    // At the loop's head `part` holds the newest k-block, in flight; `other` is free.
    float other[kAccum];
    decltype(promotion.load(0, 0)) part_scales{}, other_scales{};
    // Issues k-block kb's MMAs into `into`, then promotes the k-block before it (`done`, its group
    // finished once only the newest may run) and hands its stage back.
    auto step = [&](int kb, float(&into)[kAccum], float(&done)[kAccum],
                    decltype(promotion.load(0, 0))& into_scales,
                    const decltype(promotion.load(0, 0))& done_scales) {
      const uint32_t s = ring.stage();
      into_scales = wait_and_load(kb_begin + kb, s);
      mma_k_block(smem, consumer, s, into);
      wgmma_wait<1>();
      fence_regs(done);
      if (lane0) release_stage<kCluster>(smem, ring.previous_stage());
      promotion.apply(done_scales, done, acc);
      ring.advance();
    };
    if (k_blocks == 0) return;
    {
      const uint32_t s = ring.stage();
      part_scales = wait_and_load(kb_begin, s);
      mma_k_block(smem, consumer, s, part);
      ring.advance();
    }
    int kb = 1;
    for (; kb + 1 < k_blocks; kb += 2) {
      step(kb, other, part, other_scales, part_scales);
      step(kb + 1, part, other, part_scales, other_scales);
    }
    if (kb < k_blocks) {  // one k-block left: into `other`, and `other` promoted last
      step(kb, other, part, other_scales, part_scales);
      wgmma_wait<0>();
      fence_regs(other);
      if (lane0) release_stage<kCluster>(smem, ring.previous_stage());
      promotion.apply(other_scales, other, acc);
    } else {
      wgmma_wait<0>();
      fence_regs(part);
      if (lane0) release_stage<kCluster>(smem, ring.previous_stage());
      promotion.apply(part_scales, part, acc);
    }
  } else {
    for (int kb = 0; kb < k_blocks; ++kb, ring.advance()) {
      const uint32_t s = ring.stage();
      const auto scales = wait_and_load(kb_begin + kb, s);
      mma_k_block(smem, consumer, s, part);
      wgmma_wait<0>();  // the stage is read and `part` complete: release, then promote
      fence_regs(part);
      if (lane0) release_stage<kCluster>(smem, s);
      promotion.apply(scales, part, acc);
    }
  }
}

// A consumer's tile of C: acc times `scale`, through the TMA-store epilogue when store_by_tma
// (kTmaStoreEpilogue and a map of C), else from registers.
__device__ __forceinline__ void store_output(const float (&acc)[kAccum], float scale,
                                             SharedStorage& smem, const CUtensorMap* map_c,
                                             bool store_by_tma, __nv_bfloat16* c, int consumer,
                                             int row0, int n0, int M, int N) {
  if (kTmaStoreEpilogue && store_by_tma)
    store_tile_tma<kBlockN, kBlockN, true>(acc, scale, smem.staging + consumer * kStagingBytes,
                                           64 * kStoreBoxCols * 2, map_c, consumer, row0, n0);
  else
    store_tile(acc, scale, c, row0, n0, M, N);
}

// A consumer warpgroup after its last tile: the TMA stores still reading its staging finish
// before the CTA exits.
__device__ __forceinline__ void finish_stores() {
  if (kTmaStoreEpilogue && threadIdx.x % 128 == 0) bulk_wait_group_read<0>();
}

// ---- host side ----

int g_sms = 0;  // the device's SM count, read by read_sm_count (ptxb_plan)

bool read_sm_count() {
  int device = 0;
  return cudaGetDevice(&device) == cudaSuccess &&
         cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess;
}

// Lets `kernel` (an instantiation of an expert's kernel) take kSharedBytes of shared memory.
template <typename Kernel>
bool allow_shared_bytes(Kernel kernel) {
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              static_cast<int>(kSharedBytes)) == cudaSuccess;
}

// CTAs for `units` work units in clusters of `cluster` CTAs: a cluster per unit, or at most as
// many clusters as the SMs hold when kPersistent.
int grid_for(int units, int cluster = 1) {
  const int clusters = g_sms / cluster;
  return (kPersistent && clusters > 0 && clusters < units ? clusters : units) * cluster;
}

// The cluster size of a launch: kClusterM where K is not split and C has two tile rows or more.
int cluster_for(const SplitK& split, int64_t M) {
  return kClusterM > 1 && split.splits == 1 && M > kBlockM ? kClusterM : 1;
}

// `kernel` on `blocks` CTAs (a multiple of `cluster`) in clusters of `cluster` CTAs along x (a
// plain launch for 1).
template <typename... Params, typename... Args>
cudaError_t launch_in_clusters(void (*kernel)(Params...), int blocks, int cluster,
                               cudaStream_t stream, Args... args) {
  cudaLaunchAttribute cluster_dims = {};
  cluster_dims.id = cudaLaunchAttributeClusterDimension;
  cluster_dims.val.clusterDim = {static_cast<unsigned>(cluster), 1, 1};
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(blocks));
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = kSharedBytes;
  config.stream = stream;
  config.attrs = &cluster_dims;
  config.numAttrs = cluster > 1 ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...);
}

// Whether C can leave by TMA stores (kTmaStoreEpilogue and a 16-byte row pitch); maps it if so.
bool map_output(CUtensorMap* map_c, void* c, int64_t M, int64_t N) {
  return kTmaStoreEpilogue && encode_c_store(map_c, c, M, N);
}

// A row-major (rows, k) E4M3 matrix read in (box_rows, kBlockK) boxes with the 128-byte swizzle.
bool encode_k_major(CUtensorMap* map, const void* ptr, int64_t rows, int64_t k, uint32_t box_rows) {
  auto encode = tensor_map_encoder();
  if (encode == nullptr) return false;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(k), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(k)};
  const cuuint32_t box[2] = {kBlockK, box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, const_cast<void*>(ptr), dims, strides, box,
                element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

bool is_row_major_2d(const ptxb_tensor_desc& t, int32_t dtype, int64_t rows, int64_t cols) {
  return t.dtype == dtype && t.rank == 2 && t.shape[0] == rows && t.shape[1] == cols &&
         t.strides[0] == cols && t.strides[1] == 1;
}

enum Status : int { kBadProblem = 1, kNoTensorMap = 2, kLaunchFailed = 3 };

// The workspace ptxb_plan asks for: the fp32 partials of every split where split_k splits the
// problem's (M, K) x (N, K) product, else none. Needs read_sm_count first.
uint64_t split_workspace_bytes(const ptxb_problem& problem) {
  if (problem.num_inputs < 2 || problem.inputs[0].rank != 2 || problem.inputs[1].rank != 2)
    return 0;
  const int64_t M = problem.inputs[0].shape[0], K = problem.inputs[0].shape[1],
                N = problem.inputs[1].shape[0];
  return split_partial_bytes(split_k(M, N, K, g_sms), M, N);
}

}  // namespace
// ==== end kernels/gemm/sm90_gemm_fp8_tma_ws.cuh ====

namespace {

// The per-tensor expert's stages hold A's and B's tiles alone (produce's StageLoads).
struct NoStageLoads {
  static constexpr uint32_t kBytes = 0;
  __device__ __forceinline__ void load(SharedStorage&, uint32_t, int, int, int) const {}
};

// Per-tensor promotion (consume's policy): every k-block's partial sums added into fp32 as they
// are; s_a * s_b scales C once, at the store.
struct SumPromotion {
  static constexpr bool kReadsStage = false;
  struct Scales {};
  __device__ __forceinline__ Scales load(int, uint32_t) const { return {}; }
  __device__ __forceinline__ void apply(Scales, const float (&part)[kAccum],
                                        float (&acc)[kAccum]) const {
#pragma unroll
    for (int i = 0; i < kAccum; ++i) acc[i] += part[i];
  }
};

// Narrow whole-K tiles for few-row shapes (as the bf16 TMA experts'
// gemm/sm90_gemm_bf16_narrow.cuh): where M is one tile row at least kNarrowMinFill full, the
// 128x128 tiles would be split along K (they fill at most half the SMs), (kBlockM, kNarrowN) =
// (128, 64) tiles fill at least kNarrowMinFill of the SMs (128x8192x8192: 128 tiles on 132 SMs)
// and K is whole k-blocks, one CTA per narrow tile over the whole of K: kNarrowStages of
// (128x128-byte) A and (64x128-byte) B, B's boxes evict_first, two consumer warpgroups of wgmma
// m64n64k32 promoting every k-block as the main kernel does (each k-block into one of two partial
// buffers while the other is added into fp32), C times s_a * s_b stored from registers. No fp32
// partials and no second kernel. H200, kernel alone (bench/results/2026-12-04b-*, call D):
// 128x8192x8192 25.7 us against 31.5 with split-K, 128x7168x5120 17.7 against 22.3; with a K tail,
// 100x8000x4112, 25.8 against 24.1 (hence whole k-blocks).
constexpr bool kNarrowFewRows = true;
constexpr int kNarrowN = 64;
constexpr int kNarrowStages = 8;
constexpr uint32_t kNarrowBTileBytes = kNarrowN * kBlockK;
constexpr int kNarrowMinFillNum = 3, kNarrowMinFillDen = 4;  // kNarrowMinFill = 3/4

struct NarrowStorage {
  uint8_t a[kNarrowStages][kBlockM * kBlockK];   // (kBlockM, kBlockK) per stage, swizzled
  uint8_t b[kNarrowStages][kNarrowN * kBlockK];  // (kNarrowN, kBlockK) per stage, swizzled
  uint64_t full[kNarrowStages];
  uint64_t empty[kNarrowStages];
};
constexpr size_t kNarrowSharedBytes = sizeof(NarrowStorage) + 1024;  // +1024: alignment
static_assert(kNarrowSharedBytes <= 227 * 1024, "sm_90's opt-in shared memory per block");

// wgmma m64n64k32, e4m3 x e4m3 -> f32, A and B from shared memory (K-major). Accumulates into d
// when scale_d != 0, overwrites it when 0.
__device__ __forceinline__ void wgmma_m64n64k32_e4m3(float (&d)[32], uint64_t desc_a,
                                                     uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31},"
      " %32, %33, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

// Whether an (M, N, K) product runs on narrow tiles (see above), on `sms` SMs.
bool use_narrow(int64_t M, int64_t N, int64_t K, int sms) {
  const int64_t wide_tiles = ((M + kBlockM - 1) / kBlockM) * ((N + kBlockN - 1) / kBlockN);
  const int64_t tiles = (N + kNarrowN - 1) / kNarrowN;
  return kNarrowFewRows && wide_tiles * 2 <= sms && M <= kBlockM && K % kBlockK == 0 &&
         M * kNarrowMinFillDen >= kBlockM * kNarrowMinFillNum && tiles <= sms &&
         tiles * kNarrowMinFillDen >= sms * kNarrowMinFillNum;
}

// C[:, n0 .. n0 + kNarrowN) = s_a * s_b * A * B^T over all of K, n0 = blockIdx.x * kNarrowN; M is
// one tile row (use_narrow).
__global__ void __launch_bounds__(kThreads, 1)
    gemm_fp8_narrow(const __grid_constant__ CUtensorMap map_a,
                    const __grid_constant__ CUtensorMap map_b, const float* scale_a,
                    const float* scale_b, __nv_bfloat16* c, int M, int N, int K) {
  extern __shared__ uint8_t narrow_raw[];
  NarrowStorage& smem = *reinterpret_cast<NarrowStorage*>(
      (reinterpret_cast<uintptr_t>(narrow_raw) + 1023) & ~uintptr_t(1023));
  const int warpgroup = warpgroup_index();
  const int n0 = blockIdx.x * kNarrowN;
  const int k_blocks = (K + kBlockK - 1) / kBlockK;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kNarrowStages; ++s) {
      mbar_init(&smem.full[s], 1);
      mbar_init(&smem.empty[s], kConsumers * 4);  // lane 0 of every consumer warp
    }
    fence_mbarrier_init();
  }
  __syncthreads();

  if (warpgroup == 0) {
    if (threadIdx.x != 0) return;
    prefetch_map(&map_a);
    prefetch_map(&map_b);
    const uint64_t policy_b = l2_policy_evict_first();
    for (int kb = 0; kb < k_blocks; ++kb) {
      const int s = kb % kNarrowStages;
      mbar_wait(&smem.empty[s], ((kb / kNarrowStages) & 1) ^ 1);
      mbar_arrive_expect_tx(&smem.full[s], kATileBytes + kNarrowBTileBytes);
      tma_load_2d(smem.a[s], &map_a, &smem.full[s], kb * kBlockK, 0);
      tma_load_2d_hint(smem.b[s], &map_b, &smem.full[s], kb * kBlockK, n0, policy_b);
    }
    return;
  }

  const int consumer = warpgroup - 1;  // rows [consumer * 64, consumer * 64 + 64)
  const bool lane0 = threadIdx.x % 32 == 0;
  float acc[32], part[32], other[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) acc[i] = 0.f;
  // k-block kb's MMAs into `into` (overwritten), one commit group.
  auto mma = [&](int kb, float(&into)[32]) {
    const int s = kb % kNarrowStages;
    mbar_wait(&smem.full[s], (kb / kNarrowStages) & 1);
    const uint8_t* a_tile = smem.a[s] + consumer * 64 * kBlockK;  // (64, kBlockK)
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < kBlockK / 32; ++k)
      wgmma_m64n64k32_e4m3(into, wgmma_desc_sw128(a_tile + k * 32, 16, 1024),
                           wgmma_desc_sw128(smem.b[s] + k * 32, 16, 1024), k > 0 ? 1 : 0);
    wgmma_commit();
  };
  // k-block kb's finished partial sums `done` into acc, its stage back to the producer.
  auto promote = [&](int kb, float(&done)[32]) {
    fence_regs(done);
    if (lane0) mbar_arrive(&smem.empty[kb % kNarrowStages]);
#pragma unroll
    for (int i = 0; i < 32; ++i) acc[i] += done[i];
  };
  mma(0, part);
  int kb = 1;
  for (; kb + 1 < k_blocks; kb += 2) {  // `part` holds k-block kb - 1, in flight
    mma(kb, other);
    wgmma_wait<1>();
    promote(kb - 1, part);
    mma(kb + 1, part);
    wgmma_wait<1>();
    promote(kb, other);
  }
  if (kb < k_blocks) {  // one k-block left
    mma(kb, other);
    wgmma_wait<1>();
    promote(kb - 1, part);
    wgmma_wait<0>();
    promote(kb, other);
  } else {
    wgmma_wait<0>();
    promote(kb - 1, part);
  }

  const float scale = *scale_a * *scale_b;
  const int lane = threadIdx.x % 32;
  const int row_a = consumer * 64 + ((threadIdx.x / 32) % 4) * 16 + lane / 4;
#pragma unroll
  for (int i = 0; i < kNarrowN / 8; ++i) {
    const int col = n0 + i * 8 + (lane % 4) * 2;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = row_a + half * 8;
      if (row >= M || col >= N) continue;
      const float v0 = acc[i * 4 + half * 2] * scale, v1 = acc[i * 4 + half * 2 + 1] * scale;
      __nv_bfloat16* dst = c + static_cast<int64_t>(row) * N + col;
      if (N % 2 == 0 && col + 1 < N) {
        *reinterpret_cast<__nv_bfloat162*>(dst) = __floats2bfloat162_rn(v0, v1);
      } else {
        dst[0] = __float2bfloat16_rn(v0);
        if (col + 1 < N) dst[1] = __float2bfloat16_rn(v1);
      }
    }
  }
}

// C on narrow tiles (use_narrow): PTXB_OK, kNoTensorMap or kLaunchFailed.
int run_narrow(const ptxb_args& args, int64_t M, int64_t N, int64_t K, cudaStream_t stream) {
  CUtensorMap map_a, map_b;
  if (!encode_k_major(&map_a, args.inputs[0], M, K, kBlockM) ||
      !encode_k_major(&map_b, args.inputs[1], N, K, kNarrowN))
    return kNoTensorMap;
  const auto grid = static_cast<unsigned>((N + kNarrowN - 1) / kNarrowN);
  gemm_fp8_narrow<<<grid, kThreads, kNarrowSharedBytes, stream>>>(
      map_a, map_b, static_cast<const float*>(args.inputs[2]),
      static_cast<const float*>(args.inputs[3]), static_cast<__nv_bfloat16*>(args.outputs[0]),
      static_cast<int>(M), static_cast<int>(N), static_cast<int>(K));
  return cudaGetLastError() == cudaSuccess ? PTXB_OK : kLaunchFailed;
}

template <int kCluster>
__global__ void __launch_bounds__(kThreads, 1)
    gemm_fp8_tma_ws(const __grid_constant__ CUtensorMap map_a,
                    const __grid_constant__ CUtensorMap map_b,
                    const __grid_constant__ CUtensorMap map_c, bool store_by_tma,
                    const float* scale_a, const float* scale_b, __nv_bfloat16* c, float* partials,
                    int M, int N, int K, int split_kb, int splits) {
  SharedStorage& smem = shared_storage();
  // reduce_splits may launch now (kSplitK); it waits for this grid to complete.
  if (kSplitK && splits > 1) griddep_launch_dependents();
  const int warpgroup = warpgroup_index();
  const UnitMap<kCluster> map(M, N);
  const int k_blocks = (K + kBlockK - 1) / kBlockK;
  // Work unit u (UnitMap): this CTA's tile of it, k-blocks [split * split_kb, ...) of its split.
  auto kb_begin_of = [&](int u) { return map.split(u) * split_kb; };
  auto k_blocks_of = [&](int u) { return min(k_blocks - kb_begin_of(u), split_kb); };

  if (threadIdx.x == 0) init_barriers<kCluster>(smem);
  barriers_ready<kCluster>();

  RingCount<kStages> ring;  // where the next k-block goes in the ring (produce, consume)
  if (warpgroup == 0) {
    setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      for_each_tile<kCluster>(map.blocks * splits, [&](int u) {
        const TileCoord tile = map.tile(u);
        produce<kCluster>(smem, &map_a, &map_b, tile.m0, tile.n0, k_blocks_of(u), ring,
                          kb_begin_of(u), NoStageLoads{});
      });
      producer_tail<kCluster>(smem, ring);
    }
    return;
  }

  setmaxnreg_inc<232>();
  const int consumer = warpgroup - 1;
  for_each_tile<kCluster>(map.blocks * splits, [&](int u) {
    const TileCoord tile = map.tile(u);
    float acc[kAccum];
    consume<kCluster>(smem, consumer, k_blocks_of(u), SumPromotion{}, acc, ring, kb_begin_of(u));
    const float scale = *scale_a * *scale_b;
    if (splits > 1)
      store_partial(acc, scale, partials + static_cast<int64_t>(map.split(u)) * M * N,
                    tile.m0 + consumer * 64, tile.n0, M, N);
    else
      store_output(acc, scale, smem, &map_c, store_by_tma, c, consumer, tile.m0 + consumer * 64,
                   tile.n0, M, N);
  });
  finish_stores();
}

bool is_one_f32(const ptxb_tensor_desc& t) {
  return t.dtype == PTXB_F32 && t.rank == 1 && t.shape[0] == 1;
}

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  *workspace_bytes = 0;
  if (!read_sm_count() || !allow_shared_bytes(gemm_fp8_tma_ws<1>) ||
      !allow_shared_bytes(gemm_fp8_tma_ws<kClusterM>) ||
      cudaFuncSetAttribute(gemm_fp8_narrow, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(kNarrowSharedBytes)) != cudaSuccess)
    return kLaunchFailed;
  const bool narrow = problem->num_inputs >= 2 && problem->inputs[0].rank == 2 &&
                      problem->inputs[1].rank == 2 &&
                      use_narrow(problem->inputs[0].shape[0], problem->inputs[1].shape[0],
                                 problem->inputs[0].shape[1], g_sms);
  *workspace_bytes = narrow ? 0 : split_workspace_bytes(*problem);
  return PTXB_OK;
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const ptxb_problem& p = *args->problem;
  if (p.num_inputs != 4 || p.num_outputs != 1) return kBadProblem;
  const int64_t M = p.inputs[0].shape[0], K = p.inputs[0].shape[1], N = p.inputs[1].shape[0];
  if (!is_row_major_2d(p.inputs[0], PTXB_F8E4M3, M, K) ||
      !is_row_major_2d(p.inputs[1], PTXB_F8E4M3, N, K) || !is_one_f32(p.inputs[2]) ||
      !is_one_f32(p.inputs[3]) || !is_row_major_2d(p.outputs[0], PTXB_BF16, M, N) || K % 16 != 0 ||
      M > INT32_MAX || N > INT32_MAX || K > INT32_MAX)
    return kBadProblem;

  const auto stream = static_cast<cudaStream_t>(args->stream);
  if (use_narrow(M, N, K, g_sms)) return run_narrow(*args, M, N, K, stream);
  const SplitK split = split_k(M, N, K, g_sms);
  const int cluster = cluster_for(split, M);
  CUtensorMap map_a, map_b, map_c = {};
  if (!encode_k_major(&map_a, args->inputs[0], M, K, kBlockM) ||
      !encode_k_major(&map_b, args->inputs[1], N, K, kBlockN / cluster))
    return kNoTensorMap;
  // NOTE: an N without a 16-byte row pitch keeps the stores from registers.
  const bool store_by_tma = map_output(&map_c, args->outputs[0], M, N);

  if (args->workspace_bytes < split_partial_bytes(split, M, N)) return kBadProblem;
  auto* c = static_cast<__nv_bfloat16*>(args->outputs[0]);
  auto* partials = static_cast<float*>(args->workspace);
  // Work units: blocks of `cluster` tile rows by one tile column, times the splits of K.
  const int blocks = static_cast<int>(((M + kBlockM * cluster - 1) / (kBlockM * cluster)) *
                                      ((N + kBlockN - 1) / kBlockN));
  if (launch_in_clusters(cluster == 1 ? gemm_fp8_tma_ws<1> : gemm_fp8_tma_ws<kClusterM>,
                         grid_for(blocks * split.splits, cluster), cluster, stream, map_a, map_b,
                         map_c, store_by_tma, static_cast<const float*>(args->inputs[2]),
                         static_cast<const float*>(args->inputs[3]), c, partials,
                         static_cast<int>(M), static_cast<int>(N), static_cast<int>(K),
                         split.split_kb, split.splits) != cudaSuccess)
    return kLaunchFailed;
  if (sum_splits(split, partials, c, M, N, g_sms, true, stream) != cudaSuccess)
    return kLaunchFailed;
  return cudaGetLastError() == cudaSuccess ? PTXB_OK : kLaunchFailed;
}
