// The evidence control kernel (one instance of every sm_90a catalog instruction behind a run-time
// flag) and the marker kernel, plus their lazily created device resources.
//
// Control kernel plan (1 CTA, 256 threads; live=true):
//   all:          thread 0 initialises one mbarrier; __syncthreads (the only CTA-wide barrier)
//   warpgroup 1:  one load of every other kind the TMA targets' other-read cap counts (ld.global,
//                 ld.global.nc, cp.async.ca, a texture fetch, a surface read, and in warp 0 an
//                 atomic add with its return value), each thread 16 B of its own buffer per kind;
//                 then setmaxnreg.dec 40, and exits
//   warpgroup 0:  thread 0 arms the mbarrier for kTmaBytes + kBulkBytes and issues the TMA tile
//                 load and the 1-D bulk copy; every thread copies 16 B with cp.async, then each
//                 warp runs ldmatrix and stmatrix over its own 512 B; every thread waits on the
//                 mbarrier (parity 0) and the warpgroup issues two wgmma reading the TMA tile (A)
//                 and the bulk-copied bytes (B), one bf16 (HGMMA) and one e4m3 (QGMMA) over the
//                 same bytes; results go to a private global buffer.
// The PTX wrappers the expert solutions also use come from kernels/ptx/ (the solutions hold
// copies of those files, scripts/amalgamate.py); only the forms no solution uses are written here.
#include <cuda.h>
#include <cudaTypedefs.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "controls/evidence_controls.hpp"
#include "ptx/cp_async.cuh"
#include "ptx/mbarrier.cuh"
#include "ptx/setmaxnreg.cuh"
#include "ptx/tensor_map.cuh"
#include "ptx/tma.cuh"
#include "ptx/wgmma.cuh"

