// Expert solution for sm100/gemm/bf16-tcgen05: C[M,N] = A[M,K] * B[N,K]^T with bf16 inputs,
// fp32 accumulation in tensor memory and bf16 output (all row-major, B K-major).
//
// STATUS: written for sm_100a (B200), compiled and statically checked only (PTX text, ptxas,
// cuobjdump SASS). It has NEVER RUN: no B200 is available to PTXBench. Treat it as a design
// sketch with the right instructions until a device run confirms it.
//
// Design (written for PTXBench from the PTX ISA's description of tcgen05, no library code):
// - one CTA per 128x256 output tile, 192 threads = 6 warps; 194 KiB of shared memory keeps it
//   at one CTA per SM;
// - warp 4, one lane, is the producer: TMA (cp.async.bulk.tensor, 128-byte swizzle) streams
//   (128, 64) A and (256, 64) B tiles into a kStages-deep shared-memory ring; each stage has a
//   `full` mbarrier (TMA transaction bytes) and an `empty` mbarrier (MMA completion);
// - warp 5 allocates 256 TMEM columns (tcgen05.alloc, then relinquishes the permit) and, from
//   one lane, issues four tcgen05.mma.cta_group::1.kind::f16 (128x256x16, bf16 -> f32) per stage
//   with SM100 shared-memory descriptors; tcgen05.commit arrives on the stage's `empty` barrier
//   when those MMAs have read shared memory, and on `tmem_full` after the last stage;
// - warps 0-3 are the epilogue: warp w may only touch TMEM lanes 32w..32w+31 (= tile rows), so
//   each thread owns one row; it reads 32 fp32 columns at a time with
//   tcgen05.ld.sync.aligned.32x32b.x32 + tcgen05.wait::ld, rounds to bf16 and stores with bounds
//   checks (16-byte vector stores when N % 8 == 0 and the chunk is whole);
// - tiles are visited in groups of kGroupM tile rows so that B tiles stay in L2;
// - edges: TMA zero-fills out-of-bounds rows of A/B and the K tail (the transaction byte count is
//   still the full box), so the MMA needs no masking; the epilogue masks rows >= M, cols >= N.
// Requirements checked by ptxb_run: K % 8 == 0 (16-byte row pitch for TMA), dense row-major.
//
// Unverified (cannot be without a B200): the instruction-descriptor and smem-descriptor bit
// layouts (taken from the PTX ISA tables: M>>4 at bits 24-28, N>>3 at 17-22, descriptor version
// 0b001 at bits 46-48, swizzle code 2 = 128B at 61-63); advancing the descriptor start address by
// 32 bytes per K=16 slice inside a 1024-byte swizzle atom with base offset 0; the TMEM row -> lane
// mapping for M=128 (row i in lane i); the fence placement around thread syncs; that the CTA may
// exit while the last commits' arrivals on `empty` barriers nobody waits for are still pending;
// and, of course, performance: not persistent, so the epilogue does not overlap the next tile's
// main loop, and each thread stores its own row (32 rows per warp store, not coalesced).
// NOTE: a submission is one self-contained file (docs/abi.md): the PTX wrappers below are copies
// of kernels/ptx/ files, kept equal to them by scripts/amalgamate.py.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <ptxbench/abi.h>

#include <cstdint>

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
// ==== begin kernels/ptx/tcgen05.cuh (generated: scripts/amalgamate.py) ====
// Blackwell tcgen05 wrappers (sm_100a, cta_group::1): tensor-memory allocation, the fences that
// order tcgen05 operations around thread synchronisation, the kind::f16 MMA with both operands
// in shared memory, its commit to an mbarrier, and TMEM -> register loads.
// NOTE: compiled and checked statically only: no sm_100a device has run these yet.

