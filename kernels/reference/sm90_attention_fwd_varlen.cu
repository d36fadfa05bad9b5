// Expert solution for variable-length (ragged batch, "THD" layout) attention forward:
// O = softmax(scale * Q K^T) V within each sequence of a packed batch, bf16 inputs and output,
// optional causal mask, grouped-query heads. No LSE output.
//
// Contract: inputs Q [T,H,D], K and V [T,HKV,D] bf16 and cu_seqlens [B+1] int32 (device memory:
// cu_seqlens[0] = 0, cu_seqlens[B] = T, non-decreasing; sequence b owns tokens
// [cu_seqlens[b], cu_seqlens[b+1]) and its length is 1..max_seqlen); output O [T,H,D] bf16;
// scalars [scale, causal (0 or 1), max_seqlen (an integer >= 1)]. H % HKV == 0 (query head h
// reads kv head h / (H / HKV)); D is 64 or 128; all tensors row-major and contiguous. Causal masks
// key j of a sequence for its query i when j > i, positions counted from the sequence's start.
// Workspace: none, or with kDynamicSlots kSlotCounterBytes for the persistent grid's slot
// counter. Returns a non-zero status for any other problem.
//
// Design: the dense expert kernels/reference/sm90_attention_fwd_bf16.cu (FA3-style, arXiv
// 2407.08608), changed only where the ragged layout requires it:
// - one CTA per 128-query tile slot of a head, 384 threads = 3 warpgroups. The lengths live on
//   the device only, so the grid has a slot for every tile any lengths could need, and each CTA
//   finds its sequence in cu_seqlens and exits at once when its slot holds no tile. Per head,
//   sequence b owns the slots from b + floor(cu_seqlens[b] / 128) on: floor(T / 128) + B slots
//   per head, at most one empty per sequence (Grid::kPacked; the slots of a sequence are
//   adjacent, and the query heads of a kv group are adjacent, so K and V stay in L2). Slot i of a
//   sequence takes its tile n - 1 - i: the last (causally heaviest) tile first;
//   NOTE: a grid of ceil(max_seqlen / 128) slots per (sequence, head) (Grid::kPerSequence, kept
//   for comparison) is mostly empty CTAs when the lengths vary, and each one holds an SM (one CTA
//   per SM by shared memory) for a launch and a load;
// - warpgroup 0 is the producer (setmaxnreg down to 24): one thread loads the Q tile once and
//   streams 128-key K and V tiles through a kStages ring with 3-D TMA on the view {D, heads, T}
//   (innermost first) and box {64, 1, 128}: 128 consecutive tokens of one head, the same
//   128-row x 128-byte swizzled tile as the dense expert's box, at coordinates (column block,
//   head, first token of the sequence + row). K and V have separate full/empty mbarriers;
// - warpgroups 1 and 2 are consumers (setmaxnreg up to 240), 64 query rows each: S = Q K^T with
//   wgmma m64n128k16 (both operands K-major in shared memory), online softmax in registers (exp2
//   with scale*log2(e) folded in), P as the bf16 register A operand of O += P V (wgmma m64nDk16,
//   V MN-major), Q K_j^T and P_{j-1} V_{j-1} issued back to back, softmax overlapped with P V and
//   the two consumers taking turns at the tensor cores (Schedule);
// - masking relative to the sequence: key tiles past the sequence's length (causal: above the
//   diagonal) are never loaded; keys >= length in the last tile are masked to -inf (rows past T
//   are zero-filled by TMA, rows before T belong to the next sequence); causal masks the diagonal
//   tile; the output is stored row by row, only rows < length, at O[first token + row][h].
// - D 64 runs 192-query tiles on three consumer warpgroups (kThreeConsumersD64), as the dense
//   expert does; the slots then count 192-row tiles;
// - batches of short sequences (at most kPersistentMaxMeanTiles query tiles on average) run the
//   persistent grid (Grid::kPersistent), the others the packed one.
// NOTE: a tile's box may reach into the next sequence (it is read, masked, never stored), so the
// O store must stay a bounds-checked register store: a TMA store of the tile would overwrite the
// next sequence's rows.
// NOTE: a submission is one self-contained file (docs/abi.md): the PTX wrappers below are copies
// of kernels/ptx/ files, kept equal to them by scripts/amalgamate.py.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

// The dev harness (bench/attention_dev) sets this to 1: every mbarrier wait then gives up after
// about a second and counts the timeout in g_watchdog_timeouts instead of hanging.
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