namespace {

constexpr int kControlThreads = 256;  // 2 warpgroups
constexpr int kWarpgroupThreads = 128;
constexpr int kReleasedRegisters = 40;  // warpgroup 1's register count after setmaxnreg.dec

constexpr int kTileRows = 64;  // TMA box and wgmma A: (kTileRows, kTileCols) bf16
constexpr int kTileCols = 16;
constexpr uint32_t kTmaBytes = kTileRows * kTileCols * 2;  // 2048
constexpr uint32_t kBulkBytes = 512;  // holds wgmma B, (8, 16) bf16 = 256 B, with slack
static_assert(kTmaBytes + kBulkBytes == ptxb::kEvidenceControlTmaLoadBytes,
              "the header states the control's TMA load bytes");
constexpr int kStagedElems = kWarpgroupThreads * 8;      // 16 B of bf16 per warpgroup-0 thread
constexpr int kWarpFragmentElems = 32 * 8;               // one ldmatrix.x4: 32 rows of 16 B
constexpr int kOtherReadBytes = kWarpgroupThreads * 16;  // per kind: 16 B per warpgroup-1 thread
constexpr int kAtomicLanes = 32;                         // one warp, one 4 B word per lane

constexpr int kWgmmaM = 64, kWgmmaN = 8;
constexpr int kWgmmaKBf16 = 16, kWgmmaKE4m3 = 32;  // both read (64, 32 B) of A and (8, 32 B) of B

constexpr uint16_t kBf16One = 0x3F80;

// Device-global buffers of the control kernel, one allocation. Sources are filled with bf16 1.0
// once at setup; the sinks only exist so that no result is dead.
struct ControlGlobals {
  alignas(128) uint16_t tma_source[kTileRows * kTileCols];  // (kTileRows, kTileCols) row-major
  alignas(128) uint16_t bulk_source[kBulkBytes / 2];
  alignas(128) uint16_t async_copy_source[kStagedElems];
  alignas(128) float wgmma_sums[kWarpgroupThreads];
  alignas(128) uint32_t fragment_mix[kWarpgroupThreads];
  // Warpgroup 1's sources (the texture and the surface have their own allocations).
  alignas(128) uint4 plain_source[kWarpgroupThreads];
  alignas(128) uint4 non_coherent_source[kWarpgroupThreads];
  alignas(128) uint4 cached_copy_source[kWarpgroupThreads];
  alignas(128) uint32_t atomic_words[kAtomicLanes];
  alignas(128) uint32_t other_read_mix[kWarpgroupThreads];
};

// Shared memory of the control kernel. Async-proxy buffers (TMA, bulk, wgmma operands) and
// generic-proxy buffers (cp.async, ldmatrix, stmatrix) never overlap, so no proxy fence is
// needed between data writes and reads; the mbarrier is the only shared object of both.
struct alignas(1024) ControlShared {
  uint16_t tma_tile[kTileRows * kTileCols];  // (64, 16) written by TMA; wgmma A operand
  uint16_t bulk_tile[kBulkBytes / 2];        // written by the bulk copy; wgmma B operand
  uint16_t staged[kStagedElems];             // written by cp.async, read by ldmatrix
  uint16_t stored[kStagedElems];             // written by stmatrix, read back
  uint4 cached_copies[kWarpgroupThreads];    // written by warpgroup 1's cp.async.ca
  uint64_t bar;                              // completes on TMA + bulk transaction bytes
};
static_assert(offsetof(ControlShared, tma_tile) % 128 == 0, "TMA destination alignment");
static_assert(offsetof(ControlShared, bulk_tile) % 128 == 0, "bulk destination alignment");
static_assert(offsetof(ControlShared, staged) % 16 == 0, "cp.async / ldmatrix alignment");
static_assert(offsetof(ControlShared, stored) % 16 == 0, "stmatrix alignment");
static_assert(offsetof(ControlShared, cached_copies) % 16 == 0, "cp.async alignment");
static_assert(offsetof(ControlShared, bar) % 8 == 0, "mbarrier alignment");
static_assert(sizeof(ControlGlobals::plain_source) == kOtherReadBytes &&
                  sizeof(ControlGlobals::non_coherent_source) == kOtherReadBytes &&
                  sizeof(ControlGlobals::cached_copy_source) == kOtherReadBytes,
              "each kind of other read loads kOtherReadBytes");
static_assert(offsetof(ControlGlobals, bulk_source) % 16 == 0 && kBulkBytes % 16 == 0,
              "bulk copy needs 16 B aligned addresses and a 16 B multiple size");
static_assert(kTileCols * 2 % 16 == 0, "TMA row pitch and box row must be 16 B multiples");
static_assert((kWarpgroupThreads / 32) * kWarpFragmentElems == kStagedElems,
              "each warp of warpgroup 0 owns one ldmatrix.x4 fragment of the staged buffer");

// ---- PTX wrappers of the controls alone (the shared ones are kernels/ptx/) ----

// Lane i supplies the address of row i % 8 of matrix i / 8 (16 B aligned).
__device__ __forceinline__ uint4 ldmatrix_x4(const void* row) {
  uint4 r;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
               : "r"(smem_addr(row))
               : "memory");
  return r;
}
__device__ __forceinline__ void stmatrix_x4(void* row, uint4 v) {
  asm volatile(
      "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(smem_addr(row)),
      "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
      : "memory");
}

// A plain and a non-coherent (read-only path) 16 B global load, pinned in PTX so that the compiler
// can neither merge them nor turn one into the other.
__device__ __forceinline__ uint4 ld_global_16(const uint4* p) {
  uint4 r;
  asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
               : "l"(p)
               : "memory");
  return r;
}
__device__ __forceinline__ uint4 ld_global_nc_16(const uint4* p) {
  uint4 r;
  asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
               : "l"(p)
               : "memory");
  return r;
}
// cp.async through L1 (.ca; kernels/ptx/cp_async.cuh has the .cg form that bypasses it).
__device__ __forceinline__ void cp_async_ca_16(void* dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(smem_addr(dst)), "l"(src)
               : "memory");
}

// Descriptor of a K-major, unswizzled operand: 8x16 B core matrices, 128 B apart along K
// (leading byte offset) and 256 B apart along M/N (stride byte offset). The (64, 16) A tile thus
// spans exactly 2048 B and the (8, 16) B tile 256 B, whichever offset the hardware applies to
// which dimension (at most 1280 B / 384 B when swapped): every read stays inside its buffer.
__device__ __forceinline__ uint64_t unswizzled_descriptor(const void* p) {
  return wgmma_desc_interleaved(p, 128, 256);
}
// d = A * B (scale_d = 0: the old accumulator is ignored); (64, 8) f32, 4 values per thread.
__device__ __forceinline__ void wgmma_m64n8k16_bf16(float (&d)[4], uint64_t desc_a,
                                                    uint64_t desc_b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, "
      "0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(desc_a), "l"(desc_b), "r"(0));
}

