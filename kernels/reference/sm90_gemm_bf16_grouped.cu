// Expert solution for sm90/gemm/bf16-grouped: G groups, C[off_g:off_g+1] = A[off_g:off_g+1] *
// B_g^T with bf16 inputs, fp32 accumulation and bf16 output (A [M, K], B [G, N, K], C [M, N],
// row-major, K-major operands); the group offsets [G+1] (int32) exist on the device only.
//
// Design: the TMA + wgmma tile of the GEMM experts (kernels/gemm/sm90_gemm_bf16_tma_ws.cuh: a
// producer warpgroup streaming (128x64) A and (256x64) B tiles through a 4-stage mbarrier ring,
// two consumer warpgroups with wgmma m64n256k16, setmaxnreg 40/232), over the tiles of every
// group in one launch:
// - a one-thread prologue kernel turns the offsets into each group's first tile index (the
//   prefix of ceil(M_g / 128) x ceil(N / 256)) in the workspace;
// - the grid is an upper bound, (ceil(M / 128) + G) x ceil(N / 256) CTAs; each finds its group by
//   binary search in the prefix and exits when past the last tile; within a group the m-tiles run
//   fastest, so consecutive CTAs share one B_g tile;
// - A is one tensor map over all M rows (a tile that runs past its group reads the next group's
//   rows, never stored), B one map over G * N rows (the tile's first row g * N + n0);
// - the epilogue stores rows below the group's end and columns below N only; empty groups have no
//   tiles.
// Requirements checked by ptxb_run: K % 8 == 0, dense row-major tensors, bf16 C.
// NOTE: a submission is one self-contained file (docs/abi.md): the code below the includes is
// copied from kernels/ptx/ and kernels/gemm/ files, kept equal to them by scripts/amalgamate.py.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <algorithm>
#include <cstdint>
#include <optional>
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

// ==== begin kernels/gemm/sm90_gemm_bf16_ws_ring.cuh (generated: scripts/amalgamate.py) ====
// The ring of the warp-specialized wgmma bf16 GEMMs of the expert solutions (C = A * B^T, bf16
// in, fp32 accumulation, bf16 out, row-major, B K-major), whatever fills it: the tile's shared
// memory, the full/empty mbarriers, the consumer warpgroups and their epilogues. The TMA producer
// (gemm/sm90_gemm_bf16_tma_ws.cuh) and the cp.async one (gemm/sm90_gemm_bf16_cp_async_ws.cuh)
// fill it. Experts hold a copy (scripts/amalgamate.py); their header comments describe the design.
// Pieces an expert may not use (the grouped one: split-K's constant, the raster, gemm_dims) are
// [[maybe_unused]].