// ---- tensor memory management ----
// Warp-wide: writes the TMEM address of kColumns fresh columns to *dst (shared memory).
template <int kColumns>
__device__ __forceinline__ void tmem_alloc(uint32_t* dst) {
  static_assert(kColumns >= 32 && kColumns <= 512 && (kColumns & (kColumns - 1)) == 0);
  asm volatile(
      "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(smem_addr(dst)),
      "n"(kColumns)
      : "memory");
}
__device__ __forceinline__ void tmem_relinquish_alloc_permit() {
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
}
template <int kColumns>
__device__ __forceinline__ void tmem_dealloc(uint32_t taddr) {
  static_assert(kColumns >= 32 && kColumns <= 512 && (kColumns & (kColumns - 1)) == 0);
  asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(taddr), "n"(kColumns)
               : "memory");
}
// Order tcgen05 operations before / after a thread synchronization (barrier, mbarrier wait).
__device__ __forceinline__ void tcgen05_fence_before_sync() {
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
}
__device__ __forceinline__ void tcgen05_fence_after_sync() {
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
}

// ---- MMA ----
// SM100 shared-memory descriptor for a K-major tile stored with the 128-byte swizzle:
// start address >> 4 (bits 0-13), leading byte offset (unused for swizzled K-major, 1),
// stride byte offset 1024 >> 4 (8 rows of 128 bytes, bits 32-45), version 0b001 (bits 46-48),
// base offset 0 (the tile starts on a 1024-byte boundary), swizzle 2 = 128B (bits 61-63).
__device__ __forceinline__ uint64_t tcgen05_desc_sw128(const void* p) {
  uint64_t desc = (smem_addr(p) & 0x3FFFF) >> 4;
  desc |= uint64_t(16 >> 4) << 16;
  desc |= uint64_t(1024 >> 4) << 32;
  desc |= uint64_t(1) << 46;
  desc |= uint64_t(2) << 61;
  return desc;
}

// D[tmem] (+)= A[smem] * B[smem]^T, one MMA of the shape in `idesc`, issued by this thread alone.
// accumulate == 0 overwrites D (first K slice of the tile).
__device__ __forceinline__ void tcgen05_mma_f16_ss(uint32_t d_tmem, uint64_t a_desc,
                                                   uint64_t b_desc, uint32_t idesc,
                                                   uint32_t accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
      "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}\n" ::"r"(d_tmem),
      "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate)
      : "memory");
}

// The mbarrier gets one arrival once every tcgen05 operation this thread issued so far is done.
__device__ __forceinline__ void tcgen05_commit(uint64_t* bar) {
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(
                   smem_addr(bar))
               : "memory");
}

// ---- TMEM -> registers ----
// Warp-wide: lane i reads 32 consecutive 32-bit columns of TMEM lane (taddr.lane + i).
__device__ __forceinline__ void tmem_load_32x32b_x32(uint32_t taddr, uint32_t (&r)[32]) {
  asm volatile(
      "tcgen05.ld.sync.aligned.32x32b.x32.b32 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, [%32];"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]),
        "=r"(r[7]), "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]),
        "=r"(r[14]), "=r"(r[15]), "=r"(r[16]), "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]),
        "=r"(r[21]), "=r"(r[22]), "=r"(r[23]), "=r"(r[24]), "=r"(r[25]), "=r"(r[26]), "=r"(r[27]),
        "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
      : "r"(taddr)
      : "memory");
}
__device__ __forceinline__ void tmem_load_wait() {
  asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
}
// ==== end kernels/ptx/tcgen05.cuh ====

