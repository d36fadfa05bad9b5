// Expert solution for paged decode attention (family attention_decode_paged, docs/attention.md):
// O = softmax(scale * Q K^T) V and LSE for SQ new query tokens per sequence against its KV
// history held in pages of a shared pool, bf16 in and out, grouped-query heads.
//
// Contract: inputs Q [B,SQ,H,D] bf16, K_cache and V_cache [NP,P,HKV,D] bf16 (the vLLM layout),
// seq_lens [B] int32 (history lengths, the SQ new tokens included as the last SQ positions; each in
// [SQ, W * P]) and page_table [B,W] int32 (page p of sequence b is pool page page_table[b][p]);
// outputs O [B,SQ,H,D] bf16 and LSE [B,SQ,H] f32 (natural log of the row sums of exp of the scaled
// scores); scalars [scale (> 0), max_seqlen (an integer in [SQ, W * P])]. Query token i of sequence
// b sees keys 0 .. seq_lens[b] - SQ + i (bottom-right causal). H % HKV == 0 and SQ * H / HKV <= 64;
// D 64 or 128; P a multiple of 8 that divides 128 or a multiple of 128; all tensors row-major and
// contiguous. The workspace holds the work units' partial results (ptxb_plan sizes it).
//
// Design (split-KV "flash decoding" on the FA3 pieces of the forward experts):
// - one CTA per (work unit, kv head g; units below), 256 threads: warpgroup 0's thread 0 is the TMA
//   producer, warpgroup 1 the consumer. The query rows of the kv head's G = H / HKV heads and the
//   SQ new tokens are packed into one 64-row wgmma tile (row i * G + r: token i, head g * G + r),
//   loaded once by a 3-D TMA box {64, G, SQ} on the view {D, H, B * SQ};
// - the keys of every sequence in 128-key tiles, cut into work units of at most C tiles (C from
//   the pool's size and the SM count, so that the units fill the GPU about kMinCtasPerSm times
//   whatever the mix of lengths); the units of sequence b are numbered from f(b) = the units of
//   the sequences before it. A CTA (one kv head of one unit) finds its unit's sequence on the
//   device (a prefix sum over seq_lens by one warp, 32 sequences a step); the grid has a CTA for
//   every unit the pool's size allows, and the CTAs past the last unit exit at once. A tile's K
//   and V come page by page: per page (or 128-key part of a page) and
//   64-column chunk one 3-D TMA box {64, 1, min(P, 128)} on the view {D, HKV, NP * P} at the page's
//   token, landing at its rows of the same 128-row x 128-byte swizzled tile the dense expert uses.
//   Pages past the sequence's last are read as its last page (finite values, masked);
// - per tile: S = Q K^T (wgmma m64n128k16, both operands in shared memory), masking of keys past
//   each row's last visible key, online softmax in registers, O += P V (P as the bf16 register A
//   operand, V MN-major); K and V have their own full/empty mbarriers per stage. The softmax and
//   the rescale skip a warp's 8-row groups that are all padding (the arithmetic outside the
//   tensor cores counts against the task's bound, and with 4 real rows of 64 it would exceed it);
// - a sequence of one unit: O = acc / rowsum (bf16) and LSE straight to the outputs; of several:
//   each unit writes its normalized fp32 O and its LSE to the workspace, and a second kernel
//   merges the units of each row (weights exp(LSE_u - max)), reading f(b) and the unit count from
//   a table the sequence's first unit writes. No merge kernel when no sequence can have two units.
// NOTE: a submission is one self-contained file (docs/abi.md): the PTX wrappers and the attention
// pieces below are copies of kernels/ptx/ and kernels/attention/ files, kept equal to them by
// scripts/amalgamate.py.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

// The dev harness sets this to 1: every mbarrier wait then gives up after about a second and
// counts the timeout in g_watchdog_timeouts instead of hanging.
#ifndef PTXB_ATTN_WATCHDOG
#define PTXB_ATTN_WATCHDOG 0
#endif

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