namespace {

constexpr int kBlockM = 128;
constexpr int kBlockN = 256;
constexpr int kBlockK = 64;  // 64 bf16 = 128 bytes: one row of the 128-byte swizzle pattern
constexpr int kStages = 4;
constexpr int kConsumers = 2;  // consumer warpgroups, each (64, kBlockN)
// CTAs per cluster along M: 1, or 2 for a pair computing tiles (m0, n0) and (m0 + kBlockM, n0).
// Each CTA of a pair loads its own A tile and one half of the shared B tile, multicast into both
// CTAs' shared memory; a stage goes back to the producers when the consumers of both CTAs have
// released it (every consumer warp arrives on both CTAs' `empty` barrier).
constexpr int kClusterM = 1;
static_assert(kClusterM == 1 || kClusterM == 2, "clusters of 1 or 2 CTAs along M");
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr int kGroupM = 16;  // tile rows visited together for L2 reuse of B
// Split-K for shapes with fewer tiles than half the SMs (few rows): each split at least this many
// k-blocks, partial fp32 tiles in the workspace, summed in a fixed order by a second kernel.
[[maybe_unused]] constexpr int kMinKBlocksPerSplit = 8;

// Whether the TMA-store epilogue (store_tile_tma) stages in shared memory of its own, (64,
// kStagingCols) bf16 per consumer, instead of the A stages: needed by CTAs that loop over tiles
// (the producer refills the stages meanwhile). kStagingCols = kBlockN stages a consumer's tile
// at once (32 KB each: fits with 3 stages, not 4); kBlockN / 2 in two passes (16 KB: fits with 4).
constexpr bool kOwnStaging = true;
constexpr int kStagingCols = kBlockN / 2;
constexpr uint32_t kStagingBytes = 64 * kStagingCols * 2;  // a consumer's staging

struct SharedStorage {
  __nv_bfloat16 a[kStages][kBlockM * kBlockK];  // (kBlockM, kBlockK) per stage, swizzled
  __nv_bfloat16 b[kStages][kBlockN * kBlockK];  // (kBlockN, kBlockK) per stage, swizzled
  // NOTE: 1024-byte aligned as the stages before it; 16 bytes when unused.
  uint8_t staging[kOwnStaging ? kConsumers * kStagingBytes : 16];
  uint64_t full[kStages];
  uint64_t empty[kStages];
};
// NOTE: +1024 so the kernel can align the dynamic shared-memory base to the swizzle atom.
constexpr size_t kSharedBytes = sizeof(SharedStorage) + 1024;
static_assert(kSharedBytes <= 227 * 1024, "sm_90's opt-in shared memory per block");

// wgmma m64n256k16, bf16 x bf16 -> f32, A and B from shared memory (K-major).
// Accumulates into d (128 floats per thread) when scale_d != 0, overwrites it when 0.
__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t desc_a, uint64_t desc_b,
                                                 int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7,"
      "%8, %9, %10, %11, %12, %13, %14, %15,"
      "%16, %17, %18, %19, %20, %21, %22, %23,"
      "%24, %25, %26, %27, %28, %29, %30, %31,"
      "%32, %33, %34, %35, %36, %37, %38, %39,"
      "%40, %41, %42, %43, %44, %45, %46, %47,"
      "%48, %49, %50, %51, %52, %53, %54, %55,"
      "%56, %57, %58, %59, %60, %61, %62, %63,"
      "%64, %65, %66, %67, %68, %69, %70, %71,"
      "%72, %73, %74, %75, %76, %77, %78, %79,"
      "%80, %81, %82, %83, %84, %85, %86, %87,"
      "%88, %89, %90, %91, %92, %93, %94, %95,"
      "%96, %97, %98, %99, %100, %101, %102, %103,"
      "%104, %105, %106, %107, %108, %109, %110, %111,"
      "%112, %113, %114, %115, %116, %117, %118, %119,"
      "%120, %121, %122, %123, %124, %125, %126, %127},"
      " %128, %129, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
        "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
        "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
        "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
        "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
        "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
        "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

struct TileCoord {
  int m0;
  int n0;
};

// Grouped raster: kGroupM consecutive tile rows share each B column tile while it is in L2.
[[maybe_unused]] __device__ __forceinline__ TileCoord tile_of_block(int block, int tiles_m,
                                                                    int tiles_n) {
  const int per_group = kGroupM * tiles_n;
  const int group = block / per_group;
  const int first_m = group * kGroupM;
  const int rows_in_group = min(tiles_m - first_m, kGroupM);
  const int in_group = block % per_group;
  return {(first_m + in_group % rows_in_group) * kBlockM, (in_group / rows_in_group) * kBlockN};
}

// Writes a consumer's (64, kBlockN) fp32 accumulator tile as fp32 partial sums into `part`
// (row-major (M, N)), masking rows >= M, cols >= N. kHinted: the float2 stores under L2 policy
// `policy` (ptx/l2_policy.cuh).
template <bool kHinted = false>
__device__ __forceinline__ void store_partial(const float (&d)[kBlockN / 2], float* part, int row0,
                                              int n0, int M, int N, uint64_t policy = 0) {
  const int warp = (threadIdx.x / 32) % 4;
  const int lane = threadIdx.x % 32;
  const int row_a = row0 + warp * 16 + lane / 4;
#pragma unroll
  for (int i = 0; i < kBlockN / 8; ++i) {
    const int col = n0 + i * 8 + (lane % 4) * 2;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = row_a + half * 8;
      if (row >= M || col >= N) continue;
      float* dst = part + static_cast<int64_t>(row) * N + col;
      if (N % 2 == 0 && col + 1 < N) {  // 8-byte aligned: one float2 store
        if constexpr (kHinted)
          st_global_f32x2_hint(dst, d[i * 4 + half * 2], d[i * 4 + half * 2 + 1], policy);
        else
          *reinterpret_cast<float2*>(dst) =
              make_float2(d[i * 4 + half * 2], d[i * 4 + half * 2 + 1]);
      } else {
        dst[0] = d[i * 4 + half * 2];
        if (col + 1 < N) dst[1] = d[i * 4 + half * 2 + 1];
      }
    }
  }
}

// Writes a consumer's (64, kBlockN) fp32 accumulator tile as bf16, masking rows >= M, cols >= N.
// C[row][col] = v0 and C[row][col + 1] = v1 as bf16 (the second only when col + 1 < N), one bf16x2
// store when N is even (the pair is then 4-byte aligned). The caller checked row < M, col < N.
__device__ __forceinline__ void store_bf16_pair(__nv_bfloat16* c, int row, int col, int N, float v0,
                                                float v1) {
  __nv_bfloat16* dst = c + static_cast<int64_t>(row) * N + col;
  if (N % 2 == 0 && col + 1 < N) {
    *reinterpret_cast<__nv_bfloat162*>(dst) = __floats2bfloat162_rn(v0, v1);
  } else {
    dst[0] = __float2bfloat16_rn(v0);
    if (col + 1 < N) dst[1] = __float2bfloat16_rn(v1);
  }
}