namespace {

constexpr int kBlockM = 128;  // MMA M: one TMEM lane per accumulator row
constexpr int kBlockN = 256;  // MMA N: 256 fp32 TMEM columns
constexpr int kBlockK = 64;   // 64 bf16 = 128 bytes: one row of the 128-byte swizzle pattern
constexpr int kMmaK = 16;     // K of one kind::f16 MMA
constexpr int kStages = 4;
constexpr int kEpilogueWarps = 4;
constexpr int kProducerWarp = 4;
constexpr int kMmaWarp = 5;
constexpr int kThreads = 32 * (kEpilogueWarps + 2);
constexpr int kGroupM = 16;            // tile rows visited together for L2 reuse of B
constexpr int kTmemColumns = kBlockN;  // fp32 accumulator: one column per output column
constexpr int kEpilogueChunk = 32;     // columns per tcgen05.ld.32x32b.x32
constexpr uint32_t kATileBytes = kBlockM * kBlockK * 2;
constexpr uint32_t kBTileBytes = kBlockN * kBlockK * 2;

static_assert(kBlockM == 128 && kBlockN % 16 == 0 && kBlockN >= 16 && kBlockN <= 256,
              "cta_group::1 kind::f16 with M=128 needs N in 16..256, a multiple of 16");
static_assert(kTmemColumns >= 32 && kTmemColumns <= 512 && (kTmemColumns & (kTmemColumns - 1)) == 0,
              "tcgen05.alloc takes a power of two from 32 to 512 columns");
static_assert(kBlockN % kEpilogueChunk == 0, "epilogue reads whole 32-column chunks");
static_assert(kEpilogueWarps == 4, "four warps cover the 128 TMEM lanes, 32 each");

// Instruction descriptor for tcgen05.mma kind::f16 (PTX ISA, "Instruction descriptor"):
// bits 4-5 D type (1 = f32), 7-9 A type (1 = bf16), 10-12 B type (1 = bf16), 15/16 transpose A/B
// (0 = K-major), 17-22 N >> 3, 24-28 M >> 4. Dense, no negation, no saturation.
constexpr uint32_t kInstrDesc = (1u << 4) | (1u << 7) | (1u << 10) |
                                (uint32_t(kBlockN >> 3) << 17) | (uint32_t(kBlockM >> 4) << 24);
static_assert((kBlockN >> 3) < 64 && (kBlockM >> 4) < 32, "descriptor fields overflow");

struct alignas(1024) SharedStorage {
  __nv_bfloat16 a[kStages][kBlockM * kBlockK];  // (kBlockM, kBlockK) per stage, swizzled
  __nv_bfloat16 b[kStages][kBlockN * kBlockK];  // (kBlockN, kBlockK) per stage, swizzled
  uint64_t full[kStages];                       // TMA bytes landed
  uint64_t empty[kStages];                      // MMAs that read the stage are done
  uint64_t tmem_full;                           // the whole accumulator is done
  uint32_t tmem_base;                           // written by tcgen05.alloc
};
// NOTE: +1024 so the kernel can align the dynamic shared-memory base to the swizzle atom.
constexpr size_t kSharedBytes = sizeof(SharedStorage) + 1024;
static_assert(sizeof(__nv_bfloat16) * kBlockM * kBlockK % 1024 == 0, "A stages stay aligned");
static_assert(sizeof(__nv_bfloat16) * kBlockN * kBlockK % 1024 == 0, "B stages stay aligned");

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

__device__ __forceinline__ uint32_t pack_bf16x2(uint32_t lo_bits, uint32_t hi_bits) {
  const __nv_bfloat162 v =
      __floats2bfloat162_rn(__uint_as_float(lo_bits), __uint_as_float(hi_bits));
  return *reinterpret_cast<const uint32_t*>(&v);
}

// Stores one thread's 32 accumulator columns of row `row`, starting at column `col`.
__device__ __forceinline__ void store_chunk(const uint32_t (&r)[32], __nv_bfloat16* c, int row,
                                            int col, int M, int N) {
  if (row >= M) return;
  __nv_bfloat16* dst = c + static_cast<int64_t>(row) * N + col;
  if (N % 8 == 0 && col + kEpilogueChunk <= N) {
    // NOTE: N % 8 == 0 makes every row start 16-byte aligned; col is a multiple of 32.
#pragma unroll
    for (int v = 0; v < kEpilogueChunk / 8; ++v) {
      const uint4 packed = {
          pack_bf16x2(r[8 * v + 0], r[8 * v + 1]), pack_bf16x2(r[8 * v + 2], r[8 * v + 3]),
          pack_bf16x2(r[8 * v + 4], r[8 * v + 5]), pack_bf16x2(r[8 * v + 6], r[8 * v + 7])};
      reinterpret_cast<uint4*>(dst)[v] = packed;
    }
    return;
  }
#pragma unroll
  for (int j = 0; j < kEpilogueChunk; ++j)
    if (col + j < N) dst[j] = __float2bfloat16_rn(__uint_as_float(r[j]));
}

__global__ void __launch_bounds__(kThreads, 1)
    gemm_bf16_tcgen05(const __grid_constant__ CUtensorMap map_a,
                      const __grid_constant__ CUtensorMap map_b, __nv_bfloat16* c, int M, int N,
                      int K) {
  extern __shared__ uint8_t smem_raw[];
  auto& smem = *reinterpret_cast<SharedStorage*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) &
                                                 ~uintptr_t(1023));

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int tiles_m = (M + kBlockM - 1) / kBlockM;
  const int tiles_n = (N + kBlockN - 1) / kBlockN;
  const TileCoord tile = tile_of_block(blockIdx.x, tiles_m, tiles_n);
  const int k_blocks = (K + kBlockK - 1) / kBlockK;  // >= 1: K >= 8

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&smem.full[s], 1);   // the producer's arrive.expect_tx
      mbar_init(&smem.empty[s], 1);  // one tcgen05.commit
    }
    mbar_init(&smem.tmem_full, 1);  // the final tcgen05.commit
    fence_mbarrier_init();
  }
  if (warp == kMmaWarp) {
    tmem_alloc<kTmemColumns>(&smem.tmem_base);
    tmem_relinquish_alloc_permit();  // this CTA allocates nothing else
  }
  // NOTE: the TMEM address written by tcgen05.alloc is published through shared memory; the
  // fence pair orders the allocation with the barrier for every reader.
  tcgen05_fence_before_sync();
  __syncthreads();
  tcgen05_fence_after_sync();
  const uint32_t tmem_d = smem.tmem_base;  // lane 0, first allocated column: (128, kBlockN) fp32

  if (warp == kProducerWarp) {
    if (lane == 0) {
      prefetch_map(&map_a);
      prefetch_map(&map_b);
      for (int kb = 0; kb < k_blocks; ++kb) {
        const int s = kb % kStages;
        // NOTE: a fresh barrier counts as having completed the phase before phase 0, so the
        // first pass over the ring (parity 1) does not wait.
        mbar_wait(&smem.empty[s], ((kb / kStages) & 1) ^ 1);
        mbar_arrive_expect_tx(&smem.full[s], kATileBytes + kBTileBytes);
        tma_load_2d(smem.a[s], &map_a, &smem.full[s], kb * kBlockK, tile.m0);
        tma_load_2d(smem.b[s], &map_b, &smem.full[s], kb * kBlockK, tile.n0);
      }
    }
    __syncwarp();
  } else if (warp == kMmaWarp) {
    if (lane == 0) {
      for (int kb = 0; kb < k_blocks; ++kb) {
        const int s = kb % kStages;
        mbar_wait(&smem.full[s], (kb / kStages) & 1);
        tcgen05_fence_after_sync();
        const __nv_bfloat16* a_tile = smem.a[s];  // (kBlockM, kBlockK)
        const __nv_bfloat16* b_tile = smem.b[s];  // (kBlockN, kBlockK)
#pragma unroll
        for (int k = 0; k < kBlockK / kMmaK; ++k) {
          // NOTE: inside a 128-byte swizzled row, the k-th 16-element slice starts 32*k bytes
          // in; the hardware applies the swizzle to the computed addresses (base offset 0).
          tcgen05_mma_f16_ss(tmem_d, tcgen05_desc_sw128(a_tile + k * kMmaK),
                             tcgen05_desc_sw128(b_tile + k * kMmaK), kInstrDesc, (kb | k) != 0);
        }
        tcgen05_commit(&smem.empty[s]);  // the stage is free once these MMAs have read it
      }
      tcgen05_commit(&smem.tmem_full);  // the accumulator is complete
    }
    __syncwarp();
  } else {
    // Epilogue: warp w owns TMEM lanes (tile rows) 32w .. 32w+31; this thread owns one row.
    mbar_wait(&smem.tmem_full, 0);
    tcgen05_fence_after_sync();
    const int row = tile.m0 + warp * 32 + lane;
    const uint32_t lane_base = tmem_d + (uint32_t(warp * 32) << 16);
#pragma unroll 1
    for (int chunk = 0; chunk < kBlockN / kEpilogueChunk; ++chunk) {
      const int col = tile.n0 + chunk * kEpilogueChunk;
      if (col >= N) break;  // warp-uniform
      uint32_t r[kEpilogueChunk];
      tmem_load_32x32b_x32(lane_base + chunk * kEpilogueChunk, r);
      tmem_load_wait();
      store_chunk(r, c, row, col, M, N);
    }
  }

  // Teardown: every TMEM read is done before the allocating warp frees the columns.
  tcgen05_fence_before_sync();
  __syncthreads();
  if (warp == kMmaWarp) {
    tcgen05_fence_after_sync();
    tmem_dealloc<kTmemColumns>(tmem_d);
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

// A row-major (rows, k) bf16 matrix read in (box_rows, kBlockK) boxes with the 128-byte swizzle.
// Out-of-bounds elements of a box are filled with zeros.
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

bool is_row_major_2d(const ptxb_tensor_desc& t, int64_t rows, int64_t cols) {
  return t.dtype == PTXB_BF16 && t.rank == 2 && t.shape[0] == rows && t.shape[1] == cols &&
         t.strides[0] == cols && t.strides[1] == 1;
}

enum Status : int { kBadProblem = 1, kNoTensorMap = 2, kLaunchFailed = 3 };

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  (void)problem;
  *workspace_bytes = 0;
  return cudaFuncSetAttribute(gemm_bf16_tcgen05, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              static_cast<int>(kSharedBytes)) == cudaSuccess
             ? PTXB_OK
             : kLaunchFailed;
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const ptxb_problem& p = *args->problem;
  if (p.num_inputs != 2 || p.num_outputs != 1) return kBadProblem;
  const int64_t M = p.inputs[0].shape[0], K = p.inputs[0].shape[1], N = p.inputs[1].shape[0];
  if (!is_row_major_2d(p.inputs[0], M, K) || !is_row_major_2d(p.inputs[1], N, K) ||
      !is_row_major_2d(p.outputs[0], M, N) || M < 1 || N < 1 || K < 8 || K % 8 != 0 ||
      M > INT32_MAX || N > INT32_MAX || K > INT32_MAX)
    return kBadProblem;

  CUtensorMap map_a, map_b;
  if (!encode_k_major(&map_a, args->inputs[0], M, K, kBlockM) ||
      !encode_k_major(&map_b, args->inputs[1], N, K, kBlockN))
    return kNoTensorMap;

  const int64_t tiles = ((M + kBlockM - 1) / kBlockM) * ((N + kBlockN - 1) / kBlockN);
  if (tiles > INT32_MAX) return kBadProblem;
  gemm_bf16_tcgen05<<<static_cast<int>(tiles), kThreads, kSharedBytes,
                      static_cast<cudaStream_t>(args->stream)>>>(
      map_a, map_b, static_cast<__nv_bfloat16*>(args->outputs[0]), static_cast<int>(M),
      static_cast<int>(N), static_cast<int>(K));
  return cudaGetLastError() == cudaSuccess ? PTXB_OK : kLaunchFailed;
}