namespace {

constexpr int kBlockN = 128;  // keys per K/V tile
constexpr int kChunk = 64;    // head-dim columns per TMA box: 64 bf16 = one 128-byte swizzled row
constexpr int kConsumers = 1;
constexpr int kRows = 64;  // packed query rows: one wgmma m64 block
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr uint32_t kChunkBytes = kBlockN * kChunk * 2;  // one (128, 64) box: 16 KiB
constexpr bool kSplitPvDefault = false;
constexpr int kMinCtasPerSm = 2;  // work units are cut to give about this many CTAs per SM

template <int kHeadDim>
struct Config {
  static_assert(kHeadDim == 64 || kHeadDim == 128, "head dim 64 or 128");
  static constexpr int kChunks = kHeadDim / kChunk;
  static constexpr int kStages = kHeadDim == 128 ? 3 : 6;
};

// Every tile is stored as kChunks boxes of (128 rows, 64 columns) in the 128-byte swizzle, each
// 16 KiB (a 1024-byte swizzle-atom boundary); Q uses the first 64 rows of its boxes.
template <int kHeadDim>
struct SharedStorage {
  static constexpr int kChunks = Config<kHeadDim>::kChunks;
  static constexpr int kStages = Config<kHeadDim>::kStages;
  __nv_bfloat16 q[kChunks][kBlockN * kChunk];
  __nv_bfloat16 k[kStages][kChunks][kBlockN * kChunk];
  __nv_bfloat16 v[kStages][kChunks][kBlockN * kChunk];
  uint64_t q_full;
  uint64_t k_full[kStages], v_full[kStages];         // TMA transaction bytes
  uint64_t k_empty[kStages], v_empty[kStages];       // lane 0 of every consumer warp
  int found_b, found_first, found_units, found_len;  // the unit's sequence (find_job)
};
template <int kHeadDim>
constexpr size_t kSharedBytes = sizeof(SharedStorage<kHeadDim>) + 1024;  // + base alignment
static_assert(kSharedBytes<128> <= 227 * 1024 && kSharedBytes<64> <= 227 * 1024, "sm_90 limit");

struct Params {
  const int* seq_lens;    // [B]
  const int* page_table;  // [B, W]
  __nv_bfloat16* o;       // [B, SQ, H, D]
  float* lse;             // [B, SQ, H]
  float* part_o;          // [units, HKV, SQ * G, D] (merge)
  float* part_lse;        // [units, HKV, SQ * G] (merge)
  int* unit_table;        // [B, 2]: f(b) and the unit count of sequence b (merge)
  int batch, q_len, heads, kv_heads, group;  // group = H / HKV
  int page_size, table_width, box_rows;      // box_rows = min(P, kBlockN)
  int tiles_per_unit;                        // C
  bool merge;                                // some sequence may have several units
  float scale, scale_log2;                   // scale, scale * log2(e)
};

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
// ==== begin kernels/attention/sm90_fa3_pieces.cuh (generated: scripts/amalgamate.py) ====
// The pieces of the FA3-style attention experts (arXiv 2407.08608) that do not depend on the
// problem's layout: the mbarrier wait with the dev harness's watchdog, the consumers' named
// barriers, exp2, the wgmma operand descriptors (K-major Q and K, MN-major V, 128-byte swizzle)
// and instructions (S = Q K^T from shared memory, O += P V with P in registers), the accumulator
// fragment map, P's packing into bf16 A fragments, and the online-softmax step and rescale.
// Tiles of 128 or 64 keys (the score fragments' size says which) and head dims 64, 96, 128 and
// 256. Needs, declared before it by the expert: kChunk (head-dim columns per TMA box),
// kChunkBytes (the default distance between a tile's boxes), kSplitPvDefault, and
// PTXB_ATTN_WATCHDOG. Experts hold a copy (scripts/amalgamate.py); the wgmma wrappers are
// [[maybe_unused]] as each expert uses the shapes of its head dims only.

// NOTE: no namespace of its own: the copy sits inside the expert's anonymous namespace, after the
// constants above.
#if PTXB_ATTN_WATCHDOG
__device__ unsigned int g_watchdog_timeouts = 0;
#endif

// mbar_wait, or with PTXB_ATTN_WATCHDOG a wait that gives up after about 2^31 cycles and counts
// the timeout in g_watchdog_timeouts.
__device__ __forceinline__ void mbar_wait_checked(uint64_t* bar, uint32_t parity) {
#if PTXB_ATTN_WATCHDOG
  const uint32_t addr = smem_addr(bar);
  if (mbar_try_wait(addr, parity)) return;
  const long long start = clock64();
  while (!mbar_try_wait(addr, parity)) {
    // NOTE: after the first timeout every wait gives up at once, so a broken kernel ends quickly.
    if (*static_cast<volatile unsigned int*>(&g_watchdog_timeouts) != 0 ||
        clock64() - start > (1ll << 31)) {
      atomicAdd(&g_watchdog_timeouts, 1u);
      return;
    }
  }
#else
  mbar_wait(bar, parity);
#endif
}

__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// ---- wgmma operands and instructions ----
// K-major operand (Q, K) in the 128-byte swizzle: leading byte offset unused (16), stride byte
// offset 1024 (8 rows of 128 bytes). Stepping k by 16 elements inside a swizzled row adds 32 bytes
// to the start; the next 64 columns are the next box (+16 KiB).
__device__ __forceinline__ uint64_t desc_k_major(const void* p) {
  return wgmma_desc_sw128(p, 16, 1024);
}
// MN-major operand (V as the (keys, D) B matrix of P V, N = D contiguous) in the 128-byte
// swizzle. PTX ISA canonical layout for MN-major SW128, in elements with T = 8 bf16:
// ((T,8,m),(8,k)) : ((1,T,LBO),(8T,SBO)): a swizzle atom is 64 N-contiguous values (one 128-byte
// row) x 8 consecutive k (keys) at a 128-byte pitch, exactly 8 rows of our TMA box. Hence
// LBO = distance between 64-wide N blocks = the next box (kBoxBytes: 16 KiB for 128 keys), and
// SBO = distance between 8-key groups = 1024 bytes. The k-th 16-key slice starts 16 rows
// (2048 bytes) further, an atom boundary, so the base-offset field stays 0.
template <uint32_t kBoxBytes = kChunkBytes>
__device__ __forceinline__ uint64_t desc_mn_major(const void* p) {
  return wgmma_desc_sw128(p, kBoxBytes, 1024);
}

#define PTXB_ACC8(d, i)                                                                       \
  "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
      "+f"(d[i + 6]), "+f"(d[i + 7])
#define PTXB_ACC32(d) PTXB_ACC8(d, 0), PTXB_ACC8(d, 8), PTXB_ACC8(d, 16), PTXB_ACC8(d, 24)
#define PTXB_ACC48(d) PTXB_ACC32(d), PTXB_ACC8(d, 32), PTXB_ACC8(d, 40)
#define PTXB_ACC64(d) PTXB_ACC48(d), PTXB_ACC8(d, 48), PTXB_ACC8(d, 56)
#define PTXB_REGS32                                                                            \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, " \
  "%20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define PTXB_ACC128(d)                                                                   \
  PTXB_ACC64(d), PTXB_ACC8(d, 64), PTXB_ACC8(d, 72), PTXB_ACC8(d, 80), PTXB_ACC8(d, 88), \
      PTXB_ACC8(d, 96), PTXB_ACC8(d, 104), PTXB_ACC8(d, 112), PTXB_ACC8(d, 120)
#define PTXB_REGS48 \
  PTXB_REGS32       \
  ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47"
#define PTXB_REGS64                                                                              \
  PTXB_REGS32                                                                                    \
  ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, " \
  "%50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"

// D(64x128) (+)= A(64x16, smem K-major) * B(16x128, smem K-major); overwrites D when scale_d == 0.
[[maybe_unused]] __device__ __forceinline__ void wgmma_ss_m64n128k16(float (&d)[64],
                                                                     uint64_t desc_a,
                                                                     uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {" PTXB_REGS64
      "}, %64, %65, p, 1, 1, 0, 0;\n}\n"
      : PTXB_ACC64(d)
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}
// D(64x64) (+)= A(64x16, smem K-major) * B(16x64, smem K-major); overwrites D when scale_d == 0.
[[maybe_unused]] __device__ __forceinline__ void wgmma_ss_m64n64k16(float (&d)[32], uint64_t desc_a,
                                                                    uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {" PTXB_REGS32
      "}, %32, %33, p, 1, 1, 0, 0;\n}\n"
      : PTXB_ACC32(d)
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}
// D(64x128) += A(64x16, registers) * B(16x128, smem MN-major: imm-trans-b = 1).
[[maybe_unused]] __device__ __forceinline__ void wgmma_rs_m64n128k16_tb(float (&d)[64],
                                                                        const uint32_t* a,
                                                                        uint64_t desc_b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {" PTXB_REGS64
               "}, {%64, %65, %66, %67}, %68, 1, 1, 1, 1;\n"
               : PTXB_ACC64(d)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b));
}
// D(64x64) += A(64x16, registers) * B(16x64, smem MN-major: imm-trans-b = 1).
[[maybe_unused]] __device__ __forceinline__ void wgmma_rs_m64n64k16_tb(float (&d)[32],
                                                                       const uint32_t* a,
                                                                       uint64_t desc_b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {" PTXB_REGS32
               "}, {%32, %33, %34, %35}, %36, 1, 1, 1, 1;\n"
               : PTXB_ACC32(d)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b));
}
// D(64x96) += A(64x16, registers) * B(16x96, smem MN-major: imm-trans-b = 1). The 96 columns
// are a whole 64-wide swizzle block and half of the next (LBO away).
[[maybe_unused]] __device__ __forceinline__ void wgmma_rs_m64n96k16_tb(float (&d)[48],
                                                                       const uint32_t* a,
                                                                       uint64_t desc_b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n96k16.f32.bf16.bf16 {" PTXB_REGS48
               "}, {%48, %49, %50, %51}, %52, 1, 1, 1, 1;\n"
               : PTXB_ACC48(d)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b));
}
// D(64x256) += A(64x16, registers) * B(16x256, smem MN-major: imm-trans-b = 1).
[[maybe_unused]] __device__ __forceinline__ void wgmma_rs_m64n256k16_tb(float (&d)[128],
                                                                        const uint32_t* a,
                                                                        uint64_t desc_b) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {" PTXB_REGS64
               ", %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
               "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
               "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, "
               "%110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, "
               "%123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, 1, 1, 1, 1;\n"
               : PTXB_ACC128(d)
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b));
}
#undef PTXB_ACC8
#undef PTXB_ACC32
#undef PTXB_ACC128
#undef PTXB_ACC48
#undef PTXB_ACC64
#undef PTXB_REGS32
#undef PTXB_REGS48
#undef PTXB_REGS64