namespace {

constexpr int kBlockN = 128;  // keys per K/V tile
constexpr int kChunk = 64;    // head-dim columns per TMA box: 64 bf16 = one 128-byte swizzled row
constexpr int kWgRows = 64;   // query rows per consumer warpgroup: one wgmma m64 row block
constexpr uint32_t kChunkBytes = kBlockN * kChunk * 2;  // one (128, 64) box: 16 KiB
// Whether D 64 runs three consumer warpgroups on 192-query tiles instead of two on 128, as the
// dense expert does (kernels/reference/sm90_attention_fwd_bf16.cu, kThreeConsumersD64: why, and
// P packed late into one buffer for the 160 registers of 512 threads). H100, one machine start,
// two evaluations each (bench/results/2026-12-05d-h100-session): the task's D 64 shape 0.796 ->
// 0.825 of cuDNN with the packed grid, 0.818 -> 0.867 with the persistent one; the D 128 kernels
// are the same (bench/gemm_dev/variants.sh `varlen_d64_two_consumers`). Again on another H100
// start (bench/results/2026-12-05e-h100-session, call B): 0.817 / 0.815 -> 0.868 / 0.865.
constexpr bool kThreeConsumersD64 = true;

enum class Schedule { kSerial, kPingPong, kOverlap, kOverlapPingPong };
constexpr Schedule kDefaultSchedule = Schedule::kOverlapPingPong;
// D = 128: true issues P V as two m64n64k16 per 16 keys (one per 64-column box of V) instead of
// one m64n128k16 that reaches the second box through the descriptor's leading byte offset.
constexpr bool kSplitPvDefault = false;

// How the CTAs map to (sequence, head, query tile); the first two leave a few CTAs without a tile
// (they exit at once) because the lengths are known on the device only.
// kPacked: in every head, sequence b owns the slots [f(b), f(b) + n_b), f(b) = b +
//   floor(cu_seqlens[b] / kBlockM), n_b = its query tiles. f(b+1) - f(b) >= n_b, so the ranges
//   never overlap and leave at most one empty slot per sequence; a head needs f(B) =
//   floor(T / kBlockM) + B slots, known on the host. A CTA finds its sequence by testing
//   f(b) <= slot < f(b+1) for kThreads sequences at once (one pass when B <= kThreads).
// kPerSequence: ceil(max_seqlen / kBlockM) slots per (sequence, head), the simplest mapping, but
//   mostly empty CTAs when the lengths vary (16 sequences, T = 32768, the longest 16384: 2048
//   slots per head for 266 tiles, where kPacked has 272).
// kPersistent: the packed slots, taken in turn by a CTA per SM (at most one per slot) that loops
//   over them: a scheduler warp finds the next slot's tile ahead (cu_seqlens cached in shared
//   memory), the producer loads its Q (two buffers) and K, V tiles while the consumers still work
//   on the one before, so a short sequence's tile no longer pays a CTA's start and its first
//   loads' latency.
enum class Grid { kPerSequence, kPacked, kPersistent };
constexpr Grid kDefaultGrid = Grid::kPacked;
// ptxb_run takes kPersistent instead of kDefaultGrid when the sequences average at most this many
// query tiles (0: never). Where tiles are short, a CTA's start, set-up and first loads are a large
// part of a tile's time and the persistent grid hides them; where causal sequences are long, its
// fixed assignment of slots to CTAs (slot x to CTA x mod SMs) leaves SMs with unequal work. H100,
// one machine start, two evaluations each (bench/results/2026-12-05d-h100-session): on the task's
// many short sequences (D 64, mean 512 tokens) persistent gave 0.796 -> 0.818 of cuDNN with two
// consumers and 0.825 -> 0.867 with three; on the hidden shape (D 128, causal, mean 1,667
// tokens, the longest 7,777) it lost 1.051 -> 0.873; the two long-sequence shapes were level
// within their noise (bench/gemm_dev/variants.sh `varlen_persistent`, `varlen_packed_only`).
// Again on another H100 start (bench/results/2026-12-05e-h100-session, call B), the packed grid
// everywhere against this rule: the D 64 shape 0.824 / 0.824 -> 0.868 / 0.865.
constexpr int kPersistentMaxMeanTiles = 4;
// Whether ptxb_run's persistent launches hand out the slots dynamically: each CTA's scheduler warp
// takes the next slot of the launch from a counter in the workspace (atomicAdd; zeroed by
// reset_slot_counter, the persistent kernel a programmatic dependent of it), in slot-major order
// (the heads of one query tile after another), instead of the fixed x = blockIdx.x, + gridDim.x,
// ... A model of the task's many short sequences (tile cost = its key tiles, the lengths of the
// task's seed, 132 SMs; docs/attention.md) puts the fixed assignment's busiest SM at 1.20-1.23
// times the mean and the dynamic one's at 1.01. Measured on an H100
// (bench/results/2026-12-05g-h100-session, call 2), cold speedups over cuDNN on the four timed
// shapes, two rounds: fixed 1.005 / 0.946 / 0.867 / 1.049 and 0.990 / 0.972 / 0.869 / 1.052,
// dynamic 1.031 / 0.937 / 0.972 / 1.052 and 1.005 / 0.977 / 0.970 / 1.051; every case passed
// (bench/gemm_dev/variants.sh `varlen_fixed` turns it off).
constexpr bool kDynamicSlots = true;
constexpr uint64_t kSlotCounterBytes = 256;  // the workspace ptxb_plan asks for with it

template <int kHeadDim>
struct Config {
  static_assert(kHeadDim == 64 || kHeadDim == 128, "head dim 64 or 128");
  static constexpr int kChunks = kHeadDim / kChunk;
  static constexpr int kStages = kHeadDim == 128 ? 2 : 4;
  static constexpr int kConsumers = kHeadDim == 64 && kThreeConsumersD64 ? 3 : 2;
  static constexpr int kBlockM = kConsumers * kWgRows;     // query rows per CTA (tile)
  static constexpr int kThreads = 128 * (1 + kConsumers);  // + the producer warpgroup
  // Registers after setmaxnreg: 24 for the producer; the consumers share the rest of the 64K.
  static constexpr int kConsumerRegs = kConsumers == 3 ? 160 : 240;
  // P packed after the P V product that read the previous P has retired: one P buffer.
  static constexpr bool kPackLate = kConsumers == 3;
  // NOTE: at D 128 (two boxes per row) the Q tile has 128 rows, so its boxes lie kChunkBytes apart.
  static_assert(kChunks == 1 || kBlockM == kBlockN, "the Q box stride of issue_qk");
};

// Every tile is stored as kChunks boxes of (rows, 64) in the TMA 128-byte swizzle; each box is
// 16 KiB, so every box starts on a 1024-byte swizzle-atom boundary. kQBuffers Q tiles: 1, or 2 for
// the persistent kernel (the next tile's Q loads while the consumers read the current one).
template <int kHeadDim, int kQBuffers = 1>
struct SharedStorage {
  static constexpr int kChunks = Config<kHeadDim>::kChunks;
  static constexpr int kStages = Config<kHeadDim>::kStages;
  static constexpr int kBlockM = Config<kHeadDim>::kBlockM;
  __nv_bfloat16 q[kQBuffers][kChunks][kBlockM * kChunk];  // (kBlockM, kHeadDim) per buffer
  __nv_bfloat16 k[kStages][kChunks][kBlockN * kChunk];    // (kBlockN, kHeadDim) per stage
  __nv_bfloat16 v[kStages][kChunks][kBlockN * kChunk];    // (kBlockN, kHeadDim) per stage
  uint64_t q_full[kQBuffers];
  uint64_t k_full[kStages], v_full[kStages];    // TMA transaction bytes
  uint64_t k_empty[kStages], v_empty[kStages];  // lane 0 of every consumer warp
  int found_first, found_len, found_slot0;      // the sequence find_packed_sequence found
};
// NOTE: +1024 so the kernel can align the dynamic shared-memory base to the swizzle atom.
template <int kHeadDim>
constexpr size_t kSharedBytes = sizeof(SharedStorage<kHeadDim>) + 1024;

struct Params {
  const int* cu_seqlens;  // [B + 1] token offsets of the sequences (device memory)
  __nv_bfloat16* o;       // [T, H, D]
  int batch, heads, kv_heads;
  Grid grid;
  int slots;         // query-tile slots per head (kPacked) or per (sequence, head) (kPerSequence)
  float scale_log2;  // scale * log2(e)
  // kPersistent: the launch's next slot (zeroed before it by reset_slot_counter), or null for the
  // fixed assignment x = blockIdx.x, + gridDim.x, ...
  unsigned* slot_counter;
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

// ---- masking ----
// Sets to -inf the scores of keys >= len (rows of the next sequence, or zero-filled rows past T)
// and, when causal, of keys after the query. Keys and rows count from the sequence's start.
__device__ __forceinline__ void mask_tile(float (&s)[kBlockN / 2], int key0, int row0, int len,
                                          bool causal) {
#pragma unroll
  for (int i = 0; i < kBlockN / 8; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int key = key0 + frag_col(i, e);
        if (key >= len || (causal && key > row0 + frag_row(h))) s[4 * i + 2 * h + e] = -INFINITY;
      }
}

// ---- roles ----
struct TileJob {
  int first_token;  // cu_seqlens[b]: the sequence's first row in the [T, heads, D] tensors
  int len;          // the sequence's length
  int m_tile;       // query tile of the sequence
  int head;         // query head h
  int kv_head;      // h / (heads / kv_heads)
  int n_tiles;      // key tiles to visit
};

// The key tiles that query tile m_tile of a sequence of len tokens (m_tiles query tiles) visits:
// all, or causal, up to the one of its last row. With kBlockM == kBlockN the sequence has m_tiles
// key tiles and causal stops at the diagonal tile; 192-query tiles end mid key tile.
template <int kHeadDim, bool kCausal>
__device__ __forceinline__ int key_tiles(int m_tile, int m_tiles, int len) {
  constexpr int kBlockM = Config<kHeadDim>::kBlockM;
  if constexpr (kBlockM == kBlockN) {
    return kCausal ? m_tile + 1 : m_tiles;
  } else {
    const int all = (len + kBlockN - 1) / kBlockN;
    return kCausal ? min(all, ((m_tile + 1) * kBlockM + kBlockN - 1) / kBlockN) : all;
  }
}

// A sequence and the index of a CTA's slot among the sequence's slots.
struct SequenceSlot {
  int first_token, len, slot;
};

// Grid::kPacked: the sequence that owns `slot` of a head (f(b) <= slot < f(b+1)), every thread
// testing one sequence, kThreads at a time; false when none does (offsets outside the contract).
// All threads of the CTA take part and get the same answer.
template <int kHeadDim>
__device__ __forceinline__ bool find_packed_sequence(SharedStorage<kHeadDim>& sm, const Params& p,
                                                     int slot, SequenceSlot& out) {
  constexpr int kThreads = Config<kHeadDim>::kThreads, kBlockM = Config<kHeadDim>::kBlockM;
  bool found = false;
  for (int base = 0; base < p.batch && !found; base += kThreads) {
    const int b = base + static_cast<int>(threadIdx.x);
    bool mine = false;
    if (b < p.batch) {
      const int t0 = __ldg(p.cu_seqlens + b), t1 = __ldg(p.cu_seqlens + b + 1);
      const int f0 = b + t0 / kBlockM, f1 = b + 1 + t1 / kBlockM;
      mine = f0 <= slot && slot < f1;
      if (mine) {
        sm.found_first = t0;
        sm.found_len = t1 - t0;
        sm.found_slot0 = f0;
      }
    }
    found = __syncthreads_or(mine) != 0;  // also publishes the found_* fields
  }
  if (!found) return false;
  out = SequenceSlot{sm.found_first, sm.found_len, slot - sm.found_slot0};
  return true;
}

// The tile in slot `seq.slot` of its sequence (slot i is tile n - 1 - i of n) into `job`'s
// sequence and tile fields; false when the slot holds no tile.
template <int kHeadDim, bool kCausal>
__device__ __forceinline__ bool tile_of_slot(const SequenceSlot& seq, TileJob& job) {
  constexpr int kBlockM = Config<kHeadDim>::kBlockM;
  const int m_tiles = (seq.len + kBlockM - 1) / kBlockM;  // <= 0 for an empty (bad) sequence
  if (seq.slot >= m_tiles) return false;
  job.first_token = seq.first_token;
  job.len = seq.len;
  job.m_tile = m_tiles - 1 - seq.slot;
  job.n_tiles = key_tiles<kHeadDim, kCausal>(job.m_tile, m_tiles, seq.len);
  return true;
}

// The tile of this CTA. kPacked: blockIdx.x = (kv head * slots + slot) * group + r, query head
// kv head * group + r (the query heads of a group, which read the same K and V, are adjacent);
// kPerSequence: blockIdx.x = (b * heads + h) * slots + slot. Slot i of a sequence is its tile
// n - 1 - i of n. False when the slot holds no tile (the CTA has no work); every thread computes
// the same answer.
template <int kHeadDim, bool kCausal>
__device__ __forceinline__ bool find_job(SharedStorage<kHeadDim>& sm, const Params& p,
                                         TileJob& job) {
  const int x = static_cast<int>(blockIdx.x), group = p.heads / p.kv_heads;
  SequenceSlot seq;
  if (p.grid == Grid::kPacked) {
    const int rest = x / group;
    job.kv_head = rest / p.slots;
    job.head = job.kv_head * group + x % group;
    if (!find_packed_sequence(sm, p, rest % p.slots, seq)) return false;
  } else {
    const int seq_head = x / p.slots, b = seq_head / p.heads;
    job.head = seq_head % p.heads;
    job.kv_head = job.head / group;
    seq.first_token = __ldg(p.cu_seqlens + b);
    seq.len = __ldg(p.cu_seqlens + b + 1) - seq.first_token;
    seq.slot = x % p.slots;
  }
  return tile_of_slot<kHeadDim, kCausal>(seq, job);
}

// O = acc / rowsum as bf16, row by row, for the rows of this warpgroup inside the sequence.
template <int kHeadDim>
__device__ __forceinline__ void store_output(const float (&o)[kHeadDim / 2], const float (&l)[2],
                                             const Params& p, const TileJob& job, int row0) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float sum = l[h];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    const int row = row0 + frag_row(h);
    if (row >= job.len) continue;  // a row of the next sequence, or past T
    const float inv = 1.f / sum;
    const int64_t token = static_cast<int64_t>(job.first_token) + row;
    __nv_bfloat16* dst = p.o + (token * p.heads + job.head) * kHeadDim;
#pragma unroll
    for (int i = 0; i < kHeadDim / 8; ++i)
      *reinterpret_cast<__nv_bfloat162*>(dst + frag_col(i, 0)) =
          __floats2bfloat162_rn(o[4 * i + 2 * h] * inv, o[4 * i + 2 * h + 1] * inv);
  }
}

