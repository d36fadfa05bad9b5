// Expert solution for sm90/gemm_bias_gelu/bf16-wgmma-tma: C[M,N] = GELU(A[M,K] * B[N,K]^T +
// bias[N]) with bf16 inputs, fp32 accumulation, the epilogue in fp32 and bf16 output (all
// row-major, B K-major). GELU is the tanh form, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
//
// The main loop is the sm90/gemm/bf16-wgmma-tma expert's, unchanged (written for PTXBench from the
// public description of warp-specialized Hopper GEMMs):
// - one CTA per 128x256 output tile, 384 threads = 3 warpgroups;
// - warpgroup 0 is the producer: one thread streams (128x64) A and (256x64) B tiles with TMA
//   (cp.async.bulk.tensor, 128-byte swizzle) into a kStages-deep shared-memory ring; each stage
//   has a `full` mbarrier (TMA transaction bytes) and an `empty` mbarrier (consumer release);
// - warpgroups 1 and 2 are consumers: each owns a 64x256 half of the tile and issues four
//   wgmma.mma_async m64n256k16 per stage, keeping one wgmma group in flight;
// - setmaxnreg moves registers from the producer (40) to the consumers (232);
// - tiles are visited in groups of kGroupM tile rows so that B tiles stay in L2.
// The epilogue is fused into the store: each consumer thread adds bias[col] to its accumulators
// (the two bias values of a column pair are loaded once per 8-column group and reused for both
// rows the thread holds), applies GELU with the hardware tanh (tanh.approx.f32, relative error
// about 2^-11, far inside the task's tolerance) and stores bf16; C is written once.
// Edges: TMA zero-fills out-of-bounds rows and the K tail; the epilogue masks stores and bias
// reads. Requirements checked by ptxb_run: K % 8 == 0 (16-byte row pitch for TMA), 16-byte aligned
// pointers, contiguous row-major tensors, bias a bf16 vector of N.
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

constexpr int kBlockM = 128;
constexpr int kBlockN = 256;
constexpr int kBlockK = 64;  // 64 bf16 = 128 bytes: one row of the 128-byte swizzle pattern
constexpr int kStages = 4;
constexpr int kConsumers = 2;  // consumer warpgroups, each (64, kBlockN)
constexpr int kThreads = 128 * (1 + kConsumers);
constexpr int kGroupM = 16;  // tile rows visited together for L2 reuse of B
constexpr uint32_t kATileBytes = kBlockM * kBlockK * 2;
constexpr uint32_t kBTileBytes = kBlockN * kBlockK * 2;

struct SharedStorage {
  __nv_bfloat16 a[kStages][kBlockM * kBlockK];  // (kBlockM, kBlockK) per stage, swizzled
  __nv_bfloat16 b[kStages][kBlockN * kBlockK];  // (kBlockN, kBlockK) per stage, swizzled
  uint64_t full[kStages];
  uint64_t empty[kStages];
};
// NOTE: +1024 so the kernel can align the dynamic shared-memory base to the swizzle atom.
constexpr size_t kSharedBytes = sizeof(SharedStorage) + 1024;

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
__device__ __forceinline__ TileCoord tile_of_block(int block, int tiles_m, int tiles_n) {
  const int per_group = kGroupM * tiles_n;
  const int group = block / per_group;
  const int first_m = group * kGroupM;
  const int rows_in_group = min(tiles_m - first_m, kGroupM);
  const int in_group = block % per_group;
  return {(first_m + in_group % rows_in_group) * kBlockM, (in_group / rows_in_group) * kBlockN};
}

// GELU, tanh form, with the hardware tanh.
__device__ __forceinline__ float gelu(float x) {
  const float u = 0.7978845608028654f * x * fmaf(0.044715f * x, x, 1.f);
  float t;
  asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(u));
  const float half_x = 0.5f * x;
  return fmaf(half_x, t, half_x);
}