__device__ __forceinline__ void store_tile(const float (&d)[kBlockN / 2], __nv_bfloat16* c,
                                           int row0, int n0, int M, int N) {
  const int warp = (threadIdx.x / 32) % 4;
  const int lane = threadIdx.x % 32;
  const int row_a = row0 + warp * 16 + lane / 4;
#pragma unroll
  for (int i = 0; i < kBlockN / 8; ++i) {
    const int col = n0 + i * 8 + (lane % 4) * 2;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = row_a + half * 8;
      if (row >= M || col >= N) continue;
      store_bf16_pair(c, row, col, N, d[i * 4 + half * 2], d[i * 4 + half * 2 + 1]);
    }
  }
}

// The work of one CTA: the (kBlockM, kBlockN) tile of C at rows [m0, m0 + kBlockM) and columns
// [n0, n0 + kBlockN); B's tile starts at row b_row0 of its tensor map (n0, plus a group's first
// weight row in a grouped GEMM); k-blocks [kb_begin, kb_begin + k_blocks).
struct TileWork {
  int m0, n0, b_row0, kb_begin, k_blocks;
};

// Thread 0: one full and one empty mbarrier per stage. A stage is full after `full_arrivals`
// arrivals and the bytes they expect (one producer thread arming it for TMA; every cp.async
// producer thread once its copies landed).
__device__ __forceinline__ void init_barriers(SharedStorage& smem, uint32_t full_arrivals = 1) {
  for (int s = 0; s < kStages; ++s) {
    mbar_init(&smem.full[s], full_arrivals);
    mbar_init(&smem.empty[s], kClusterM * kConsumers * 4);  // lane 0 of every consumer warp
  }
  fence_mbarrier_init();
}

// Lane 0 of a consumer warp: stage `s` read, back to the producer(s) that refill it.
__device__ __forceinline__ void release_stage(SharedStorage& smem, uint32_t s) {
  if constexpr (kClusterM == 1) {
    mbar_arrive(&smem.empty[s]);
  } else {
#pragma unroll
    for (uint32_t cta = 0; cta < kClusterM; ++cta) mbar_arrive_cluster(&smem.empty[s], cta);
  }
}

// Whether consume() forms the descriptors of a k-block's k-slices from the first slice's
// (wgmma_desc_advance by the slice's 32 bytes) instead of from each slice's address (a mask, a
// shift and an or per descriptor, 8 a k-block). The fp8 experts gained 3-5% from it (their
// consumers also promote every k-block; bench/results/2026-12-05g-h100-session, calls 7-8); these
// consumers are lighter: on an H100 (bench/results/2026-12-05h-h100-session, call 1, `ptxbench
// eval`, three rounds) the TMA expert's speedups moved by 1.000-1.002x, the cp.async one's by
// 0.998-1.006x; kept for its fewer instructions (variants `tma_slicedesc_threadwg`,
// `wgmma_slicedesc` turn it off).
constexpr bool kStepDescriptors = true;

// Whether consume() issues only the k-slices of a unit's last k-block that hold data when the
// unit ends at K's end and K is not a multiple of kBlockK (the loads zero-fill the rest, and
// zeros add nothing): K 2000 is 31 k-blocks and one slice, where the whole 32nd k-block costs
// 2.4% more tensor work. Off: no faster on an H100 (4000x3000x2000 0.952 -> 0.945 of cuBLASLt,
// TMA expert; docs/tasks.md, "K's tail").
constexpr bool kPartialLastKBlock = false;
constexpr int kSlicesPerKBlock = kBlockK / 16;

// The k-slices with data in the last k-block of a unit whose k-blocks end at kb_end (exclusive),
// for a K of `K` columns: kSlicesPerKBlock unless that k-block runs past K. Checked on the host
// against the split-K and stream-K units (tests/kernels/gemm_tail_schedule.cu).
__host__ __device__ __forceinline__ int slices_in_last_k_block(int kb_end, int K) {
  const int rest = K - (kb_end - 1) * kBlockK;  // K's columns from the k-block's start on
  return ((rest < kBlockK ? rest : kBlockK) + 15) / 16;
}