// ---- fragments ----
// Element (i, h, e) of an m64nN fp32 accumulator is acc[4*i + 2*h + e]: row frag_row(h) of the
// warpgroup's 64 rows, column frag_col(i, e). The bf16 A operand of m64nNk16 has the same
// (row, column) map for its 16 columns, so the accumulator of S (keys 16k..16k+15 = entries
// 8k..8k+7) becomes the k-th A fragment by packing consecutive pairs (pack_p).
__device__ __forceinline__ int frag_row(int h) {
  return (threadIdx.x % 128) / 32 * 16 + (threadIdx.x % 32) / 4 + 8 * h;
}
__device__ __forceinline__ int frag_col(int i, int e) { return 8 * i + 2 * (threadIdx.x % 4) + e; }

__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);  // lo in the low half
  return *reinterpret_cast<const uint32_t*>(&v);
}
// (64, N) fp32 fragment (kS = N / 2 entries) -> N/16 bf16 A fragments of 4 registers each.
template <int kS>
__device__ __forceinline__ void pack_p(const float (&s)[kS], uint32_t (&pa)[kS / 2]) {
#pragma unroll
  for (int k = 0; k < kS / 2; ++k) pa[k] = pack_bf16x2(s[2 * k], s[2 * k + 1]);
}

// S(64, N) = Q(64 rows of this warpgroup, kHeadDim) K(N, kHeadDim)^T for tiles of N = 128 or 64
// keys (kS = N / 2 entries); kHeadDim a multiple of 16. The 64-column boxes of Q lie kQBoxBytes
// apart, those of K kKBoxBytes. Issue only.
template <int kHeadDim, uint32_t kQBoxBytes = kChunkBytes, uint32_t kKBoxBytes = kChunkBytes,
          int kS>
