// Expert solution for sm90/attention/fwd-bf16: O = softmax(scale * Q K^T) V and the row
// log-sum-exp, bf16 inputs and output, fp32 LSE, optional causal mask, grouped-query heads.
//
// Contract (docs/attention.md): inputs Q [B,H,S,D], K and V [B,HKV,S,D] (H % HKV == 0; query head
// h reads kv head h / (H / HKV)); outputs O [B,H,S,D] bf16 and LSE [B,H,S] fp32 (natural log);
// scalars [scale, causal]. All tensors row-major and contiguous; D is 64, 96, 128 or 256; any
// S >= 1.
// Causal masks key j for query i when j > i. Returns a non-zero status for any other problem.
//
// Design (written for PTXBench from the public FlashAttention-3 description, arXiv 2407.08608):
// - one CTA per (128-query tile, head, batch), 384 threads = 3 warpgroups; query tiles of one
//   head are adjacent in the grid (K and V of a head stay in L2), the last tile first;
// - warpgroup 0 is the producer (setmaxnreg down to 24): one thread loads the Q tile once and
//   streams K and V tiles of 128 keys (64 at D = 256) with 3-D TMA ({D, S, B*heads}, box
//   {64, keys, 1}, 128-byte swizzle, rows past S and columns past D zero-filled) through a
//   kStages ring; K and V have separate full/empty mbarriers so that a K tile is refilled as soon
//   as Q K^T has read it;
// - warpgroups 1 and 2 are consumers (setmaxnreg up to 240), 64 query rows each:
//   S = Q K^T with wgmma m64n128k16 (m64n64k16 at D = 256; both operands K-major in shared
//   memory, D / 16 k-steps: at D = 96 the second box's zero-filled half is never read), online
//   softmax in
//   registers (exp2 with scale*log2(e) folded in, row max through quad shuffles, row sums kept
//   per thread until the end), P rounded to bf16 in registers and fed as the register A operand
//   of O += P V (wgmma m64nDk16, m64n256k16 at D = 256, with V read MN-major from the same
//   row-major TMA tile);
// - the loop issues Q K_j^T and P_{j-1} V_{j-1} back to back; Schedule picks whether softmax of
//   tile j overlaps the P V product (intra-warpgroup overlap) and whether the two consumers take
//   turns at the tensor cores (ping-pong through two named barriers): both at D 64 and 128, the
//   overlap alone at D 96 and 256 (kScheduleFor);
// - causal: key tiles above the diagonal are skipped and only tiles that reach past a
//   warpgroup's first row are masked; keys >= S (ragged last tile) are masked to -inf; rows >= S
//   are never stored.
// - D = 256 takes tiles of 64 keys so that O (128 registers), S and two P buffers fit the
//   consumers' 240 registers, and K and V still have two stages next to the 64 KiB Q tile.
// - D = 64 runs 192-query tiles on three consumer warpgroups (kThreeConsumersD64), the
//   consumers taking turns in a round of three.
// NOTE: a submission is one self-contained file (docs/abi.md): the PTX wrappers below are copies
// of kernels/ptx/ files, kept equal to them by scripts/amalgamate.py.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

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

constexpr int kChunk = 64;   // head-dim columns per TMA box: 64 bf16 = one 128-byte swizzled row
constexpr int kWgRows = 64;  // query rows per consumer warpgroup: one wgmma m64 row block
// One (128 rows, 64) box: 16 KiB. Q's boxes (tiles of 128 queries), and those of K and V at tiles
// of 128 keys.
constexpr uint32_t kChunkBytes = 128 * kChunk * 2;
// Whether D 64 runs three consumer warpgroups on 192-query tiles (as FlashAttention-3 does at
// D <= 64) instead of two on 128: at D 64 a warpgroup's softmax of a score tile takes about as
// long as its two products (the exp2 throughput against half the MMA work of D 128), so two
// consumers taking turns leave the tensor cores idle whenever one's softmax runs long; a third
// keeps a product queued. The consumers then get 160 registers (512 threads), so P is packed
// into one buffer after the P V product before it has retired (kPackLate). H100, one machine
// start, two evaluations each, interleaved (bench/results/2026-12-05d-h100-session): the task's
// D 64 shape 0.783 / 0.781 -> 0.908 / 0.908 of cuDNN (sustained 0.777 / 0.774 -> 0.896 / 0.905);
// in the dev harness 1289 -> 1159 us through the ABI, causal 706 -> 674 us (bench/gemm_dev/
// variants.sh `fwd_d64_two_consumers`). Again on another H100 start (bench/results/
// 2026-12-05e-h100-session, call B): 0.782 / 0.781 -> 0.903 / 0.906, the other shapes level.
constexpr bool kThreeConsumersD64 = true;