// Consumer warpgroup `consumer`: its (64, kBlockN) half of the tile accumulated in d (fp32). `it`
// as in produce(): the consumers' count runs in step with the producer's. Every stage read goes
// back to the producer, the last one too (a CTA that loops over tiles refills it for the next).
// kProxyFence: the stage's bytes were written through the generic proxy by other threads (cp.async
// completing on the barrier), so each consumer thread fences its view to the async proxy before
// wgmma reads them; TMA writes through the async proxy and needs none.
// last_slices: the k-slices of the last k-block to issue (slices_in_last_k_block; used with
// kPartialLastKBlock only).
template <bool kProxyFence = false>
__device__ __forceinline__ void consume(SharedStorage& smem, int consumer, int k_blocks,
                                        float (&d)[kBlockN / 2], uint32_t& it,
                                        int last_slices = kSlicesPerKBlock) {
  const bool lane0 = (threadIdx.x % 32) == 0;
#pragma unroll
  for (int i = 0; i < kBlockN / 2; ++i) d[i] = 0.f;

  // k-block kb through stage it % kStages, its first `slices` k-slices (the whole k-block in the
  // main loop, where `slices` is a constant).
  auto k_block = [&](int kb, int slices) {
    const uint32_t s = it % kStages;
    mbar_wait(&smem.full[s], (it / kStages) & 1);
    if constexpr (kProxyFence) fence_proxy_async_shared();
    const __nv_bfloat16* a_tile = smem.a[s] + consumer * 64 * kBlockK;  // (64, kBlockK)
    const __nv_bfloat16* b_tile = smem.b[s];                            // (kBlockN, kBlockK)
    const uint64_t a_desc = wgmma_desc_sw128(a_tile, 16, 1024);
    const uint64_t b_desc = wgmma_desc_sw128(b_tile, 16, 1024);
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < kSlicesPerKBlock; ++k) {
      // NOTE: inside a 128-byte swizzled row, the k-th 16-element slice starts 32*k bytes in;
      // the hardware applies the swizzle to the computed addresses.
      if (k < slices)
        wgmma_m64n256k16(d, wgmma_desc_sw128_slice<kStepDescriptors>(a_tile, a_desc, 32 * k),
                         wgmma_desc_sw128_slice<kStepDescriptors>(b_tile, b_desc, 32 * k), 1);
    }
    wgmma_commit();
    if (kb > 0) {
      wgmma_wait<1>();  // the group that read stage it-1 is done: hand it back to the producer
      if (lane0) release_stage(smem, (it - 1) % kStages);
    }
    ++it;
  };
  const int whole = kPartialLastKBlock ? k_blocks - 1 : k_blocks;
  for (int kb = 0; kb < whole; ++kb) k_block(kb, kSlicesPerKBlock);
  // NOTE: through a warp shuffle, which ptxas can prove warp-uniform: branches around wgmma on a
  // value it cannot prove uniform make it serialize the kernel's wgmma (C7520).
  if (kPartialLastKBlock && k_blocks > 0) k_block(k_blocks - 1, __shfl_sync(~0u, last_slices, 0));
  wgmma_wait<0>();
  if (k_blocks > 0 && lane0) release_stage(smem, (it - 1) % kStages);
#pragma unroll
  for (int i = 0; i < kBlockN / 2; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// The shared memory of a CTA, aligned to 1024 bytes (the 128-byte swizzle's period).
__device__ __forceinline__ SharedStorage& shared_storage() {
  extern __shared__ uint8_t smem_raw[];
  return *reinterpret_cast<SharedStorage*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) &
                                           ~uintptr_t(1023));
}

// ---- host side ----

bool is_row_major_2d(const ptxb_tensor_desc& t, int64_t rows, int64_t cols) {
  return t.dtype == PTXB_BF16 && t.rank == 2 && t.shape[0] == rows && t.shape[1] == cols &&
         t.strides[0] == cols && t.strides[1] == 1;
}

// The extents of a C = A * B^T problem as ptxb_run accepts it: A (M, K), B (N, K) and C (M, N)
// row-major bf16, K % 8 == 0 (16-byte rows), every extent within int. nullopt otherwise.
struct GemmDims {
  int64_t M, N, K;
};
[[maybe_unused]] std::optional<GemmDims> gemm_dims(const ptxb_problem& p) {
  if (p.num_inputs != 2 || p.num_outputs != 1) return std::nullopt;
  const int64_t M = p.inputs[0].shape[0], K = p.inputs[0].shape[1], N = p.inputs[1].shape[0];
  if (!is_row_major_2d(p.inputs[0], M, K) || !is_row_major_2d(p.inputs[1], N, K) ||
      !is_row_major_2d(p.outputs[0], M, N) || K % 8 != 0 || M > INT32_MAX || N > INT32_MAX ||
      K > INT32_MAX)
    return std::nullopt;
  return GemmDims{M, N, K};
}