// The producer thread's loads for one tile: its Q into buffer qb, its K and V tiles through the
// ring from position it0 on (the ring's tiles before it: 0 for a CTA's first tile).
template <int kHeadDim, int kQBuffers>
__device__ __forceinline__ void produce_job(SharedStorage<kHeadDim, kQBuffers>& sm,
                                            const CUtensorMap* q_map, const CUtensorMap* k_map,
                                            const CUtensorMap* v_map, const TileJob& job, int qb,
                                            int it0) {
  constexpr int kChunks = Config<kHeadDim>::kChunks, kStages = Config<kHeadDim>::kStages;
  constexpr int kBlockM = Config<kHeadDim>::kBlockM;
  constexpr uint32_t kTileBytes = kChunks * kChunkBytes;
  constexpr uint32_t kQBytes = kChunks * kBlockM * kChunk * 2;
  mbar_arrive_expect_tx(&sm.q_full[qb], kQBytes);
  for (int c = 0; c < kChunks; ++c)
    tma_load_3d(sm.q[qb][c], q_map, &sm.q_full[qb], c * kChunk, job.head,
                job.first_token + job.m_tile * kBlockM);
  for (int j = 0; j < job.n_tiles; ++j) {
    const int s = (it0 + j) % kStages;
    // NOTE: a fresh barrier counts as having completed the phase before phase 0, so the first
    // pass over the ring (parity 1) does not wait.
    const uint32_t parity = (((it0 + j) / kStages) & 1) ^ 1;
    mbar_wait_checked(&sm.k_empty[s], parity);
    mbar_arrive_expect_tx(&sm.k_full[s], kTileBytes);
    for (int c = 0; c < kChunks; ++c)
      tma_load_3d(sm.k[s][c], k_map, &sm.k_full[s], c * kChunk, job.kv_head,
                  job.first_token + j * kBlockN);
    mbar_wait_checked(&sm.v_empty[s], parity);
    mbar_arrive_expect_tx(&sm.v_full[s], kTileBytes);
    for (int c = 0; c < kChunks; ++c)
      tma_load_3d(sm.v[s][c], v_map, &sm.v_full[s], c * kChunk, job.kv_head,
                  job.first_token + j * kBlockN);
  }
}