__device__ __forceinline__ void issue_qk(float (&s)[kS], const __nv_bfloat16* q_rows,
                                         const __nv_bfloat16* k_tile) {
  static_assert(kS == 64 || kS == 32, "tiles of 128 or 64 keys");
  const uint64_t qd = desc_k_major(q_rows), kd = desc_k_major(k_tile);
#pragma unroll
  for (int kk = 0; kk < kHeadDim / 16; ++kk) {
    const uint32_t column = (kk % 4) * 32;  // 16 columns further inside the box
    const uint32_t q_off = (kk / 4) * kQBoxBytes + column, k_off = (kk / 4) * kKBoxBytes + column;
    if constexpr (kS == 64) {
      wgmma_ss_m64n128k16(s, wgmma_desc_advance(qd, q_off), wgmma_desc_advance(kd, k_off),
                          kk > 0 ? 1 : 0);
    } else {
      wgmma_ss_m64n64k16(s, wgmma_desc_advance(qd, q_off), wgmma_desc_advance(kd, k_off),
                         kk > 0 ? 1 : 0);
    }
  }
}
// O(64, 2 kO) += P(64, N) V(N, 2 kO), P as N/16 bf16 A fragments (kP = N / 4 registers), V's
// 64-column boxes kVBoxBytes apart. By the accumulator's size: kO = 32 (head dim 64), 48 (96:
// one m64n96), 64 (128: one m64n128, or two m64n64 when kSplit), 128 (256: one m64n256; two
// m64n128 made ptxas serialize the wgmma for want of registers). Issue only.
template <bool kSplit = kSplitPvDefault, uint32_t kVBoxBytes = kChunkBytes, int kO, int kP>
__device__ __forceinline__ void issue_pv(float (&o)[kO], const uint32_t (&pa)[kP],
                                         const __nv_bfloat16* v_tile) {
  static_assert(kO == 32 || kO == 48 || kO == 64 || kO == 128, "head dim 64, 96, 128 or 256");
  const uint64_t vd = desc_mn_major<kVBoxBytes>(v_tile);
#pragma unroll
  for (int kk = 0; kk < kP / 4; ++kk) {
    const uint64_t desc = wgmma_desc_advance(vd, kk * 16 * kChunk * 2);  // 16 keys: 16 rows
    // NOTE: columns 64c.. of an m64nN fragment are entries 32c.. (i >= 8c).
    if constexpr (kO == 32) {
      wgmma_rs_m64n64k16_tb(o, &pa[4 * kk], desc);
    } else if constexpr (kO == 48) {
      wgmma_rs_m64n96k16_tb(o, &pa[4 * kk], desc);
    } else if constexpr (kO == 128) {
      wgmma_rs_m64n256k16_tb(o, &pa[4 * kk], desc);
    } else if constexpr (kSplit) {
      wgmma_rs_m64n64k16_tb(*reinterpret_cast<float(*)[32]>(&o[0]), &pa[4 * kk], desc);
      wgmma_rs_m64n64k16_tb(*reinterpret_cast<float(*)[32]>(&o[32]), &pa[4 * kk],
                            wgmma_desc_advance(desc, kVBoxBytes));
    } else {
      wgmma_rs_m64n128k16_tb(o, &pa[4 * kk], desc);
    }
  }
}

// ---- softmax ----
// One online-softmax step on a raw score tile. m (running row max of raw scores) and l (this
// thread's share of the running row sum, relative to m) are updated; s becomes
// P = exp2(scale_log2 * (s - m)); corr is the factor that rescales the earlier O and l.
// kRowGuard: only the rows below `rows` count; a warp skips its rows h (frag_row(h) of its lanes,
// 8 consecutive rows) when all of them are at or past `rows` (their m, l and corr stay as they
// were: those rows are never stored), so that padding rows cost no arithmetic.
template <bool kRowGuard = false, int kS>
__device__ __forceinline__ void softmax_step(float (&s)[kS], float (&m)[2], float (&l)[2],
                                             float (&corr)[2], float scale_log2, int rows = 0) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    if (kRowGuard && (threadIdx.x % 128) / 32 * 16 + 8 * h >= rows) continue;
    float mx = m[h];
#pragma unroll
    for (int i = 0; i < kS / 4; ++i) mx = fmaxf(mx, fmaxf(s[4 * i + 2 * h], s[4 * i + 2 * h + 1]));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));  // the 4 threads of a row (quad)
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
    // NOTE: a row with no visible key so far keeps m = -inf; subtracting 0 keeps P = 0, not NaN.
    const float neg_max = mx == -INFINITY ? 0.f : -mx * scale_log2;
    corr[h] = exp2_approx(fmaf(m[h], scale_log2, neg_max));  // 0 on the first tile (m = -inf)
    m[h] = mx;
    float sum = 0.f;
#pragma unroll
    for (int i = 0; i < kS / 4; ++i)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        float& x = s[4 * i + 2 * h + e];
        x = exp2_approx(fmaf(x, scale_log2, neg_max));
        sum += x;
      }
    l[h] = fmaf(l[h], corr[h], sum);
  }
}

// kRowGuard: as in softmax_step, a warp's rows h at or past `rows` are left alone.
template <int kN, bool kRowGuard = false>
__device__ __forceinline__ void rescale(float (&o)[kN], const float (&corr)[2], int rows = 0) {
#pragma unroll
  for (int i = 0; i < kN / 4; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      if (kRowGuard && (threadIdx.x % 128) / 32 * 16 + 8 * h >= rows) continue;
      o[4 * i + 2 * h] *= corr[h];
      o[4 * i + 2 * h + 1] *= corr[h];
    }
}
// ==== end kernels/attention/sm90_fa3_pieces.cuh ====

// ---- this CTA's work ----
struct Job {
  int b, kv_head, unit;
  int len;           // the sequence's history length
  int tile0, tile1;  // key tiles [tile0, tile1) of this unit
  int first, units;  // f(b) and the sequence's unit count
};