// kByHeadDim: each head dim's own (kScheduleFor), what the ABI entry runs.
enum class Schedule { kSerial, kPingPong, kOverlap, kOverlapPingPong, kByHeadDim };
constexpr Schedule kDefaultSchedule = Schedule::kByHeadDim;
// Measured on the H200 (bench/attention_dev/fwd_dev.sh, the 4096-token shapes): ping-pong pays at
// D 64 and 128 but costs 5-8% at D 96 and 256, where the intra-warpgroup overlap alone is best.
template <int kHeadDim>
constexpr Schedule kScheduleFor =
    kHeadDim == 96 || kHeadDim == 256 ? Schedule::kOverlap : Schedule::kOverlapPingPong;
// The schedule a kernel runs: kSched itself, or the head dim's own for kByHeadDim.
template <int kHeadDim, Schedule kSched>
constexpr Schedule kResolved = kSched == Schedule::kByHeadDim ? kScheduleFor<kHeadDim> : kSched;
// D = 128: true issues P V as two m64n64k16 per 16 keys (one per 64-column box of V) instead of
// one m64n128k16 that reaches the second box through the descriptor's leading byte offset.
constexpr bool kSplitPvDefault = false;

template <int kHeadDim>
struct Config {
  static_assert(kHeadDim == 64 || kHeadDim == 96 || kHeadDim == 128 || kHeadDim == 256,
                "head dim 64, 96, 128 or 256");
  static constexpr int kConsumers = kHeadDim == 64 && kThreeConsumersD64 ? 3 : 2;
  static constexpr int kBlockM = kConsumers * kWgRows;     // query rows per CTA
  static constexpr int kThreads = 128 * (1 + kConsumers);  // + the producer warpgroup
  // Registers after setmaxnreg: 24 for the producer; the consumers share the rest of the 64K.
  static constexpr int kConsumerRegs = kConsumers == 3 ? 160 : 240;
  // P packed after the P V product that read the previous P has retired: one P buffer.
  static constexpr bool kPackLate = kConsumers == 3;
  static constexpr int kBlockN = kHeadDim == 256 ? 64 : 128;  // keys per K/V tile
  // 64-column boxes per row; at D = 96 the second box's columns past D are zero-filled.
  static constexpr int kChunks = (kHeadDim + kChunk - 1) / kChunk;
  static constexpr int kStages = kHeadDim == 64 ? 4 : 2;
  static constexpr uint32_t kKvBoxBytes = kBlockN * kChunk * 2;  // one (kBlockN, 64) box
};