template <int kHeadDim>
__device__ void produce(SharedStorage<kHeadDim>& sm, const CUtensorMap* q_map,
                        const CUtensorMap* k_map, const CUtensorMap* v_map, const TileJob& job) {
  prefetch_map(q_map);
  prefetch_map(k_map);
  prefetch_map(v_map);
  produce_job(sm, q_map, k_map, v_map, job, 0, 0);
}

// Consumer warpgroup `consumer`'s 64 query rows of one tile: Q from buffer qb (its q_full phase
// q_parity), K and V from ring position it0 on. kLoop (the persistent kernel): also hands the
// last V stage and, through q_empty, the Q buffer back, which a CTA's only tile need not do.
template <int kHeadDim, bool kCausal, Schedule kSched, bool kLoop = false, int kQBuffers = 1>
__device__ void consume(SharedStorage<kHeadDim, kQBuffers>& sm, const Params& p, const TileJob& job,
                        int consumer, int qb = 0, uint32_t q_parity = 0, int it0 = 0,
                        uint64_t* q_empty = nullptr) {
  using Cfg = Config<kHeadDim>;
  constexpr int kStages = Cfg::kStages, kBlockM = Cfg::kBlockM, kConsumers = Cfg::kConsumers;
  constexpr bool kPackLate = Cfg::kPackLate;
  constexpr bool kOverlap = kSched == Schedule::kOverlap || kSched == Schedule::kOverlapPingPong;
  constexpr bool kPingPong = kSched == Schedule::kPingPong || kSched == Schedule::kOverlapPingPong;
  // A turn's barrier: its owner waits, the consumer before it in the round arrives.
  constexpr int kTurnThreads = 2 * 128;
  const bool lane0 = threadIdx.x % 32 == 0;
  const int row0 = job.m_tile * kBlockM + consumer * kWgRows;  // first query row of this WG
  const __nv_bfloat16* q_rows = sm.q[qb][0] + consumer * kWgRows * kChunk;
  auto needs_mask = [&](int j) {
    if constexpr (kBlockM == kBlockN) {
      return (kCausal && j == job.m_tile) || (j + 1) * kBlockN > job.len;
    } else {  // the tile's last key is past this warpgroup's first row
      return (kCausal && (j + 1) * kBlockN - 1 > row0) || (j + 1) * kBlockN > job.len;
    }
  };

  float o[kHeadDim / 2];  // (64, kHeadDim) accumulator
  float s[kBlockN / 2];   // (64, kBlockN) scores, then P
  // P as bf16 A fragments: double-buffered (see step), or one buffer with kPackLate
  uint32_t pa[kPackLate ? 1 : 2][kBlockN / 4];
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f}, corr[2];
#pragma unroll
  for (int i = 0; i < kHeadDim / 2; ++i) o[i] = 0.f;

  // Tile 0: S_0 and its softmax; P_0 waits in registers for the first P V product (in s, not
  // yet packed, with kPackLate).
  mbar_wait_checked(&sm.q_full[qb], q_parity);
  mbar_wait_checked(&sm.k_full[it0 % kStages], (it0 / kStages) & 1);
  fence_regs(s);
  wgmma_fence();
  issue_qk<kHeadDim>(s, q_rows, sm.k[it0 % kStages][0]);
  wgmma_commit();
  wgmma_wait<0>();
  fence_regs(s);
  if (lane0) mbar_arrive(&sm.k_empty[it0 % kStages]);
  if (needs_mask(0)) mask_tile(s, 0, row0, job.len, kCausal);
  softmax_step(s, m, l, corr, p.scale_log2);
  if constexpr (!kPackLate) pack_p(s, pa[0]);

  // Ping-pong: the consumers take turns issuing, in the order 0, 1, ..: consumer c waits on
  // barrier 1 + c before issuing and then opens the next one's; the last consumer opens consumer
  // 0's first. Each side arrives exactly as often as the other syncs.
  const int my_bar = 1 + consumer;
  // NOTE: the general form also gives 2 - consumer for two consumers, but ptxas schedules the
  // two-consumer kernels differently with it; this spelling keeps their measured SASS.
  const int next_bar = kConsumers == 2 ? 2 - consumer : 1 + (consumer + 1) % kConsumers;
  if (kPingPong && consumer == kConsumers - 1 && job.n_tiles > 1)
    named_barrier_arrive<kTurnThreads>(next_bar);

  // Step j >= 1: retire P_{j-2} V_{j-2} and rescale O by the factor of softmax j-1; issue
  // S_j = Q K_j^T and O += P_{j-1} V_{j-1}; then mask and softmax S_j into P_j.
  // NOTE: ptxas hoists a wgmma wait to the top of its basic block, so the wait that retires the
  // P V product sits after the next barrier wait (a branch) rather than after the softmax; and
  // P_j goes to the other buffer than the P_{j-1} that the running wgmma reads. With kPackLate
  // P_{j-1} stays in s as fp32 until that wait and is packed into the one buffer there.
  auto step = [&](int j, uint32_t(&p_prev)[kBlockN / 4], uint32_t(&p_next)[kBlockN / 4]) {
    const int sj = (it0 + j) % kStages, sp = (it0 + j - 1) % kStages;
    mbar_wait_checked(&sm.k_full[sj], ((it0 + j) / kStages) & 1);
    wgmma_wait<0>();
    fence_regs(o);
    if (j >= 2 && lane0) mbar_arrive(&sm.v_empty[(it0 + j - 2) % kStages]);
    if constexpr (kPackLate) {
      fence_regs(p_prev);
      pack_p(s, p_prev);
    }
    rescale(o, corr);
    mbar_wait_checked(&sm.v_full[sp], ((it0 + j - 1) / kStages) & 1);
    if constexpr (kPingPong) named_barrier_sync<kTurnThreads>(my_bar);
    fence_regs(s);
    fence_regs(o);
    fence_regs(p_prev);
    wgmma_fence();
    issue_qk<kHeadDim>(s, q_rows, sm.k[sj][0]);
    wgmma_commit();
    issue_pv(o, p_prev, sm.v[sp][0]);
    wgmma_commit();
    if (kPingPong && !(consumer == kConsumers - 1 && j == job.n_tiles - 1))
      named_barrier_arrive<kTurnThreads>(next_bar);
    if constexpr (kOverlap) {
      wgmma_wait<1>();  // S_j is done; P V runs on under the softmax below
    } else {
      wgmma_wait<0>();
    }
    fence_regs(s);
    if (lane0) mbar_arrive(&sm.k_empty[sj]);
    if (needs_mask(j)) mask_tile(s, j * kBlockN, row0, job.len, kCausal);
    softmax_step(s, m, l, corr, p.scale_log2);
    if constexpr (!kPackLate) pack_p(s, p_next);
  };
  if constexpr (kPackLate) {
#pragma unroll 1
    for (int j = 1; j < job.n_tiles; ++j) step(j, pa[0], pa[0]);
  } else {
#pragma unroll 1
    for (int j = 1; j < job.n_tiles; j += 2) {
      step(j, pa[0], pa[1]);
      if (j + 1 < job.n_tiles) step(j + 1, pa[1], pa[0]);
    }
  }

  // The last P V product, with P_{n-1} in buffer (n - 1) % 2 (in s with kPackLate).
  const int last = job.n_tiles - 1;
  mbar_wait_checked(&sm.v_full[(it0 + last) % kStages], ((it0 + last) / kStages) & 1);
  wgmma_wait<0>();
  fence_regs(o);
  // NOTE: releases V_{n-2} only to keep the arrival counts of the ring uniform.
  if (last >= 1 && lane0) mbar_arrive(&sm.v_empty[(it0 + last - 1) % kStages]);
  rescale(o, corr);
  auto finish = [&](uint32_t(&p_last)[kBlockN / 4]) {
    fence_regs(o);
    fence_regs(p_last);
    wgmma_fence();
    issue_pv(o, p_last, sm.v[(it0 + last) % kStages][0]);
    wgmma_commit();
    wgmma_wait<0>();
    fence_regs(o);
  };
  if constexpr (kPackLate) {
    pack_p(s, pa[0]);
    finish(pa[0]);
  } else if (last % 2 == 0) {
    finish(pa[0]);
  } else {
    finish(pa[1]);
  }
  if constexpr (kLoop) {  // every wgmma of the tile is done: its last V and its Q are free
    if (lane0) {
      mbar_arrive(&sm.v_empty[(it0 + last) % kStages]);
      mbar_arrive(q_empty);
    }
  }
  store_output<kHeadDim>(o, l, p, job, row0);
}