// The unit blockIdx.x / HKV of kv head blockIdx.x % HKV: its sequence b (f(b) <= unit < f(b) +
// units(b)) found by warp 0 with a running prefix sum over seq_lens, 32 sequences a step, and
// published through shared memory. False when the unit is past the last (the CTA has no work);
// every thread gets the same answer. Every thread of the CTA calls it.
template <int kHeadDim>
__device__ __forceinline__ bool find_job(SharedStorage<kHeadDim>& sm, const Params& p, Job& job) {
  const int x = static_cast<int>(blockIdx.x);
  job.kv_head = x % p.kv_heads;
  job.unit = x / p.kv_heads;
  if (threadIdx.x < 32) {
    const int lane = static_cast<int>(threadIdx.x);
    int carry = 0;
    bool found = false;
    for (int b0 = 0; b0 < p.batch && !found; b0 += 32) {
      const int b = b0 + lane;
      const int len = b < p.batch ? __ldg(p.seq_lens + b) : 0;
      const int units = ((len + kBlockN - 1) / kBlockN + p.tiles_per_unit - 1) / p.tiles_per_unit;
      int upto = units;  // inclusive prefix sum of the units over the step's lanes
#pragma unroll
      for (int o = 1; o < 32; o *= 2) {
        const int v = __shfl_up_sync(0xffffffffu, upto, o);
        if (lane >= o) upto += v;
      }
      const int first = carry + upto - units;
      const bool mine = units > 0 && job.unit >= first && job.unit < first + units;
      if (mine) {
        sm.found_b = b;
        sm.found_first = first;
        sm.found_units = units;
        sm.found_len = len;
      }
      found = __any_sync(0xffffffffu, mine);
      carry += __shfl_sync(0xffffffffu, upto, 31);
    }
    if (!found && lane == 0) sm.found_b = -1;
  }
  __syncthreads();
  if (sm.found_b < 0) return false;
  job.b = sm.found_b;
  job.first = sm.found_first;
  job.units = sm.found_units;
  job.len = sm.found_len;
  job.tile0 = (job.unit - job.first) * p.tiles_per_unit;
  job.tile1 = min((job.len + kBlockN - 1) / kBlockN, job.tile0 + p.tiles_per_unit);
  return true;
}

// The key of packed row `row`'s last visible key: token i = row / group sees keys up to
// len - SQ + i; padding rows (row >= SQ * group) count as the last token.
__device__ __forceinline__ int last_visible(const Params& p, int len, int row) {
  return len - p.q_len + min(row / p.group, p.q_len - 1);
}

// Sets to -inf the scores of keys after each row's last visible key.
__device__ __forceinline__ void mask_tile(float (&s)[kBlockN / 2], const Params& p, int key0,
                                          int len) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int last = last_visible(p, len, frag_row(h));
#pragma unroll
    for (int i = 0; i < kBlockN / 8; ++i)
#pragma unroll
      for (int e = 0; e < 2; ++e)
        if (key0 + frag_col(i, e) > last) s[4 * i + 2 * h + e] = -INFINITY;
  }
}

// ---- producer ----
// The K or V tile `tile` of the job into `dst` (kChunks boxes), page by page.
template <int kHeadDim>
__device__ __forceinline__ void load_kv_tile(__nv_bfloat16 (*dst)[kBlockN * kChunk],
                                             const CUtensorMap* map, uint64_t* bar, const Params& p,
                                             const Job& job, int tile) {
  const int last_page = (job.len - 1) / p.page_size;
  const int* table = p.page_table + static_cast<int64_t>(job.b) * p.table_width;
  for (int row = 0; row < kBlockN; row += p.box_rows) {
    const int key = tile * kBlockN + row;
    const int page_index = min(key / p.page_size, last_page);
    const int token = __ldg(table + page_index) * p.page_size + key % p.page_size;
#pragma unroll
    for (int c = 0; c < Config<kHeadDim>::kChunks; ++c)
      tma_load_3d(dst[c] + row * kChunk, map, bar, c * kChunk, job.kv_head, token);
  }
}

template <int kHeadDim>
__device__ void produce(SharedStorage<kHeadDim>& sm, const CUtensorMap* q_map,
                        const CUtensorMap* k_map, const CUtensorMap* v_map, const Params& p,
                        const Job& job) {
  constexpr int kChunks = Config<kHeadDim>::kChunks, kStages = Config<kHeadDim>::kStages;
  constexpr uint32_t kTileBytes = kChunks * kChunkBytes;
  prefetch_map(q_map);
  prefetch_map(k_map);
  prefetch_map(v_map);
  mbar_arrive_expect_tx(&sm.q_full, kChunks * p.q_len * p.group * kChunk * 2);
  for (int c = 0; c < kChunks; ++c)
    tma_load_3d(sm.q[c], q_map, &sm.q_full, c * kChunk, job.kv_head * p.group, job.b * p.q_len);
  for (int t = job.tile0; t < job.tile1; ++t) {
    const int n = t - job.tile0, s = n % kStages;
    // NOTE: a fresh barrier counts as having completed the phase before phase 0, so the first
    // pass over the ring (parity 1) does not wait.
    const uint32_t parity = ((n / kStages) & 1) ^ 1;
    mbar_wait_checked(&sm.k_empty[s], parity);
    mbar_arrive_expect_tx(&sm.k_full[s], kTileBytes);
    load_kv_tile<kHeadDim>(sm.k[s], k_map, &sm.k_full[s], p, job, t);
    mbar_wait_checked(&sm.v_empty[s], parity);
    mbar_arrive_expect_tx(&sm.v_full[s], kTileBytes);
    load_kv_tile<kHeadDim>(sm.v[s], v_map, &sm.v_full[s], p, job, t);
  }
}