// ptxb_run's failures (kNoTensorMap: the TMA kernels' tensor maps could not be encoded).
enum Status : int { kBadProblem = 1, kNoTensorMap = 2, kLaunchFailed = 3 };

}  // namespace
// ==== end kernels/gemm/sm90_gemm_bf16_ws_ring.cuh ====
// ==== begin kernels/gemm/sm90_gemm_bf16_tma_ws.cuh (generated: scripts/amalgamate.py) ====
// The TMA producer of the warp-specialized wgmma bf16 GEMM of the expert solutions (C = A * B^T,
// bf16 in, fp32 accumulation, bf16 out, row-major, B K-major): one thread streams the k-blocks
// of A and B into the ring of gemm/sm90_gemm_bf16_ws_ring.cuh by TMA, and the host encodes the
// tensor maps. The plain GEMM (gemm/sm90_gemm_bf16_tma_ws_gemm.cuh) and the grouped one build
// their kernels from these pieces. Experts hold a copy (scripts/amalgamate.py); their header
// comments describe the design.

namespace {

constexpr uint32_t kATileBytes = kBlockM * kBlockK * 2;  // the bytes a stage's A box brings
constexpr uint32_t kBTileBytes = kBlockN * kBlockK * 2;

// The producer thread: streams the tile's (kBlockM, kBlockK) A and (kBlockN, kBlockK) B k-blocks
// through the ring. `it` counts the k-blocks this CTA put through the ring before (the earlier
// tiles of a CTA that loops over tiles; 0 for the first) and is advanced past this tile's.
// kHinted (one CTA per cluster): A's boxes under L2 policy `policy_a`, B's under `policy_b`.
template <bool kHinted = false>
__device__ __forceinline__ void produce(SharedStorage& smem, const CUtensorMap* map_a,
                                        const CUtensorMap* map_b, const TileWork& w, uint32_t& it,
                                        uint64_t policy_a = 0, uint64_t policy_b = 0) {
  static_assert(!kHinted || kClusterM == 1, "L2 policies on the single-CTA loads only");
  prefetch_map(map_a);
  prefetch_map(map_b);
  for (int kb = 0; kb < w.k_blocks; ++kb, ++it) {
    const uint32_t s = it % kStages;
    // NOTE: a fresh barrier counts as having completed the phase before phase 0, so the first
    // pass over the ring (parity 1) does not wait.
    mbar_wait(&smem.empty[s], ((it / kStages) & 1) ^ 1);
    mbar_arrive_expect_tx(&smem.full[s], kATileBytes + kBTileBytes);
    const int k0 = (w.kb_begin + kb) * kBlockK;
    if constexpr (kHinted) {
      tma_load_2d_hint(smem.a[s], map_a, &smem.full[s], k0, w.m0, policy_a);
      tma_load_2d_hint(smem.b[s], map_b, &smem.full[s], k0, w.b_row0, policy_b);
      continue;
    }
    tma_load_2d(smem.a[s], map_a, &smem.full[s], k0, w.m0);
    if constexpr (kClusterM == 1) {
      tma_load_2d(smem.b[s], map_b, &smem.full[s], k0, w.b_row0);
    } else {  // this CTA's half of the B tile into both CTAs (map_b's box: kBlockN / 2 rows)
      const uint32_t rank = cluster_ctarank();
      constexpr int kHalf = kBlockN / kClusterM;
      tma_load_2d_multicast(smem.b[s] + rank * kHalf * kBlockK, map_b, &smem.full[s], k0,
                            w.b_row0 + static_cast<int>(rank) * kHalf, (1u << kClusterM) - 1);
    }
  }
}

// The producer thread, after its last tile in a cluster of 2: waits until the consumers of both
// CTAs released every stage, so that no peer arrives on this CTA's barriers after it exits.
[[maybe_unused]] __device__ __forceinline__ void producer_tail(SharedStorage& smem, uint32_t it) {
  if constexpr (kClusterM > 1)
    for (int i = 0; i < kStages; ++i, ++it)
      mbar_wait(&smem.empty[it % kStages], ((it / kStages) & 1) ^ 1);
}

// A row-major (rows, k) bf16 matrix read in (box_rows, kBlockK) boxes with the 128-byte swizzle.
bool encode_k_major(CUtensorMap* map, const void* ptr, int64_t rows, int64_t k, uint32_t box_rows) {
  auto encode = tensor_map_encoder();
  if (encode == nullptr) return false;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(k), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(k) * 2};
  const cuuint32_t box[2] = {kBlockK, box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(ptr), dims, strides,
                box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

}  // namespace
// ==== end kernels/gemm/sm90_gemm_bf16_tma_ws.cuh ====
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

namespace {

// Whether the prefix below is a scan by kPrefixThreads threads (each summing a run of groups,
// then a block-wide scan of the runs' sums) instead of one thread's loop over every group (G
// dependent steps, each waiting on a load), and whether the GEMM kernel is its programmatic
// dependent (its launch and barrier set-up overlap the prefix; it waits for it before the first
// read). Both on: H200 G 128, M 16384, N 2048, K 768 (Qwen3 hidden) 1.28 -> 1.35 of the
// cuBLASLt grouped baseline side by side, the other shapes level (bench/results/2026-12-04-*).
constexpr bool kParallelPrefix = true;
constexpr bool kPrefixPdl = true;
constexpr int kPrefixThreads = 256;
// Whether the prefix kernel also writes one record per tile of the grid's bound (its group, rows
// and first column; group -1 past the last tile), so that a CTA finds its tile with one 16-byte
// load instead of a binary search of dependent loads before its first TMA load; and whether a
// consumer's 64 rows leave through the TMA-store epilogue where they all belong to the tile's
// group (else, and for an N without a 16-byte row pitch, by stores from registers that mask the
// group's end). H200, over the two on above: the TMA store takes the hidden shape 1.35 -> 1.48 and
// G 8 0.96 -> 1.03 of cuBLASLt (register stores left 48% of their global sectors uncoalesced);
// the records cost 1-2% on every shape (the search they save is short next to the first TMA
// load) and stay off.
constexpr bool kTileRecords = false;
constexpr bool kWholeHalfTmaStore = true;
static_assert(!kTileRecords || kParallelPrefix, "the records come from the parallel prefix");

// Tiles of group g: ceil(M_g / kBlockM) x tiles_n.
__device__ __forceinline__ int group_tiles(const int* offsets, int g, int tiles_n) {
  return (offsets[g + 1] - offsets[g] + kBlockM - 1) / kBlockM * tiles_n;
}

// The tile of CTA `block`: its group (-1: past the last tile), rows [m0, m_end) of C it may write
// (m_end: the group's end), and its first column n0.
struct GroupTile {
  int group, m0, m_end, n0;
};

// prefix[g] = the first tile index of group g (prefix[G] = all tiles). One CTA: thread 0 alone,
// or (kParallelPrefix) thread t taking groups [t * per, (t + 1) * per) with an exclusive scan of
// the threads' sums as its first index; with kTileRecords it then writes records[u] for each
// tile u of its groups, and the threads together group -1 for u in [all tiles, bound).
__global__ void __launch_bounds__(kPrefixThreads)
    group_tile_prefix(const int* offsets, int groups, int tiles_n, int* prefix, GroupTile* records,
                      int bound) {
  if (kPrefixPdl) griddep_launch_dependents();  // the GEMM kernel waits for this grid anyway
  if constexpr (!kParallelPrefix) {
    if (threadIdx.x != 0) return;
    int first = 0;
    for (int g = 0; g < groups; ++g) {
      prefix[g] = first;
      first += group_tiles(offsets, g, tiles_n);
    }
    prefix[groups] = first;
  } else {
    __shared__ int warp_sums[kPrefixThreads / 32];
    const int per = (groups + kPrefixThreads - 1) / kPrefixThreads;
    const int g0 = min(groups, static_cast<int>(threadIdx.x) * per), g1 = min(groups, g0 + per);
    int sum = 0;
    for (int g = g0; g < g1; ++g) sum += group_tiles(offsets, g, tiles_n);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int inclusive = sum;  // over this warp's threads up to this one
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const int v = __shfl_up_sync(0xffffffffu, inclusive, d);
      if (lane >= d) inclusive += v;
    }
    if (lane == 31) warp_sums[warp] = inclusive;
    __syncthreads();
    int first = inclusive - sum;
    for (int w = 0; w < warp; ++w) first += warp_sums[w];
    for (int g = g0; g < g1; ++g) {
      prefix[g] = first;
      if constexpr (kTileRecords) {
        const int row0 = offsets[g], row1 = offsets[g + 1];
        const int tiles_m = (row1 - row0 + kBlockM - 1) / kBlockM;
        for (int local = 0; local < tiles_m * tiles_n; ++local)
          records[first + local] = {g, row0 + (local % tiles_m) * kBlockM, row1,
                                    (local / tiles_m) * kBlockN};
      }
      first += group_tiles(offsets, g, tiles_n);
    }
    if (threadIdx.x == kPrefixThreads - 1) prefix[groups] = first;  // every group's tiles
    if constexpr (kTileRecords) {
      __shared__ int all_tiles;
      if (threadIdx.x == kPrefixThreads - 1) all_tiles = first;
      __syncthreads();
      for (int u = all_tiles + static_cast<int>(threadIdx.x); u < bound; u += kPrefixThreads)
        records[u] = {-1, 0, 0, 0};
    }
  }
}

// The tile of CTA `block`: its record (kTileRecords), else a binary search of the prefix.
__device__ __forceinline__ GroupTile group_tile(const int* offsets, const int* prefix, int groups,
                                                int block, const GroupTile* records) {
  if constexpr (kTileRecords) return records[block];
  if (block >= prefix[groups]) return {-1, 0, 0, 0};
  int lo = 0, hi = groups - 1;  // the last group whose first tile is <= block
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (prefix[mid] <= block)
      lo = mid;
    else
      hi = mid - 1;
  }
  const int row0 = offsets[lo], row1 = offsets[lo + 1];
  const int tiles_m = (row1 - row0 + kBlockM - 1) / kBlockM;
  const int local = block - prefix[lo];
  return {lo, row0 + (local % tiles_m) * kBlockM, row1, (local / tiles_m) * kBlockN};
}