// Thread 0: the K and V ring's barriers (full: the producer's transaction bytes; empty: lane 0 of
// every consumer warp).
template <int kHeadDim, int kQBuffers>
__device__ __forceinline__ void init_ring_barriers(SharedStorage<kHeadDim, kQBuffers>& sm) {
  for (int s = 0; s < Config<kHeadDim>::kStages; ++s) {
    mbar_init(&sm.k_full[s], 1);
    mbar_init(&sm.v_full[s], 1);
    mbar_init(&sm.k_empty[s], Config<kHeadDim>::kConsumers * 4);
    mbar_init(&sm.v_empty[s], Config<kHeadDim>::kConsumers * 4);
  }
}

template <int kHeadDim, bool kCausal, Schedule kSched>
__global__ void __launch_bounds__(Config<kHeadDim>::kThreads, 1)
    attention_fwd(const __grid_constant__ CUtensorMap q_map,
                  const __grid_constant__ CUtensorMap k_map,
                  const __grid_constant__ CUtensorMap v_map, const Params p) {
  using Smem = SharedStorage<kHeadDim>;
  extern __shared__ uint8_t smem_raw[];
  Smem& sm =
      *reinterpret_cast<Smem*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));

  // NOTE: the whole CTA leaves before any mbarrier or TMA use when its slot holds no tile.
  TileJob job;
  if (!find_job<kHeadDim, kCausal>(sm, p, job)) return;

  if (threadIdx.x == 0) {
    mbar_init(&sm.q_full[0], 1);
    init_ring_barriers(sm);
    fence_mbarrier_init();
  }
  __syncthreads();

  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    setmaxnreg_dec<24>();
    if (threadIdx.x == 0) produce<kHeadDim>(sm, &q_map, &k_map, &v_map, job);
    return;
  }
  setmaxnreg_inc<Config<kHeadDim>::kConsumerRegs>();
  consume<kHeadDim, kCausal, kSched>(sm, p, job, warpgroup - 1);
}

// ---- the persistent kernel (Grid::kPersistent) ----
constexpr int kJobSlots = 2;          // tiles found ahead of the consumers
constexpr int kCachedOffsets = 2048;  // sequences whose cu_seqlens the scheduler caches
template <int kHeadDim>
struct PersistentStorage {
  SharedStorage<kHeadDim, 2> tiles;  // first: its tiles need the 1024-byte aligned base
  uint64_t q_empty[2];               // lane 0 of every consumer warp, after a tile's last wgmma
  uint64_t job_full[kJobSlots];      // the scheduler warp, once the job is written
  uint64_t job_empty[kJobSlots];     // the producer thread and lane 0 of every consumer warp
  TileJob jobs[kJobSlots];           // n_tiles 0: no more tiles
  int offsets[kCachedOffsets + 1];   // cu_seqlens, when batch <= kCachedOffsets
};
template <int kHeadDim>
constexpr size_t kPersistentSharedBytes = sizeof(PersistentStorage<kHeadDim>) + 1024;