// Writes a consumer's (64, kBlockN) fp32 accumulator tile as bf16 after the epilogue
// (+ bias[col], GELU), masking rows >= M, cols >= N.
__device__ __forceinline__ void store_tile(const float (&d)[kBlockN / 2], const __nv_bfloat16* bias,
                                           __nv_bfloat16* c, int row0, int n0, int M, int N) {
  const int warp = (threadIdx.x / 32) % 4;
  const int lane = threadIdx.x % 32;
  const int row_a = row0 + warp * 16 + lane / 4;
  const bool pair_ok = (N % 2) == 0;  // bf16x2 stores need an even row pitch
#pragma unroll
  for (int i = 0; i < kBlockN / 8; ++i) {
    const int col = n0 + i * 8 + (lane % 4) * 2;
    if (col >= N) continue;
    const float b0 = __bfloat162float(bias[col]);
    const float b1 = col + 1 < N ? __bfloat162float(bias[col + 1]) : 0.f;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = row_a + half * 8;
      if (row >= M) continue;
      const float v0 = gelu(d[i * 4 + half * 2] + b0);
      const float v1 = gelu(d[i * 4 + half * 2 + 1] + b1);
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

__global__ void __launch_bounds__(kThreads, 1)
    gemm_bias_gelu_tma_ws(const __grid_constant__ CUtensorMap map_a,
                          const __grid_constant__ CUtensorMap map_b,
                          const __nv_bfloat16* __restrict__ bias, __nv_bfloat16* c, int M, int N,
                          int K) {
  extern __shared__ uint8_t smem_raw[];
  auto& smem = *reinterpret_cast<SharedStorage*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) &
                                                 ~uintptr_t(1023));

  const int warpgroup = threadIdx.x / 128;
  const int tiles_m = (M + kBlockM - 1) / kBlockM;
  const int tiles_n = (N + kBlockN - 1) / kBlockN;
  const TileCoord tile = tile_of_block(blockIdx.x, tiles_m, tiles_n);
  const int k_blocks = (K + kBlockK - 1) / kBlockK;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&smem.full[s], 1);
      mbar_init(&smem.empty[s], kConsumers * 4);  // lane 0 of every consumer warp
    }
    fence_mbarrier_init();
  }
  __syncthreads();

  if (warpgroup == 0) {
    setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
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
    return;
  }

  setmaxnreg_inc<232>();
  const int consumer = warpgroup - 1;
  const bool lane0 = (threadIdx.x % 32) == 0;
  float d[kBlockN / 2];
#pragma unroll
  for (int i = 0; i < kBlockN / 2; ++i) d[i] = 0.f;

  for (int kb = 0; kb < k_blocks; ++kb) {
    const int s = kb % kStages;
    mbar_wait(&smem.full[s], (kb / kStages) & 1);
    const __nv_bfloat16* a_tile = smem.a[s] + consumer * 64 * kBlockK;  // (64, kBlockK)
    const __nv_bfloat16* b_tile = smem.b[s];                            // (kBlockN, kBlockK)
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < kBlockK / 16; ++k) {
      // NOTE: inside a 128-byte swizzled row, the k-th 16-element slice starts 32*k bytes in;
      // the hardware applies the swizzle to the computed addresses.
      wgmma_m64n256k16(d, wgmma_desc_sw128(a_tile + k * 16, 16, 1024),
                       wgmma_desc_sw128(b_tile + k * 16, 16, 1024), 1);
    }
    wgmma_commit();
    if (kb > 0) {
      wgmma_wait<1>();  // the group that read stage kb-1 is done: hand it back to the producer
      if (lane0) mbar_arrive(&smem.empty[(kb - 1) % kStages]);
    }
  }
  wgmma_wait<0>();
#pragma unroll
  for (int i = 0; i < kBlockN / 2; ++i) asm volatile("" : "+f"(d[i])::"memory");

  store_tile(d, bias, c, tile.m0 + consumer * 64, tile.n0, M, N);
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

bool is_vector(const ptxb_tensor_desc& t, int64_t n) {
  return t.dtype == PTXB_BF16 && t.rank == 1 && t.shape[0] == n && t.strides[0] == 1;
}

enum Status : int { kBadProblem = 1, kNoTensorMap = 2, kLaunchFailed = 3 };

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  (void)problem;
  *workspace_bytes = 0;
  return cudaFuncSetAttribute(gemm_bias_gelu_tma_ws, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              static_cast<int>(kSharedBytes)) == cudaSuccess
             ? PTXB_OK
             : kLaunchFailed;
}

extern "C" int ptxb_run(const ptxb_args* args) {
  const ptxb_problem& p = *args->problem;
  if (p.num_inputs != 3 || p.num_outputs != 1) return kBadProblem;
  const int64_t M = p.inputs[0].shape[0], K = p.inputs[0].shape[1], N = p.inputs[1].shape[0];
  if (!is_row_major_2d(p.inputs[0], M, K) || !is_row_major_2d(p.inputs[1], N, K) ||
      !is_vector(p.inputs[2], N) || !is_row_major_2d(p.outputs[0], M, N) || K % 8 != 0 ||
      M > INT32_MAX || N > INT32_MAX || K > INT32_MAX)
    return kBadProblem;

  CUtensorMap map_a, map_b;
  if (!encode_k_major(&map_a, args->inputs[0], M, K, kBlockM) ||
      !encode_k_major(&map_b, args->inputs[1], N, K, kBlockN))
    return kNoTensorMap;

  const int tiles = static_cast<int>(((M + kBlockM - 1) / kBlockM) * ((N + kBlockN - 1) / kBlockN));
  gemm_bias_gelu_tma_ws<<<tiles, kThreads, kSharedBytes, static_cast<cudaStream_t>(args->stream)>>>(
      map_a, map_b, static_cast<const __nv_bfloat16*>(args->inputs[2]),
      static_cast<__nv_bfloat16*>(args->outputs[0]), static_cast<int>(M), static_cast<int>(N),
      static_cast<int>(K));
  return cudaGetLastError() == cudaSuccess ? PTXB_OK : kLaunchFailed;
}