// ---- consumer ----
// The rows' results: O = acc / rowsum and LSE = scale * max + ln(rowsum), to the outputs (a
// sequence of one unit) or to the unit's slot of the workspace.
template <int kHeadDim>
__device__ __forceinline__ void store_rows(const float (&o)[kHeadDim / 2], const float (&m)[2],
                                           const float (&l)[2], const Params& p, const Job& job) {
  const int rows = p.q_len * p.group;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float sum = l[h];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    const int row = frag_row(h);
    if (row >= rows) continue;
    const float inv = 1.f / sum, lse = m[h] * p.scale + logf(sum);
    if (job.units == 1) {
      const int head = job.kv_head * p.group + row % p.group;
      const int64_t index =
          (static_cast<int64_t>(job.b) * p.q_len + row / p.group) * p.heads + head;
      __nv_bfloat16* dst = p.o + index * kHeadDim;
#pragma unroll
      for (int i = 0; i < kHeadDim / 8; ++i)
        *reinterpret_cast<__nv_bfloat162*>(dst + frag_col(i, 0)) =
            __floats2bfloat162_rn(o[4 * i + 2 * h] * inv, o[4 * i + 2 * h + 1] * inv);
      if (threadIdx.x % 4 == 0) p.lse[index] = lse;
    } else {
      const int64_t slot = (static_cast<int64_t>(job.unit) * p.kv_heads + job.kv_head) * rows + row;
      float* dst = p.part_o + slot * kHeadDim;
#pragma unroll
      for (int i = 0; i < kHeadDim / 8; ++i)
        *reinterpret_cast<float2*>(dst + frag_col(i, 0)) =
            make_float2(o[4 * i + 2 * h] * inv, o[4 * i + 2 * h + 1] * inv);
      if (threadIdx.x % 4 == 0) p.part_lse[slot] = lse;
    }
  }
}

template <int kHeadDim>
__device__ void consume(SharedStorage<kHeadDim>& sm, const Params& p, const Job& job) {
  constexpr int kStages = Config<kHeadDim>::kStages;
  const bool lane0 = threadIdx.x % 32 == 0;
  const int min_last = job.len - p.q_len;  // the last visible key of token 0
  const int rows = p.q_len * p.group;      // packed rows; the rest of the 64 are padding
  float o[kHeadDim / 2];                   // (64, kHeadDim) accumulator
  float s[kBlockN / 2];                    // (64, kBlockN) scores, then P
  uint32_t pa[kBlockN / 4];                // P as bf16 A fragments
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f}, corr[2];
#pragma unroll
  for (int i = 0; i < kHeadDim / 2; ++i) o[i] = 0.f;

  mbar_wait_checked(&sm.q_full, 0);
#pragma unroll 1
  for (int t = job.tile0; t < job.tile1; ++t) {
    const int n = t - job.tile0, st = n % kStages;
    const uint32_t parity = (n / kStages) & 1;
    mbar_wait_checked(&sm.k_full[st], parity);
    fence_regs(s);
    wgmma_fence();
    issue_qk<kHeadDim>(s, sm.q[0], sm.k[st][0]);
    wgmma_commit();
    wgmma_wait<0>();
    fence_regs(s);
    if (lane0) mbar_arrive(&sm.k_empty[st]);
    if ((t + 1) * kBlockN - 1 > min_last) mask_tile(s, p, t * kBlockN, job.len);
    softmax_step<true>(s, m, l, corr, p.scale_log2, rows);
    rescale<kHeadDim / 2, true>(o, corr, rows);
    pack_p(s, pa);
    mbar_wait_checked(&sm.v_full[st], parity);
    fence_regs(o);
    fence_regs(pa);
    wgmma_fence();
    issue_pv(o, pa, sm.v[st][0]);
    wgmma_commit();
    wgmma_wait<0>();
    fence_regs(o);
    if (lane0) mbar_arrive(&sm.v_empty[st]);
  }
  store_rows<kHeadDim>(o, m, l, p, job);
}

template <int kHeadDim>
__global__ void __launch_bounds__(kThreads, 1)
    paged_decode(const __grid_constant__ CUtensorMap q_map,
                 const __grid_constant__ CUtensorMap k_map,
                 const __grid_constant__ CUtensorMap v_map, const Params p) {
  using Smem = SharedStorage<kHeadDim>;
  extern __shared__ uint8_t smem_raw[];
  Smem& sm =
      *reinterpret_cast<Smem*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  Job job;
  // NOTE: the whole CTA leaves before any mbarrier or TMA use when its unit is past the last.
  if (!find_job(sm, p, job)) return;
  if (p.merge && job.unit == job.first && job.kv_head == 0 && threadIdx.x == 0) {
    p.unit_table[2 * job.b] = job.first;
    p.unit_table[2 * job.b + 1] = job.units;
  }
  if (threadIdx.x == 0) {
    mbar_init(&sm.q_full, 1);
    for (int s = 0; s < Config<kHeadDim>::kStages; ++s) {
      mbar_init(&sm.k_full[s], 1);
      mbar_init(&sm.v_full[s], 1);
      mbar_init(&sm.k_empty[s], 4);
      mbar_init(&sm.v_empty[s], 4);
    }
    fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x < 128) {
    if (threadIdx.x == 0) produce<kHeadDim>(sm, &q_map, &k_map, &v_map, p, job);
    return;
  }
  consume<kHeadDim>(sm, p, job);
}