// Warp 1 of the producer warpgroup: the tiles of this CTA's slots, slots without a tile skipped,
// into the job ring, then a job of no tiles. Its slots: with p.slot_counter, the launch's next
// slot x (taken by lane 0, atomicAdd) as long as one is left, x = slot * heads + head; else x =
// blockIdx.x, + gridDim.x, ... in the packed grid's order (the mapping of find_job). A slot's
// sequence is found 32 sequences at a time by a ballot over the cached offsets (or cu_seqlens
// itself for larger batches).
template <int kHeadDim, bool kCausal>
__device__ void schedule_jobs(PersistentStorage<kHeadDim>& ps, const Params& p) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const bool cached = p.batch <= kCachedOffsets;
  if (cached)
    for (int b = lane; b <= p.batch; b += 32) ps.offsets[b] = __ldg(p.cu_seqlens + b);
  __syncwarp();
  auto offset = [&](int b) { return cached ? ps.offsets[b] : __ldg(p.cu_seqlens + b); };
  const int group = p.heads / p.kv_heads;
  const int slots = p.slots * p.heads;
  int k = 0;
  auto publish = [&](const TileJob& job) {
    const int js = k % kJobSlots;
    if (lane == 0) {
      mbar_wait_checked(&ps.job_empty[js], ((k / kJobSlots) & 1) ^ 1);
      ps.jobs[js] = job;
      mbar_arrive(&ps.job_full[js]);
    }
    __syncwarp();
    ++k;
  };
  const bool dynamic = p.slot_counter != nullptr;
  if (dynamic) griddep_wait();   // reset_slot_counter's zero is visible
  auto take_slot = [&](int x) {  // the slot after x
    if (!dynamic) return x + static_cast<int>(gridDim.x);
    unsigned taken = 0;
    if (lane == 0) taken = atomicAdd(p.slot_counter, 1u);
    taken = __shfl_sync(0xffffffffu, taken, 0);
    return taken < static_cast<unsigned>(slots) ? static_cast<int>(taken) : slots;
  };
  for (int x = dynamic ? take_slot(0) : static_cast<int>(blockIdx.x); x < slots; x = take_slot(x)) {
    const int head = dynamic ? x % p.heads : (x / group / p.slots) * group + x % group;
    const int slot = dynamic ? x / p.heads : x / group % p.slots;
    int first = 0, len = 0, slot0 = 0;
    bool found = false;
    for (int base = 0; base < p.batch && !found; base += 32) {
      const int b = base + lane;
      int t0 = 0, t1 = 0, f0 = 0;
      bool mine = false;
      if (b < p.batch) {
        t0 = offset(b);
        t1 = offset(b + 1);
        f0 = b + t0 / Config<kHeadDim>::kBlockM;
        mine = f0 <= slot && slot < b + 1 + t1 / Config<kHeadDim>::kBlockM;
      }
      const unsigned hits = __ballot_sync(0xffffffffu, mine);
      if (hits != 0) {
        const int src = __ffs(hits) - 1;
        first = __shfl_sync(0xffffffffu, t0, src);
        len = __shfl_sync(0xffffffffu, t1 - t0, src);
        slot0 = __shfl_sync(0xffffffffu, f0, src);
        found = true;
      }
    }
    TileJob job;
    if (!found || !tile_of_slot<kHeadDim, kCausal>(SequenceSlot{first, len, slot - slot0}, job))
      continue;
    job.head = head;
    job.kv_head = head / group;
    publish(job);
  }
  publish(TileJob{0, 0, 0, 0, 0, 0});
}

// Zeroes the persistent kernel's slot counter; that kernel, launched as a programmatic dependent
// of this one, sets up meanwhile and waits for it in schedule_jobs.
__global__ void reset_slot_counter(unsigned* counter) {
  griddep_launch_dependents();
  *counter = 0u;
}

// The k-th job once the scheduler wrote it into ring slot k % kJobSlots; the reader then hands the
// slot back by release_job (the producer thread, lane 0 of each consumer warp).
template <int kHeadDim>
__device__ __forceinline__ TileJob take_job(PersistentStorage<kHeadDim>& ps, int k) {
  const int js = k % kJobSlots;
  mbar_wait_checked(&ps.job_full[js], (k / kJobSlots) & 1);
  return ps.jobs[js];
}
template <int kHeadDim>
__device__ __forceinline__ void release_job(PersistentStorage<kHeadDim>& ps, int k) {
  mbar_arrive(&ps.job_empty[k % kJobSlots]);
}

template <int kHeadDim, bool kCausal, Schedule kSched>
__global__ void __launch_bounds__(Config<kHeadDim>::kThreads, 1)
    attention_fwd_persistent(const __grid_constant__ CUtensorMap q_map,
                             const __grid_constant__ CUtensorMap k_map,
                             const __grid_constant__ CUtensorMap v_map, const Params p) {
  using Smem = PersistentStorage<kHeadDim>;
  extern __shared__ uint8_t smem_raw[];
  Smem& ps =
      *reinterpret_cast<Smem*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  auto& sm = ps.tiles;
  if (threadIdx.x == 0) {
    for (int b = 0; b < 2; ++b) {
      mbar_init(&sm.q_full[b], 1);
      mbar_init(&ps.q_empty[b], Config<kHeadDim>::kConsumers * 4);
    }
    init_ring_barriers(sm);
    for (int js = 0; js < kJobSlots; ++js) {
      mbar_init(&ps.job_full[js], 1);
      mbar_init(&ps.job_empty[js], 1 + Config<kHeadDim>::kConsumers * 4);
    }
    fence_mbarrier_init();
  }
  __syncthreads();

  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    setmaxnreg_dec<24>();
    if (threadIdx.x / 32 == 1) {
      schedule_jobs<kHeadDim, kCausal>(ps, p);
    } else if (threadIdx.x == 0) {
      prefetch_map(&q_map);
      prefetch_map(&k_map);
      prefetch_map(&v_map);
      int it = 0;  // K and V tiles through the ring so far
      for (int k = 0;; ++k) {
        const TileJob job = take_job(ps, k);
        release_job(ps, k);
        if (job.n_tiles == 0) break;
        // Q buffer k % 2 is free once the consumers finished the tile two before.
        mbar_wait_checked(&ps.q_empty[k % 2], ((k / 2) & 1) ^ 1);
        produce_job(sm, &q_map, &k_map, &v_map, job, k % 2, it);
        it += job.n_tiles;
      }
    }
    return;
  }
  setmaxnreg_inc<Config<kHeadDim>::kConsumerRegs>();
  const int consumer = warpgroup - 1;
  const bool lane0 = threadIdx.x % 32 == 0;
  int it = 0;
  for (int k = 0;; ++k) {
    const TileJob job = take_job(ps, k);
    __syncwarp();  // every lane of the warp has read the job before lane 0 hands the slot back
    if (lane0) release_job(ps, k);
    if (job.n_tiles == 0) break;
    consume<kHeadDim, kCausal, kSched, true>(sm, p, job, consumer, k % 2, (k / 2) & 1, it,
                                             &ps.q_empty[k % 2]);
    it += job.n_tiles;
  }
}

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