// The same operands read as E4M3: m64n8k32, (64, 32) and (8, 32) bytes, the bf16 form's bytes.
__device__ __forceinline__ void wgmma_m64n8k32_e4m3(float (&d)[4], uint64_t desc_a,
                                                    uint64_t desc_b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%0, %1, %2, %3}, %4, %5, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(desc_a), "l"(desc_b), "r"(0));
}

// ---- warpgroup 0's work ----

// Thread 0 of the CTA: arms the barrier for both copies, then issues them.
__device__ __forceinline__ void issue_bulk_copies(ControlShared& smem, const CUtensorMap* map,
                                                  const ControlGlobals* globals) {
  mbar_arrive_expect_tx(&smem.bar, kTmaBytes + kBulkBytes);
  tma_load_2d(smem.tma_tile, map, &smem.bar, 0, 0);
  bulk_load(smem.bulk_tile, globals->bulk_source, kBulkBytes, &smem.bar);
}

// One warp: cp.async 16 B per lane, ldmatrix over the warp's own 512 B, stmatrix them to a second
// buffer and read its own row back. Returns a mix of everything it saw.
__device__ __forceinline__ uint32_t exercise_warp_copies(ControlShared& smem,
                                                         const ControlGlobals* globals,
                                                         unsigned thread) {
  const int offset = static_cast<int>(thread) * 8;  // this lane's 16 B == its ldmatrix row
  cp_async_16(&smem.staged[offset], &globals->async_copy_source[offset], 16);
  cp_async_commit();
  cp_async_wait<0>();
  __syncwarp();  // every lane's cp.async bytes of this warp's fragment are now visible
  const uint4 fragments = ldmatrix_x4(&smem.staged[offset]);
  stmatrix_x4(&smem.stored[offset], fragments);
  __syncwarp();  // stmatrix wrote rows from other lanes' registers
  const uint4 row = *reinterpret_cast<const uint4*>(&smem.stored[offset]);
  return fragments.x ^ fragments.y ^ fragments.z ^ fragments.w ^ row.x ^ row.y ^ row.z ^ row.w;
}

// ---- warpgroup 1's work ----

// One thread of warpgroup 1 (`lane128` in [0, 128)): 16 B of its own by each kind of load the
// other-read metrics count, all distinct bytes (one pass, so every one comes from L2). Returns a
// mix of everything it read.
__device__ __forceinline__ uint32_t read_other_ways(ControlShared& smem, ControlGlobals* globals,
                                                    cudaTextureObject_t texture,
                                                    cudaSurfaceObject_t surface, unsigned lane128) {
  cp_async_ca_16(&smem.cached_copies[lane128], &globals->cached_copy_source[lane128]);
  cp_async_commit();
  const uint4 plain = ld_global_16(&globals->plain_source[lane128]);
  const uint4 non_coherent = ld_global_nc_16(&globals->non_coherent_source[lane128]);
  const uint4 fetched = tex1Dfetch<uint4>(texture, static_cast<int>(lane128));
  const uint4 surfaced = surf1Dread<uint4>(surface, static_cast<int>(lane128 * sizeof(uint4)));
  uint32_t mix = 0;
  for (const uint4& v : {plain, non_coherent, fetched, surfaced}) mix ^= v.x ^ v.y ^ v.z ^ v.w;
  if (lane128 < kAtomicLanes) mix ^= atomicAdd(&globals->atomic_words[lane128], 1u);
  cp_async_wait<0>();
  const uint4 copied = smem.cached_copies[lane128];  // this thread's own cp.async bytes
  return mix ^ copied.x ^ copied.y ^ copied.z ^ copied.w;
}

// The whole warpgroup, after the copies have landed: one bf16 and one e4m3 wgmma, A from the TMA
// tile, B from the bulk-copied bytes (async proxy wrote both, async proxy reads both: no proxy
// fence needed). Values are whatever the bytes mean; only that they run matters.
__device__ __forceinline__ float run_wgmmas(const ControlShared& smem) {
  float d[4] = {0.f, 0.f, 0.f, 0.f}, e[4] = {0.f, 0.f, 0.f, 0.f};
  fence_regs(d);
  fence_regs(e);
  wgmma_fence();
  const uint64_t a = unswizzled_descriptor(smem.tma_tile),
                 b = unswizzled_descriptor(smem.bulk_tile);
  wgmma_m64n8k16_bf16(d, a, b);
  wgmma_m64n8k32_e4m3(e, a, b);
  wgmma_commit();
  wgmma_wait<0>();
  fence_regs(d);
  fence_regs(e);
  return d[0] + d[1] + d[2] + d[3] + e[0] + e[1] + e[2] + e[3];
}

}  // namespace