// Up to which K a CTA loops over tiles (one CTA per SM, the mbarrier ring running on from tile
// to tile so that the producer loads the next tile while the consumers store the last); past it
// a CTA takes one tile (the grid an upper bound on the tiles). The kernel is the same, only the
// grid differs. On the H200 (bench/results/2026-12-04-*, call C) looping took the hidden Qwen3
// down shape (K 768: 12 k-blocks a tile, so a tile's start and store weigh) from 1.48 to 1.61 of
// cuBLASLt and G 8 (K 4096) from 1.027 to 1.035, and lost DeepSeek-V3 gate/up (K 7168, 58 MB
// of B per group) from 1.55 to 1.43.
constexpr int64_t kPersistentMaxK = 4096;
static_assert(kClusterM == 1, "the grouped kernel runs single CTAs (no cluster launch)");

// CTA b takes tiles b, b + gridDim.x, ... of all groups' (prefix[groups] in all; with
// kTileRecords, until a record of group -1 or the bound). map_c maps C for the TMA-store
// epilogue when store_by_tma.
__global__ void __launch_bounds__(kThreads, 1)
    grouped_gemm_bf16_tma_ws(const __grid_constant__ CUtensorMap map_a,
                             const __grid_constant__ CUtensorMap map_b,
                             const __grid_constant__ CUtensorMap map_c, bool store_by_tma,
                             const int* offsets, const int* prefix, const GroupTile* records,
                             __nv_bfloat16* c, int groups, int N, int K, int bound) {
  SharedStorage& smem = shared_storage();
  if (threadIdx.x == 0) init_barriers(smem);
  __syncthreads();
  if (kPrefixPdl) griddep_wait();  // group_tile_prefix complete, its prefix visible

  const int tiles = kTileRecords ? bound : prefix[groups];
  const int warpgroup = threadIdx.x / 128;
  const int k_blocks = (K + kBlockK - 1) / kBlockK;
  uint32_t it = 0;  // k-blocks through the ring so far (produce, consume)
  if (warpgroup == 0) {
    setmaxnreg_dec<40>();
    if (threadIdx.x == 0)
      for (int u = blockIdx.x; u < tiles; u += gridDim.x) {
        const GroupTile tile = group_tile(offsets, prefix, groups, u, records);
        if (tile.group < 0) break;
        produce(smem, &map_a, &map_b,
                TileWork{tile.m0, tile.n0, tile.group * N + tile.n0, 0, k_blocks}, it);
      }
    return;
  }

  setmaxnreg_inc<232>();
  const int consumer = warpgroup - 1;
  for (int u = blockIdx.x; u < tiles; u += gridDim.x) {
    const GroupTile tile = group_tile(offsets, prefix, groups, u, records);
    if (tile.group < 0) break;
    float d[kBlockN / 2];
    consume(smem, consumer, k_blocks, d, it, slices_in_last_k_block(k_blocks, K));
    const int row0 = tile.m0 + consumer * 64;
    if (kWholeHalfTmaStore && store_by_tma && row0 + 64 <= tile.m_end)  // uniform per warpgroup
      store_tile_tma<kBlockN, kStagingCols>(d, 1.f, smem.staging + consumer * kStagingBytes,
                                            64 * kStoreBoxCols * 2, &map_c, consumer, row0,
                                            tile.n0);
    else
      store_tile(d, c, row0, tile.n0, tile.m_end, N);
  }
  if (kWholeHalfTmaStore && threadIdx.x % 128 == 0)
    bulk_wait_group_read<0>();  // the staging stays until read: before exit
}