// A contiguous [tokens, heads, head_dim] bf16 tensor read in boxes of 128 consecutive tokens x 64
// columns of one head, with the 128-byte swizzle: the 3-D view {head_dim, heads, tokens}
// (innermost first) and box {64, 1, 128}. A box lands in shared memory as the same (128 rows,
// 128 bytes) swizzled tile as the dense expert's {64, 128, 1} box; rows past the last token are
// zero-filled.
bool encode_thd(CUtensorMap* map, const void* ptr, int64_t tokens, int64_t heads, int64_t head_dim,
                uint32_t box_rows) {
  auto encode = tensor_map_encoder();
  if (encode == nullptr) return false;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(head_dim), static_cast<cuuint64_t>(heads),
                              static_cast<cuuint64_t>(tokens)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(head_dim) * 2,
                                 static_cast<cuuint64_t>(heads * head_dim) * 2};
  const cuuint32_t box[3] = {kChunk, 1, box_rows};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, const_cast<void*>(ptr), dims, strides,
                box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

enum Status : int { kBadProblem = 1, kNoTensorMap = 2, kLaunchFailed = 3 };

// Query rows per tile at a head dim (64 or 128).
int64_t block_m_of(int64_t head_dim) {
  return head_dim == 64 ? Config<64>::kBlockM : Config<128>::kBlockM;
}

struct Problem {
  int64_t batch, tokens, heads, kv_heads, head_dim;
  int64_t m_slots;  // ceil(max_seqlen / block_m): query tiles of the longest sequence
  bool causal;
  float scale;
};

// Query-tile slots per head (kPacked, kPersistent) or per (sequence, head) (kPerSequence).
int64_t grid_slots(const Problem& pb, Grid grid) {
  return grid == Grid::kPerSequence ? pb.m_slots : pb.tokens / block_m_of(pb.head_dim) + pb.batch;
}
// The slots of every head (of every sequence): the CTAs of a grid of a CTA per slot.
int64_t grid_ctas(const Problem& pb, Grid grid) {
  return grid_slots(pb, grid) * pb.heads * (grid == Grid::kPerSequence ? pb.batch : 1);
}

int g_sms = 0;  // the device's SM count (the persistent grid's size), read by set_smem_attributes

bool is_contiguous(const ptxb_tensor_desc& t, int32_t dtype, int32_t rank) {
  if (t.dtype != dtype || t.rank != rank) return false;
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (t.shape[d] < 1 || t.strides[d] != stride) return false;
    stride *= t.shape[d];
  }
  return true;
}

// Query-tile slots (of block_m rows) per (sequence, head) for the scalar max_seqlen, or 0 when it
// is not an integer >= 1. NOTE: no sequence is longer than T, so a looser bound is clamped to T.
int64_t query_slots(double max_seqlen, int64_t tokens, int64_t block_m) {
  if (!(max_seqlen >= 1.0 && max_seqlen <= 2147483647.0) || max_seqlen != std::floor(max_seqlen))
    return 0;
  return (std::min(static_cast<int64_t>(max_seqlen), tokens) + block_m - 1) / block_m;
}

// Validates the descriptors and scalars (no data pointers needed) and returns the sizes, or
// nothing. The offsets themselves are on the device and trusted (the contract).
std::optional<Problem> parse_problem(const ptxb_problem& pr) {
  if (pr.num_inputs != 4 || pr.num_outputs != 1 || pr.num_scalars != 3) return std::nullopt;
  const ptxb_tensor_desc &q = pr.inputs[0], &k = pr.inputs[1], &v = pr.inputs[2];
  const ptxb_tensor_desc &cu = pr.inputs[3], &o = pr.outputs[0];
  if (!is_contiguous(q, PTXB_BF16, 3) || !is_contiguous(k, PTXB_BF16, 3) ||
      !is_contiguous(v, PTXB_BF16, 3) || !is_contiguous(cu, PTXB_I32, 1) ||
      !is_contiguous(o, PTXB_BF16, 3))
    return std::nullopt;
  Problem p{cu.shape[0] - 1, q.shape[0], q.shape[1], k.shape[1], q.shape[2], 0, false, 0.f};
  for (int d = 0; d < 3; ++d)
    if (o.shape[d] != q.shape[d] || v.shape[d] != k.shape[d]) return std::nullopt;
  if (p.batch < 1 || k.shape[0] != p.tokens || k.shape[2] != p.head_dim) return std::nullopt;
  if ((p.head_dim != 64 && p.head_dim != 128) || p.heads % p.kv_heads != 0) return std::nullopt;
  // NOTE: the online softmax takes the row max of the raw scores, so the scale must be positive.
  const double scale = pr.scalars[0], causal = pr.scalars[1];
  if (!(scale > 0.0 && std::isfinite(scale)) || (causal != 0.0 && causal != 1.0))
    return std::nullopt;
  const int64_t block_m = block_m_of(p.head_dim);
  p.m_slots = query_slots(pr.scalars[2], p.tokens, block_m);
  // NOTE: token rows are int in the kernel (TMA coordinates are 32-bit), a box may start up to
  // block_m - 1 rows past the last token, and the grid is one-dimensional.
  if (p.m_slots == 0 || p.tokens > INT32_MAX - 2 * block_m || p.batch > INT32_MAX - block_m ||
      grid_ctas(p, kDefaultGrid) > INT32_MAX)
    return std::nullopt;
  p.causal = causal != 0.0;
  p.scale = static_cast<float>(scale);
  return p;
}