// `live` is a run-time kernel argument: the compiler cannot resolve it, so live=0 runs the same
// SASS and skips every catalog instruction through the first branch.
extern "C" __global__ void __launch_bounds__(kControlThreads, 1)
    ptxb_evidence_control(const __grid_constant__ CUtensorMap tma_map, ControlGlobals* globals,
                          cudaTextureObject_t texture, cudaSurfaceObject_t surface, int live) {
  __shared__ ControlShared smem;
  const unsigned thread = threadIdx.x;
  if (!live) {
    if (thread == 0) globals->wgmma_sums[0] = 0.f;
    return;
  }

  if (thread == 0) {
    mbar_init(&smem.bar, 1);  // one arrival: thread 0's arrive.expect_tx
    fence_mbarrier_init();
    fence_proxy_async_shared();  // TMA and the bulk copy signal the barrier
  }
  __syncthreads();  // NOTE: the last CTA-wide barrier; warpgroup 1 leaves right after it

  if (thread >= kWarpgroupThreads) {
    const unsigned lane128 = thread - kWarpgroupThreads;
    globals->other_read_mix[lane128] = read_other_ways(smem, globals, texture, surface, lane128);
    __syncwarp();                          // reconverge after the atomic of warp 0's lanes
    setmaxnreg_dec<kReleasedRegisters>();  // all 128 threads of warpgroup 1, converged
    return;
  }

  if (thread == 0) issue_bulk_copies(smem, &tma_map, globals);
  const uint32_t mix = exercise_warp_copies(smem, globals, thread);
  mbar_wait(&smem.bar, 0);  // the barrier's first phase: TMA and bulk bytes landed
  __syncwarp();             // reconverge before the .aligned wgmma instructions
  const float sum = run_wgmmas(smem);
  globals->wgmma_sums[thread] = sum;
  globals->fragment_mix[thread] = mix;
}

// Exactly one store in the whole grid; the grid size (the nonce) is what ncu reports.
extern "C" __global__ void ptxb_evidence_marker(unsigned* sink) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *sink = gridDim.x;
}