// Every tile is stored as kChunks boxes of (rows, 64) in the TMA 128-byte swizzle; each box is
// 16 or 8 KiB, so every box starts on a 1024-byte swizzle-atom boundary.
template <int kHeadDim>
struct SharedStorage {
  static constexpr int kChunks = Config<kHeadDim>::kChunks;
  static constexpr int kStages = Config<kHeadDim>::kStages;
  static constexpr int kBlockN = Config<kHeadDim>::kBlockN;
  static constexpr int kBlockM = Config<kHeadDim>::kBlockM;
  __nv_bfloat16 q[kChunks][kBlockM * kChunk];           // (kBlockM, kHeadDim)
  __nv_bfloat16 k[kStages][kChunks][kBlockN * kChunk];  // (kBlockN, kHeadDim) per stage
  __nv_bfloat16 v[kStages][kChunks][kBlockN * kChunk];  // (kBlockN, kHeadDim) per stage
  uint64_t q_full;
  uint64_t k_full[kStages], v_full[kStages];    // TMA transaction bytes
  uint64_t k_empty[kStages], v_empty[kStages];  // lane 0 of every consumer warp
};
// NOTE: +1024 so the kernel can align the dynamic shared-memory base to the swizzle atom.
template <int kHeadDim>
constexpr size_t kSharedBytes = sizeof(SharedStorage<kHeadDim>) + 1024;

struct Params {
  __nv_bfloat16* o;  // [B, H, S, D]
  float* lse;        // [B, H, S]
  int seq, heads, kv_heads, m_tiles;
  float scale, scale_log2;  // scale and scale * log2(e)
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

// ---- masking ----
// Sets to -inf the scores of keys >= seq and, when causal, of keys after the query.
template <int kS>
__device__ __forceinline__ void mask_tile(float (&s)[kS], int key0, int row0, int seq,
                                          bool causal) {
#pragma unroll
  for (int i = 0; i < kS / 4; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int key = key0 + frag_col(i, e);
        if (key >= seq || (causal && key > row0 + frag_row(h))) s[4 * i + 2 * h + e] = -INFINITY;
      }
}

// O = acc / rowsum as bf16 (the first kHeadDim columns of the accumulator) and
// LSE = scale * max + log(rowsum) for rows < seq.
template <int kHeadDim>
__device__ __forceinline__ void store_output(const float (&o)[kHeadDim / 2], const float (&m)[2],
                                             const float (&l)[2], const Params& p, int q_head,
                                             int row0) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float sum = l[h];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    const int row = row0 + frag_row(h);
    if (row >= p.seq) continue;
    const float inv = 1.f / sum;
    const int64_t index = static_cast<int64_t>(q_head) * p.seq + row;
    __nv_bfloat16* dst = p.o + index * kHeadDim;
#pragma unroll
    for (int i = 0; i < kHeadDim / 8; ++i)
      *reinterpret_cast<__nv_bfloat162*>(dst + frag_col(i, 0)) =
          __floats2bfloat162_rn(o[4 * i + 2 * h] * inv, o[4 * i + 2 * h + 1] * inv);
    if (threadIdx.x % 4 == 0) p.lse[index] = m[h] * p.scale + logf(sum);
  }
}

// ---- roles ----
struct TileJob {
  int m_tile;   // query tile
  int q_head;   // b * heads + h
  int kv_head;  // b * kv_heads + h / (heads / kv_heads)
  int n_tiles;  // key tiles to visit
};

template <int kHeadDim>
__device__ void produce(SharedStorage<kHeadDim>& sm, const CUtensorMap* q_map,
                        const CUtensorMap* k_map, const CUtensorMap* v_map, const TileJob& job) {
  using Cfg = Config<kHeadDim>;
  constexpr int kChunks = Cfg::kChunks, kStages = Cfg::kStages, kBlockN = Cfg::kBlockN;
  // NOTE: a box's bytes count in full, its zero-filled part included.
  constexpr uint32_t kQBytes = kChunks * Cfg::kBlockM * kChunk * 2;
  constexpr uint32_t kTileBytes = kChunks * Cfg::kKvBoxBytes;
  prefetch_map(q_map);
  prefetch_map(k_map);
  prefetch_map(v_map);
  mbar_arrive_expect_tx(&sm.q_full, kQBytes);
  for (int c = 0; c < kChunks; ++c)
    tma_load_3d(sm.q[c], q_map, &sm.q_full, c * kChunk, job.m_tile * Cfg::kBlockM, job.q_head);
  for (int j = 0; j < job.n_tiles; ++j) {
    const int s = j % kStages;
    // NOTE: a fresh barrier counts as having completed the phase before phase 0, so the first
    // pass over the ring (parity 1) does not wait.
    const uint32_t parity = ((j / kStages) & 1) ^ 1;
    mbar_wait_checked(&sm.k_empty[s], parity);
    mbar_arrive_expect_tx(&sm.k_full[s], kTileBytes);
    for (int c = 0; c < kChunks; ++c)
      tma_load_3d(sm.k[s][c], k_map, &sm.k_full[s], c * kChunk, j * kBlockN, job.kv_head);
    mbar_wait_checked(&sm.v_empty[s], parity);
    mbar_arrive_expect_tx(&sm.v_full[s], kTileBytes);
    for (int c = 0; c < kChunks; ++c)
      tma_load_3d(sm.v[s][c], v_map, &sm.v_full[s], c * kChunk, j * kBlockN, job.kv_head);
  }
}