bool is_dense_3d(const ptxb_tensor_desc& t, int64_t g, int64_t rows, int64_t cols) {
  return t.dtype == PTXB_BF16 && t.rank == 3 && t.shape[0] == g && t.shape[1] == rows &&
         t.shape[2] == cols && t.strides[0] == rows * cols && t.strides[1] == cols &&
         t.strides[2] == 1;
}

// The grid's bound on the tiles of every group: sum of ceil(M_g / kBlockM) <= ceil(M / kBlockM)
// + G, times the tile columns.
int64_t tile_bound(int64_t M, int64_t N, int64_t G) {
  return ((M + kBlockM - 1) / kBlockM + G) * ((N + kBlockN - 1) / kBlockN);
}

// The workspace: the tile records (kTileRecords; first, for their 16-byte alignment), then the
// prefix of G + 1 tile indices.
uint64_t records_bytes(int64_t M, int64_t N, int64_t G) {
  return kTileRecords ? static_cast<uint64_t>(tile_bound(M, N, G)) * sizeof(GroupTile) : 0;
}
uint64_t prefix_bytes(int64_t groups) { return (static_cast<uint64_t>(groups) + 1) * sizeof(int); }

int g_sms = 0;  // the device's SM count, read by ptxb_plan

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaFuncSetAttribute(grouped_gemm_bf16_tma_ws, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(kSharedBytes)) != cudaSuccess)
    return kLaunchFailed;
  *workspace_bytes = 0;
  if (problem->num_inputs == 3 && problem->inputs[0].rank == 2 && problem->inputs[1].rank == 3) {
    const int64_t M = problem->inputs[0].shape[0], G = problem->inputs[1].shape[0],
                  N = problem->inputs[1].shape[1];
    *workspace_bytes = records_bytes(M, N, G) + prefix_bytes(G);
  }
  return PTXB_OK;
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const ptxb_problem& p = *args->problem;
  if (p.num_inputs != 3 || p.num_outputs != 1 || p.inputs[1].rank != 3) return kBadProblem;
  const int64_t M = p.inputs[0].shape[0], K = p.inputs[0].shape[1];
  const int64_t G = p.inputs[1].shape[0], N = p.inputs[1].shape[1];
  const ptxb_tensor_desc& offsets = p.inputs[2];
  if (!is_row_major_2d(p.inputs[0], M, K) || !is_dense_3d(p.inputs[1], G, N, K) ||
      offsets.dtype != PTXB_I32 || offsets.rank != 1 || offsets.shape[0] != G + 1 ||
      !is_row_major_2d(p.outputs[0], M, N) || K % 8 != 0 || M > INT32_MAX || G * N > INT32_MAX ||
      K > INT32_MAX)
    return kBadProblem;
  if (args->workspace_bytes < records_bytes(M, N, G) + prefix_bytes(G)) return kBadProblem;

  CUtensorMap map_a, map_b, map_c = {};
  if (!encode_k_major(&map_a, args->inputs[0], M, K, kBlockM) ||
      !encode_k_major(&map_b, args->inputs[1], G * N, K, kBlockN))
    return kNoTensorMap;
  // NOTE: an N without a 16-byte row pitch keeps every store from registers.
  const bool store_by_tma = kWholeHalfTmaStore && encode_c_store(&map_c, args->outputs[0], M, N);
  const auto stream = static_cast<cudaStream_t>(args->stream);
  const int tiles_n = static_cast<int>((N + kBlockN - 1) / kBlockN);
  const auto* group_offsets = static_cast<const int*>(args->inputs[2]);
  const int64_t bound = tile_bound(M, N, G);
  if (bound > INT32_MAX) return kBadProblem;
  auto* records = static_cast<GroupTile*>(args->workspace);
  auto* prefix =
      reinterpret_cast<int*>(static_cast<uint8_t*>(args->workspace) + records_bytes(M, N, G));
  group_tile_prefix<<<1, kParallelPrefix ? kPrefixThreads : 32, 0, stream>>>(
      group_offsets, static_cast<int>(G), tiles_n, prefix, records, static_cast<int>(bound));
  const int64_t grid = K <= kPersistentMaxK ? std::min<int64_t>(bound, g_sms) : bound;
  if (launch_programmatic(
          grouped_gemm_bf16_tma_ws, dim3(static_cast<unsigned>(grid)), dim3(kThreads), kSharedBytes,
          stream, kPrefixPdl, map_a, map_b, map_c, store_by_tma, group_offsets,
          static_cast<const int*>(prefix), static_cast<const GroupTile*>(records),
          static_cast<__nv_bfloat16*>(args->outputs[0]), static_cast<int>(G), static_cast<int>(N),
          static_cast<int>(K), static_cast<int>(bound)) != cudaSuccess)
    return kLaunchFailed;
  return cudaGetLastError() == cudaSuccess ? PTXB_OK : kLaunchFailed;
}