namespace {

struct ControlResources {
  ControlGlobals* globals = nullptr;
  CUtensorMap tma_map{};
  cudaTextureObject_t texture = 0;  // kOtherReadBytes of linear memory, read as uint4
  cudaSurfaceObject_t surface = 0;  // a 1-D array of kWarpgroupThreads uint4
  cudaError_t error = cudaSuccess;
};

// The (kTileRows, kTileCols) bf16 tma_source as a single (kTileCols, kTileRows) box: no swizzle,
// no interleave, so the TMA delivers exactly kTmaBytes.
cudaError_t encode_tile_map(CUtensorMap* map, const void* tma_source) {
  const auto encode = tensor_map_encoder();
  if (encode == nullptr) return cudaErrorSymbolNotFound;
  const cuuint64_t dims[2] = {kTileCols, kTileRows};
  const cuuint64_t strides[1] = {kTileCols * 2};  // bytes between rows
  const cuuint32_t box[2] = {kTileCols, kTileRows};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r =
      encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<void*>(tma_source), dims, strides,
             box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
             CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

// A texture over kOtherReadBytes of its own device memory (zeros).
cudaError_t make_texture(cudaTextureObject_t* texture) {
  void* bytes = nullptr;
  cudaError_t err = cudaMalloc(&bytes, kOtherReadBytes);
  if (err == cudaSuccess) err = cudaMemset(bytes, 0, kOtherReadBytes);
  if (err != cudaSuccess) return err;
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeLinear;
  resource.res.linear.devPtr = bytes;
  resource.res.linear.desc = cudaCreateChannelDesc<uint4>();
  resource.res.linear.sizeInBytes = kOtherReadBytes;
  cudaTextureDesc view{};
  view.readMode = cudaReadModeElementType;
  return cudaCreateTextureObject(texture, &resource, &view, nullptr);
}

// A surface over a 1-D array of kWarpgroupThreads uint4 (zeros).
cudaError_t make_surface(cudaSurfaceObject_t* surface) {
  const cudaChannelFormatDesc element = cudaCreateChannelDesc<uint4>();
  cudaArray_t array = nullptr;
  cudaError_t err =
      cudaMallocArray(&array, &element, kWarpgroupThreads, 0, cudaArraySurfaceLoadStore);
  if (err != cudaSuccess) return err;
  static const uint4 zeros[kWarpgroupThreads] = {};
  err = cudaMemcpy2DToArray(array, 0, 0, zeros, kOtherReadBytes, kOtherReadBytes, 1,
                            cudaMemcpyHostToDevice);
  if (err != cudaSuccess) return err;
  cudaResourceDesc resource{};
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = array;
  return cudaCreateSurfaceObject(surface, &resource);
}

ControlResources make_control_resources() {
  ControlResources res;
  void* raw = nullptr;
  res.error = cudaMalloc(&raw, sizeof(ControlGlobals));
  if (res.error != cudaSuccess) return res;

  ControlGlobals init{};
  for (uint16_t& x : init.tma_source) x = kBf16One;
  for (uint16_t& x : init.bulk_source) x = kBf16One;
  for (uint16_t& x : init.async_copy_source) x = kBf16One;
  res.error = cudaMemcpy(raw, &init, sizeof(init), cudaMemcpyHostToDevice);
  if (res.error == cudaSuccess) {
    // NOTE: the device address is formed by offset, not by member access through a pointer that
    // does not point to a host object.
    const char* tma_source = static_cast<const char*>(raw) + offsetof(ControlGlobals, tma_source);
    res.error = encode_tile_map(&res.tma_map, tma_source);
  }
  if (res.error == cudaSuccess) res.error = make_texture(&res.texture);
  if (res.error == cudaSuccess) res.error = make_surface(&res.surface);
  if (res.error != cudaSuccess) {
    cudaFree(raw);
    return res;
  }
  res.globals = static_cast<ControlGlobals*>(raw);
  return res;
}

// NOTE: process-lifetime resources are deliberately never freed: static destructors may run
// after the CUDA runtime has torn the context down. A setup failure is kept and reported by
// every later call.
const ControlResources& control_resources() {
  static const ControlResources resources = make_control_resources();
  return resources;
}

struct MarkerResources {
  unsigned* sink = nullptr;
  cudaError_t error = cudaSuccess;
};

const MarkerResources& marker_resources() {
  static const MarkerResources resources = [] {
    MarkerResources res;
    res.error = cudaMalloc(&res.sink, sizeof(unsigned));
    return res;
  }();
  return resources;
}

}  // namespace

namespace ptxb {

cudaError_t launch_evidence_control(bool live, cudaStream_t stream) {
  const ControlResources& res = control_resources();
  if (res.error != cudaSuccess) return res.error;
  // NOTE: cudaLaunchKernel reports this launch's own error, where <<<>>> + cudaGetLastError
  // could return an earlier, unrelated one. The argument order matches the kernel's parameters.
  CUtensorMap map = res.tma_map;
  ControlGlobals* globals = res.globals;
  cudaTextureObject_t texture = res.texture;
  cudaSurfaceObject_t surface = res.surface;
  int live_flag = live ? 1 : 0;
  void* args[] = {&map, &globals, &texture, &surface, &live_flag};
  return cudaLaunchKernel(reinterpret_cast<const void*>(&ptxb_evidence_control), dim3(1),
                          dim3(kControlThreads), args, 0, stream);
}

cudaError_t launch_evidence_marker(unsigned nonce, cudaStream_t stream) {
  if (nonce < 1 || nonce > 65535) return cudaErrorInvalidValue;
  const MarkerResources& res = marker_resources();
  if (res.error != cudaSuccess) return res.error;
  unsigned* sink = res.sink;
  void* args[] = {&sink};
  return cudaLaunchKernel(reinterpret_cast<const void*>(&ptxb_evidence_marker), dim3(nonce),
                          dim3(32), args, 0, stream);
}

std::map<std::string, double> evidence_control_mma_flops() {
  return {{"HGMMA", 2.0 * kWgmmaM * kWgmmaN * kWgmmaKBf16},
          {"QGMMA", 2.0 * kWgmmaM * kWgmmaN * kWgmmaKE4m3}};
}

}  // namespace ptxb