// The units of each row merged: one CTA per (b, token i, head h), one thread per column, for the
// sequences of several units (unit_table); weights exp(LSE_u - max LSE).
__global__ void merge_units(const Params p, int head_dim) {
  const int row = static_cast<int>(blockIdx.x);  // (b * SQ + i) * H + h
  const int h = row % p.heads, i = (row / p.heads) % p.q_len, b = row / (p.heads * p.q_len);
  const int first = p.unit_table[2 * b], units = p.unit_table[2 * b + 1];
  if (units < 2) return;  // the unit wrote O and LSE itself
  const int g = h / p.group, rows = p.q_len * p.group, packed = i * p.group + h % p.group;
  auto slot = [&](int u) {
    return (static_cast<int64_t>(first + u) * p.kv_heads + g) * rows + packed;
  };
  float top = -INFINITY;
  for (int u = 0; u < units; ++u) top = fmaxf(top, p.part_lse[slot(u)]);
  float sum = 0.f, acc = 0.f;
  const int d = static_cast<int>(threadIdx.x);
  for (int u = 0; u < units; ++u) {
    // NOTE: a unit whose keys this row cannot see (all masked) has LSE -inf and weight 0.
    const float lse = p.part_lse[slot(u)];
    if (lse == -INFINITY) continue;
    const float w = __expf(lse - top);
    sum += w;
    acc += w * p.part_o[slot(u) * head_dim + d];
  }
  p.o[static_cast<int64_t>(row) * head_dim + d] = __float2bfloat16_rn(acc / sum);
  if (d == 0) p.lse[row] = top + logf(sum);
}

}  // namespace

// ---- host side ----
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

namespace {

enum Status : int { kBadProblem = 1, kNoTensorMap = 2, kLaunchFailed = 3 };

// A contiguous bf16 tensor seen as the 3-D view {inner, middle, outer} (innermost first), read in
// boxes {64, box_middle, box_outer} with the 128-byte swizzle: Q as {D, H, B * SQ}, the caches as
// {D, HKV, NP * P}.
bool encode_3d(CUtensorMap* map, const void* ptr, int64_t inner, int64_t middle, int64_t outer,
               uint32_t box_middle, uint32_t box_outer) {
  auto encode = tensor_map_encoder();
  if (encode == nullptr) return false;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(inner), static_cast<cuuint64_t>(middle),
                              static_cast<cuuint64_t>(outer)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(inner) * 2,
                                 static_cast<cuuint64_t>(middle * inner) * 2};
  const cuuint32_t box[3] = {kChunk, box_middle, box_outer};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, const_cast<void*>(ptr), dims, strides,
                box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

bool is_contiguous(const ptxb_tensor_desc& t, int32_t dtype, int32_t rank) {
  if (t.dtype != dtype || t.rank != rank) return false;
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (t.shape[d] < 1 || t.strides[d] != stride) return false;
    stride *= t.shape[d];
  }
  return true;
}

struct Problem {
  int64_t batch, q_len, heads, head_dim, pages, page_size, kv_heads, table_width;
  int64_t max_seqlen;
  float scale;
};

// Validates the descriptors and scalars against the contract (no data pointers needed).
std::optional<Problem> parse_problem(const ptxb_problem& pr) {
  if (pr.num_inputs != 5 || pr.num_outputs != 2 || pr.num_scalars != 2) return std::nullopt;
  const ptxb_tensor_desc &q = pr.inputs[0], &k = pr.inputs[1], &v = pr.inputs[2];
  const ptxb_tensor_desc &lens = pr.inputs[3], &table = pr.inputs[4];
  const ptxb_tensor_desc &o = pr.outputs[0], &lse = pr.outputs[1];
  if (!is_contiguous(q, PTXB_BF16, 4) || !is_contiguous(k, PTXB_BF16, 4) ||
      !is_contiguous(v, PTXB_BF16, 4) || !is_contiguous(lens, PTXB_I32, 1) ||
      !is_contiguous(table, PTXB_I32, 2) || !is_contiguous(o, PTXB_BF16, 4) ||
      !is_contiguous(lse, PTXB_F32, 3))
    return std::nullopt;
  Problem p{q.shape[0], q.shape[1], q.shape[2],     q.shape[3], k.shape[0],
            k.shape[1], k.shape[2], table.shape[1], 0,          0.f};
  for (int d = 0; d < 4; ++d)
    if (o.shape[d] != q.shape[d] || v.shape[d] != k.shape[d]) return std::nullopt;
  if (lens.shape[0] != p.batch || table.shape[0] != p.batch || k.shape[3] != p.head_dim ||
      lse.shape[0] != p.batch || lse.shape[1] != p.q_len || lse.shape[2] != p.heads)
    return std::nullopt;
  if ((p.head_dim != 64 && p.head_dim != 128) || p.heads % p.kv_heads != 0 ||
      p.q_len * (p.heads / p.kv_heads) > kRows)
    return std::nullopt;
  const bool small_pages = p.page_size <= kBlockN && kBlockN % p.page_size == 0;
  if (p.page_size % 8 != 0 || !(small_pages || p.page_size % kBlockN == 0)) return std::nullopt;
  const double scale = pr.scalars[0], max_seqlen = pr.scalars[1];
  const double span = static_cast<double>(p.table_width) * static_cast<double>(p.page_size);
  if (!(scale > 0.0 && std::isfinite(scale)) || !(max_seqlen >= p.q_len && max_seqlen <= span) ||
      max_seqlen != std::floor(max_seqlen))
    return std::nullopt;
  // NOTE: TMA coordinates are 32-bit: pool tokens and query rows must fit an int.
  if (p.pages * p.page_size > INT32_MAX || p.batch * p.q_len > INT32_MAX) return std::nullopt;
  p.max_seqlen = static_cast<int64_t>(max_seqlen);
  p.scale = static_cast<float>(scale);
  return p;
}