template <int kHeadDim, bool kCausal, Schedule kSched>
int set_kernel_smem() {
  return cudaFuncSetAttribute(attention_fwd<kHeadDim, kCausal, kSched>,
                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                              static_cast<int>(kSharedBytes<kHeadDim>)) == cudaSuccess
             ? PTXB_OK
             : kLaunchFailed;
}
template <int kHeadDim, bool kCausal, Schedule kSched>
int set_persistent_kernel_smem() {
  return cudaFuncSetAttribute(attention_fwd_persistent<kHeadDim, kCausal, kSched>,
                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                              static_cast<int>(kPersistentSharedBytes<kHeadDim>)) == cudaSuccess
             ? PTXB_OK
             : kLaunchFailed;
}
// Both kernels' shared-memory sizes for every head dim and mask, and the SM count.
template <Schedule kSched>
int set_smem_attributes() {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
    return kLaunchFailed;
  const int st[8] = {set_kernel_smem<64, false, kSched>(),
                     set_kernel_smem<64, true, kSched>(),
                     set_kernel_smem<128, false, kSched>(),
                     set_kernel_smem<128, true, kSched>(),
                     set_persistent_kernel_smem<64, false, kSched>(),
                     set_persistent_kernel_smem<64, true, kSched>(),
                     set_persistent_kernel_smem<128, false, kSched>(),
                     set_persistent_kernel_smem<128, true, kSched>()};
  for (int s : st)
    if (s != PTXB_OK) return s;
  return PTXB_OK;
}

// A CTA per slot, or (kPersistent) a CTA per SM looping over the slots, at most one per slot
// (with p.slot_counter: reset_slot_counter first, the persistent kernel its dependent).
template <int kHeadDim, bool kCausal, Schedule kSched>
void launch_kernel(const CUtensorMap& qm, const CUtensorMap& km, const CUtensorMap& vm,
                   const Params& p, int64_t ctas, cudaStream_t stream) {
  if (p.grid == Grid::kPersistent) {
    const unsigned persistent = static_cast<unsigned>(std::min<int64_t>(ctas, g_sms));
    if (p.slot_counter != nullptr) {
      reset_slot_counter<<<1, 1, 0, stream>>>(p.slot_counter);
      // NOTE: a failed launch sets the error launch_forward reads (cudaGetLastError).
      launch_programmatic(attention_fwd_persistent<kHeadDim, kCausal, kSched>, dim3(persistent),
                          dim3(Config<kHeadDim>::kThreads), kPersistentSharedBytes<kHeadDim>,
                          stream, true, qm, km, vm, p);
      return;
    }
    attention_fwd_persistent<kHeadDim, kCausal, kSched>
        <<<persistent, Config<kHeadDim>::kThreads, kPersistentSharedBytes<kHeadDim>, stream>>>(
            qm, km, vm, p);
  } else {
    attention_fwd<kHeadDim, kCausal, kSched>
        <<<static_cast<unsigned>(ctas), Config<kHeadDim>::kThreads, kSharedBytes<kHeadDim>,
           stream>>>(qm, km, vm, p);
  }
}

// The grid ptxb_run launches: kPersistent for sequences of at most kPersistentMaxMeanTiles query
// tiles on average, else kDefaultGrid.
Grid grid_for(const Problem& pb) {
  const int64_t short_tokens = kPersistentMaxMeanTiles * block_m_of(pb.head_dim) * pb.batch;
  return pb.tokens <= short_tokens ? Grid::kPersistent : kDefaultGrid;
}

// Encodes the tensor maps and launches the kernel; the smem attribute must have been set.
// slot_counter (kPersistent only; 4 bytes of device memory, or null): the persistent kernel takes
// its slots from it (reset_slot_counter zeroes it first) instead of the fixed assignment.
template <Schedule kSched>
int launch_forward(const Problem& pb, const void* q, const void* k, const void* v,
                   const void* cu_seqlens, void* o, cudaStream_t stream, Grid grid = kDefaultGrid,
                   unsigned* slot_counter = nullptr) {
  const int64_t ctas = grid_ctas(pb, grid);
  if (ctas > INT32_MAX) return kBadProblem;
  CUtensorMap qm, km, vm;
  const uint32_t q_rows = static_cast<uint32_t>(block_m_of(pb.head_dim));
  if (!encode_thd(&qm, q, pb.tokens, pb.heads, pb.head_dim, q_rows) ||
      !encode_thd(&km, k, pb.tokens, pb.kv_heads, pb.head_dim, kBlockN) ||
      !encode_thd(&vm, v, pb.tokens, pb.kv_heads, pb.head_dim, kBlockN))
    return kNoTensorMap;
  Params p;
  p.cu_seqlens = static_cast<const int*>(cu_seqlens);
  p.o = static_cast<__nv_bfloat16*>(o);
  p.batch = static_cast<int>(pb.batch);
  p.heads = static_cast<int>(pb.heads);
  p.kv_heads = static_cast<int>(pb.kv_heads);
  p.grid = grid;
  p.slots = static_cast<int>(grid_slots(pb, grid));
  p.scale_log2 = pb.scale * 1.4426950408889634f;
  p.slot_counter = grid == Grid::kPersistent ? slot_counter : nullptr;
  if (pb.head_dim == 64 && pb.causal) {
    launch_kernel<64, true, kSched>(qm, km, vm, p, ctas, stream);
  } else if (pb.head_dim == 64) {
    launch_kernel<64, false, kSched>(qm, km, vm, p, ctas, stream);
  } else if (pb.causal) {
    launch_kernel<128, true, kSched>(qm, km, vm, p, ctas, stream);
  } else {
    launch_kernel<128, false, kSched>(qm, km, vm, p, ctas, stream);
  }
  return cudaGetLastError() == cudaSuccess ? PTXB_OK : kLaunchFailed;
}

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  *workspace_bytes = 0;
  const std::optional<Problem> pb = parse_problem(*problem);
  if (!pb) return kBadProblem;
  if (kDynamicSlots && grid_for(*pb) == Grid::kPersistent) *workspace_bytes = kSlotCounterBytes;
  return set_smem_attributes<kDefaultSchedule>();
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const std::optional<Problem> pb = parse_problem(*args->problem);
  if (!pb) return kBadProblem;
  const Grid grid = grid_for(*pb);
  unsigned* slot_counter = nullptr;
  if (kDynamicSlots && grid == Grid::kPersistent) {
    if (args->workspace == nullptr || args->workspace_bytes < sizeof(unsigned)) return kBadProblem;
    slot_counter = static_cast<unsigned*>(args->workspace);
  }
  return launch_forward<kDefaultSchedule>(
      *pb, args->inputs[0], args->inputs[1], args->inputs[2], args->inputs[3], args->outputs[0],
      static_cast<cudaStream_t>(args->stream), grid, slot_counter);
}