template <int kHeadDim, bool kCausal, Schedule kSched>
__device__ void consume(SharedStorage<kHeadDim>& sm, const Params& p, const TileJob& job,
                        int consumer) {
  using Cfg = Config<kHeadDim>;
  constexpr int kStages = Cfg::kStages, kBlockN = Cfg::kBlockN, kBlockM = Cfg::kBlockM;
  constexpr int kConsumers = Cfg::kConsumers;
  constexpr bool kPackLate = Cfg::kPackLate;
  constexpr uint32_t kKvBox = Cfg::kKvBoxBytes;
  constexpr bool kOverlap = kSched == Schedule::kOverlap || kSched == Schedule::kOverlapPingPong;
  constexpr bool kPingPong = kSched == Schedule::kPingPong || kSched == Schedule::kOverlapPingPong;
  // A turn's barrier: its owner waits, the consumer before it in the round arrives.
  constexpr int kTurnThreads = 2 * 128;
  const bool lane0 = threadIdx.x % 32 == 0;
  const int row0 = job.m_tile * kBlockM + consumer * kWgRows;  // first query row of this WG
  const __nv_bfloat16* q_rows = sm.q[0] + consumer * kWgRows * kChunk;
  auto needs_mask = [&](int j) {
    if constexpr (kBlockN == kBlockM) {
      return (kCausal && j == job.m_tile) || (j + 1) * kBlockN > p.seq;
    } else {  // the tile's last key is past this warpgroup's first row
      return (kCausal && (j + 1) * kBlockN - 1 > row0) || (j + 1) * kBlockN > p.seq;
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
  mbar_wait_checked(&sm.q_full, 0);
  mbar_wait_checked(&sm.k_full[0], 0);
  fence_regs(s);
  wgmma_fence();
  issue_qk<kHeadDim, kChunkBytes, kKvBox>(s, q_rows, sm.k[0][0]);
  wgmma_commit();
  wgmma_wait<0>();
  fence_regs(s);
  if (lane0) mbar_arrive(&sm.k_empty[0]);
  if (needs_mask(0)) mask_tile(s, 0, row0, p.seq, kCausal);
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
    const int sj = j % kStages, sp = (j - 1) % kStages;
    mbar_wait_checked(&sm.k_full[sj], (j / kStages) & 1);
    wgmma_wait<0>();
    fence_regs(o);
    if (j >= 2 && lane0) mbar_arrive(&sm.v_empty[(j - 2) % kStages]);
    if constexpr (kPackLate) {
      fence_regs(p_prev);
      pack_p(s, p_prev);
    }
    rescale(o, corr);
    mbar_wait_checked(&sm.v_full[sp], ((j - 1) / kStages) & 1);
    if constexpr (kPingPong) named_barrier_sync<kTurnThreads>(my_bar);
    fence_regs(s);
    fence_regs(o);
    fence_regs(p_prev);
    wgmma_fence();
    issue_qk<kHeadDim, kChunkBytes, kKvBox>(s, q_rows, sm.k[sj][0]);
    wgmma_commit();
    issue_pv<kSplitPvDefault, kKvBox>(o, p_prev, sm.v[sp][0]);
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
    if (needs_mask(j)) mask_tile(s, j * kBlockN, row0, p.seq, kCausal);
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
  mbar_wait_checked(&sm.v_full[last % kStages], (last / kStages) & 1);
  wgmma_wait<0>();
  fence_regs(o);
  // NOTE: releases V_{n-2} only to keep the arrival counts of the ring uniform.
  if (last >= 1 && lane0) mbar_arrive(&sm.v_empty[(last - 1) % kStages]);
  rescale(o, corr);
  auto finish = [&](uint32_t(&p_last)[kBlockN / 4]) {
    fence_regs(o);
    fence_regs(p_last);
    wgmma_fence();
    issue_pv<kSplitPvDefault, kKvBox>(o, p_last, sm.v[last % kStages][0]);
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
  store_output<kHeadDim>(o, m, l, p, job.q_head, row0);
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

  TileJob job;
  job.m_tile = p.m_tiles - 1 - static_cast<int>(blockIdx.x % p.m_tiles);
  job.q_head = static_cast<int>(blockIdx.x / p.m_tiles);
  const int group = p.heads / p.kv_heads;
  job.kv_head = (job.q_head / p.heads) * p.kv_heads + (job.q_head % p.heads) / group;
  using Cfg = Config<kHeadDim>;
  constexpr int kBlockN = Cfg::kBlockN, kBlockM = Cfg::kBlockM;
  const int kv_tiles = (p.seq + kBlockN - 1) / kBlockN;
  // causal: up to the key tile of the query tile's last row (192-query tiles end mid key tile)
  const int causal_tiles = kBlockM % kBlockN == 0
                               ? (job.m_tile + 1) * (kBlockM / kBlockN)
                               : ((job.m_tile + 1) * kBlockM + kBlockN - 1) / kBlockN;
  job.n_tiles = kCausal ? min(kv_tiles, causal_tiles) : kv_tiles;

  if (threadIdx.x == 0) {
    mbar_init(&sm.q_full, 1);
    for (int s = 0; s < Smem::kStages; ++s) {
      mbar_init(&sm.k_full[s], 1);
      mbar_init(&sm.v_full[s], 1);
      mbar_init(&sm.k_empty[s], Cfg::kConsumers * 4);
      mbar_init(&sm.v_empty[s], Cfg::kConsumers * 4);
    }
    fence_mbarrier_init();
  }
  __syncthreads();

  // NOTE: warp-uniform (ptx/wgmma.cuh): H100, three interleaved rounds beside threadIdx.x / 128
  // (bench/results/2026-12-06b-session, variants `fwd_uniformwg`, `fwd_d256_uniformwg`): 1.00-1.04
  // of its speedups on the D 128 task's seven timed shapes, 1.011-1.020 on the D 256 task's three.
  const int warpgroup = warpgroup_index();
  if (warpgroup == 0) {
    setmaxnreg_dec<24>();
    if (threadIdx.x == 0) produce<kHeadDim>(sm, &q_map, &k_map, &v_map, job);
    return;
  }
  setmaxnreg_inc<Cfg::kConsumerRegs>();
  consume<kHeadDim, kCausal, kSched>(sm, p, job, warpgroup - 1);
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

// A contiguous [heads, seq, head_dim] bf16 tensor read in (box_rows, 64 columns) boxes of one
// head with the 128-byte swizzle. NOTE: 3-D so that rows past seq are out of bounds and
// zero-filled instead of being read from the next head (columns past head_dim likewise).
bool encode_bhsd(CUtensorMap* map, const void* ptr, int64_t heads, int64_t seq, int64_t head_dim,
                 uint32_t box_rows) {
  auto encode = tensor_map_encoder();
  if (encode == nullptr) return false;
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(head_dim), static_cast<cuuint64_t>(seq),
                              static_cast<cuuint64_t>(heads)};
  const cuuint64_t strides[2] = {static_cast<cuuint64_t>(head_dim) * 2,
                                 static_cast<cuuint64_t>(seq * head_dim) * 2};
  const cuuint32_t box[3] = {kChunk, box_rows, 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, const_cast<void*>(ptr), dims, strides,
                box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

enum Status : int { kBadProblem = 1, kNoTensorMap = 2, kLaunchFailed = 3 };

// Query rows per CTA at a head dim (64, 96, 128 or 256).
int64_t block_m_of(int64_t head_dim) {
  return head_dim == 64 ? Config<64>::kBlockM : Config<128>::kBlockM;
}

struct Problem {
  int64_t batch, heads, kv_heads, seq, head_dim;
  bool causal;
  float scale;
};

bool is_contiguous(const ptxb_tensor_desc& t, int32_t dtype, int32_t rank) {
  if (t.dtype != dtype || t.rank != rank) return false;
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (t.shape[d] < 1 || t.strides[d] != stride) return false;
    stride *= t.shape[d];
  }
  return true;
}

// Validates the descriptors (no data pointers needed) and returns the sizes, or nothing.
std::optional<Problem> parse_problem(const ptxb_problem& pr) {
  if (pr.num_inputs != 3 || pr.num_outputs != 2 || pr.num_scalars < 1) return std::nullopt;
  const ptxb_tensor_desc &q = pr.inputs[0], &k = pr.inputs[1], &v = pr.inputs[2];
  const ptxb_tensor_desc &o = pr.outputs[0], &lse = pr.outputs[1];
  if (!is_contiguous(q, PTXB_BF16, 4) || !is_contiguous(k, PTXB_BF16, 4) ||
      !is_contiguous(v, PTXB_BF16, 4) || !is_contiguous(o, PTXB_BF16, 4) ||
      !is_contiguous(lse, PTXB_F32, 3))
    return std::nullopt;
  Problem p{q.shape[0], q.shape[1], k.shape[1], q.shape[2], q.shape[3], false, 0.f};
  for (int d = 0; d < 4; ++d)
    if (o.shape[d] != q.shape[d] || v.shape[d] != k.shape[d]) return std::nullopt;
  if (k.shape[0] != p.batch || k.shape[2] != p.seq || k.shape[3] != p.head_dim) return std::nullopt;
  if (lse.shape[0] != p.batch || lse.shape[1] != p.heads || lse.shape[2] != p.seq)
    return std::nullopt;
  if ((p.head_dim != 64 && p.head_dim != 96 && p.head_dim != 128 && p.head_dim != 256) ||
      p.heads % p.kv_heads != 0)
    return std::nullopt;
  const int64_t m_tiles = (p.seq + block_m_of(p.head_dim) - 1) / block_m_of(p.head_dim);
  if (p.seq > INT32_MAX || m_tiles * p.batch * p.heads > INT32_MAX) return std::nullopt;
  p.causal = pr.num_scalars >= 2 && pr.scalars[1] != 0.0;
  p.scale = static_cast<float>(pr.scalars[0]);
  return p;
}

template <int kHeadDim, bool kCausal, Schedule kSched>
int set_kernel_smem() {
  return cudaFuncSetAttribute(attention_fwd<kHeadDim, kCausal, kResolved<kHeadDim, kSched>>,
                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                              static_cast<int>(kSharedBytes<kHeadDim>)) == cudaSuccess
             ? PTXB_OK
             : kLaunchFailed;
}
template <int kHeadDim, Schedule kSched>
int set_smem_attributes() {
  const int st[2] = {set_kernel_smem<kHeadDim, false, kSched>(),
                     set_kernel_smem<kHeadDim, true, kSched>()};
  return st[0] != PTXB_OK ? st[0] : st[1];
}
// Both masks' kernels of the problem's head dim.
template <Schedule kSched>
int set_smem_attributes(int64_t head_dim) {
  switch (head_dim) {
    case 64:
      return set_smem_attributes<64, kSched>();
    case 96:
      return set_smem_attributes<96, kSched>();
    case 128:
      return set_smem_attributes<128, kSched>();
    default:
      return set_smem_attributes<256, kSched>();
  }
}

template <int kHeadDim, bool kCausal, Schedule kSched>
void launch_kernel(const CUtensorMap& qm, const CUtensorMap& km, const CUtensorMap& vm,
                   const Params& p, int64_t ctas, cudaStream_t stream) {
  attention_fwd<kHeadDim, kCausal, kResolved<kHeadDim, kSched>>
      <<<static_cast<unsigned>(ctas), Config<kHeadDim>::kThreads, kSharedBytes<kHeadDim>, stream>>>(
          qm, km, vm, p);
}
template <int kHeadDim, Schedule kSched>
void launch_kernel(bool causal, const CUtensorMap& qm, const CUtensorMap& km, const CUtensorMap& vm,
                   const Params& p, int64_t ctas, cudaStream_t stream) {
  if (causal) {
    launch_kernel<kHeadDim, true, kSched>(qm, km, vm, p, ctas, stream);
  } else {
    launch_kernel<kHeadDim, false, kSched>(qm, km, vm, p, ctas, stream);
  }
}

// Encodes the tensor maps and launches one kernel; the smem attribute must have been set.
template <Schedule kSched>
int launch_forward(const Problem& pb, const void* q, const void* k, const void* v, void* o,
                   void* lse, cudaStream_t stream) {
  CUtensorMap qm, km, vm;
  const uint32_t key_rows = pb.head_dim == 256 ? Config<256>::kBlockN : Config<128>::kBlockN;
  const int64_t block_m = block_m_of(pb.head_dim);
  if (!encode_bhsd(&qm, q, pb.batch * pb.heads, pb.seq, pb.head_dim,
                   static_cast<uint32_t>(block_m)) ||
      !encode_bhsd(&km, k, pb.batch * pb.kv_heads, pb.seq, pb.head_dim, key_rows) ||
      !encode_bhsd(&vm, v, pb.batch * pb.kv_heads, pb.seq, pb.head_dim, key_rows))
    return kNoTensorMap;
  Params p;
  p.o = static_cast<__nv_bfloat16*>(o);
  p.lse = static_cast<float*>(lse);
  p.seq = static_cast<int>(pb.seq);
  p.heads = static_cast<int>(pb.heads);
  p.kv_heads = static_cast<int>(pb.kv_heads);
  p.m_tiles = static_cast<int>((pb.seq + block_m - 1) / block_m);
  p.scale = pb.scale;
  p.scale_log2 = pb.scale * 1.4426950408889634f;
  const int64_t ctas = p.m_tiles * pb.batch * pb.heads;
  switch (pb.head_dim) {
    case 64:
      launch_kernel<64, kSched>(pb.causal, qm, km, vm, p, ctas, stream);
      break;
    case 96:
      launch_kernel<96, kSched>(pb.causal, qm, km, vm, p, ctas, stream);
      break;
    case 128:
      launch_kernel<128, kSched>(pb.causal, qm, km, vm, p, ctas, stream);
      break;
    default:
      launch_kernel<256, kSched>(pb.causal, qm, km, vm, p, ctas, stream);
      break;
  }
  return cudaGetLastError() == cudaSuccess ? PTXB_OK : kLaunchFailed;
}

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  *workspace_bytes = 0;
  const std::optional<Problem> pb = parse_problem(*problem);
  if (!pb) return kBadProblem;
  return set_smem_attributes<kDefaultSchedule>(pb->head_dim);
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const std::optional<Problem> pb = parse_problem(*args->problem);
  if (!pb) return kBadProblem;
  return launch_forward<kDefaultSchedule>(*pb, args->inputs[0], args->inputs[1], args->inputs[2],
                                          args->outputs[0], args->outputs[1],
                                          static_cast<cudaStream_t>(args->stream));
}