int g_sms = 0;  // the device's SM count, read by ptxb_plan

// The work cut: C tiles per unit and a bound on the units. The pool bounds the key tiles of all
// sequences (sum of ceil(len_b / 128) <= NP * P / 128 + B: a sequence's pages are its own); C is
// chosen so that about kMinCtasPerSm CTAs per SM would cover that many tiles, and at most the
// longest sequence's tiles; each sequence adds at most one partial unit to the bound.
struct WorkCut {
  int64_t tiles_per_unit, units_max;
  bool merge;  // C below the longest sequence's tiles: a sequence may have several units
};
WorkCut work_cut(const Problem& pb) {
  const int64_t tiles = (pb.pages * pb.page_size + kBlockN - 1) / kBlockN + pb.batch;
  const int64_t longest = (pb.max_seqlen + kBlockN - 1) / kBlockN;
  const int64_t units =
      (int64_t{kMinCtasPerSm} * std::max(g_sms, 1) + pb.kv_heads - 1) / pb.kv_heads;
  const int64_t c = std::max<int64_t>(1, std::min(longest, (tiles + units - 1) / units));
  return {c, (tiles + c - 1) / c + pb.batch, c < longest};
}

uint64_t workspace_for(const Problem& pb, const WorkCut& cut) {
  if (!cut.merge) return 0;
  const int64_t rows = cut.units_max * pb.heads * pb.q_len;  // units * HKV * SQ * G
  return static_cast<uint64_t>(rows * (pb.head_dim + 1) + 2 * pb.batch) * sizeof(float);
}

template <int kHeadDim>
cudaError_t launch(const Problem& pb, const Params& p, int64_t units_max, const ptxb_args& args,
                   cudaStream_t stream) {
  CUtensorMap q_map, k_map, v_map;
  const auto group = static_cast<uint32_t>(p.group), box_rows = static_cast<uint32_t>(p.box_rows);
  if (!encode_3d(&q_map, args.inputs[0], kHeadDim, pb.heads, pb.batch * pb.q_len, group,
                 static_cast<uint32_t>(pb.q_len)) ||
      !encode_3d(&k_map, args.inputs[1], kHeadDim, pb.kv_heads, pb.pages * pb.page_size, 1,
                 box_rows) ||
      !encode_3d(&v_map, args.inputs[2], kHeadDim, pb.kv_heads, pb.pages * pb.page_size, 1,
                 box_rows))
    return cudaErrorInvalidValue;
  const int64_t ctas = units_max * pb.kv_heads;
  paged_decode<kHeadDim><<<static_cast<unsigned>(ctas), kThreads, kSharedBytes<kHeadDim>, stream>>>(
      q_map, k_map, v_map, p);
  if (p.merge)
    merge_units<<<static_cast<unsigned>(pb.batch * pb.q_len * pb.heads), kHeadDim, 0, stream>>>(
        p, kHeadDim);
  return cudaGetLastError();
}

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  *workspace_bytes = 0;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaFuncSetAttribute(paged_decode<64>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(kSharedBytes<64>)) != cudaSuccess ||
      cudaFuncSetAttribute(paged_decode<128>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(kSharedBytes<128>)) != cudaSuccess)
    return kLaunchFailed;
  const std::optional<Problem> pb = parse_problem(*problem);
  if (!pb) return kBadProblem;
  *workspace_bytes = workspace_for(*pb, work_cut(*pb));
  return PTXB_OK;
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const std::optional<Problem> parsed = parse_problem(*args->problem);
  if (!parsed) return kBadProblem;
  const Problem& pb = *parsed;
  const WorkCut cut = work_cut(pb);
  if (args->workspace_bytes < workspace_for(pb, cut) || cut.units_max * pb.kv_heads > INT32_MAX)
    return kBadProblem;
  Params p{};
  p.seq_lens = static_cast<const int*>(args->inputs[3]);
  p.page_table = static_cast<const int*>(args->inputs[4]);
  p.o = static_cast<__nv_bfloat16*>(args->outputs[0]);
  p.lse = static_cast<float*>(args->outputs[1]);
  p.part_o = static_cast<float*>(args->workspace);
  p.part_lse = p.part_o + cut.units_max * pb.heads * pb.q_len * pb.head_dim;
  p.unit_table = reinterpret_cast<int*>(p.part_lse + cut.units_max * pb.heads * pb.q_len);
  p.batch = static_cast<int>(pb.batch);
  p.q_len = static_cast<int>(pb.q_len);
  p.heads = static_cast<int>(pb.heads);
  p.kv_heads = static_cast<int>(pb.kv_heads);
  p.group = static_cast<int>(pb.heads / pb.kv_heads);
  p.page_size = static_cast<int>(pb.page_size);
  p.table_width = static_cast<int>(pb.table_width);
  p.box_rows = static_cast<int>(std::min<int64_t>(pb.page_size, kBlockN));
  p.tiles_per_unit = static_cast<int>(cut.tiles_per_unit);
  p.merge = cut.merge;
  p.scale = pb.scale;
  p.scale_log2 = pb.scale * 1.4426950408889634f;
  const auto stream = static_cast<cudaStream_t>(args->stream);
  const cudaError_t err = pb.head_dim == 64 ? launch<64>(pb, p, cut.units_max, *args, stream)
                                            : launch<128>(pb, p, cut.units_max, *args, stream);
  if (err == cudaErrorInvalidValue) return kNoTensorMap;
  return err == cudaSuccess ? PTXB_OK : kLaunchFailed;
}
