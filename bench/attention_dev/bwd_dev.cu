// Development harness for the expert attention backward kernel
// (kernels/reference/sm90_attention_bwd_bf16.cu, #included here so that its building blocks can be
// tested one by one). One run on the H200 reports:
//   (a) probes of the building blocks where a layout mistake is likely: wgmma with K-major and
//       MN-major (transpose-B) shared-memory operands loaded by 3-D TMA with the 128-byte swizzle,
//       and the register-A path fed from an accumulator fragment; exact small-integer data, so any
//       layout error shows as a mismatch, and a probe whose TMA never lands reports a timeout;
//   (b) the full kernel against the fp32 GPU reference (src/verify/gpu_reference_attention.cu) on
//       a list of shapes, each kernel launched alone with a stream synchronize and error check,
//       then once more through the ABI entry point (the two runs must agree bit for bit);
//   (c) timing of the large shapes (median of 20 event-timed calls, 256 MiB L2 scrub in between).
// Every test runs in its own child process with a deadline, so a crash, a sticky CUDA error or a
// hang fails that test only; the parent never touches CUDA. Usage:
//   bwd_dev [--quick (no S >= 4096)] [--no-timing] [--ref-budget SECONDS] [--only SUBSTRING]
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

// NOTE: bwd_dev.sh sets PTXB_BWD_SOURCE to a variant of the expert (PTXB_BWD_KERNEL).
#ifndef PTXB_BWD_SOURCE
#define PTXB_BWD_SOURCE "../../kernels/reference/sm90_attention_bwd_bf16.cu"
#endif
#include PTXB_BWD_SOURCE
#include "verify/gpu_verify.hpp"

namespace dev {

#define PTXB_DEV_CHECK(call)                                                                     \
  do {                                                                                           \
    const cudaError_t dev_err_ = (call);                                                         \
    if (dev_err_ != cudaSuccess)                                                                 \
      throw std::runtime_error(std::string(#call) + " -> " + cudaGetErrorName(dev_err_) + ": " + \
                               cudaGetErrorString(dev_err_));                                    \
  } while (0)

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, f);
  vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

// Owns one device allocation.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    PTXB_DEV_CHECK(cudaMalloc(&ptr_, std::max<size_t>(bytes, 256)));
  }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <class T = void>
  T* get() const {
    return static_cast<T*>(ptr_);
  }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

float bf16_bits_to_float(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t float_to_bf16_bits(float f) {  // round to nearest even; inputs here are finite
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}

template <class T>
std::vector<T> to_host(const void* src, size_t count) {
  std::vector<T> out(count);
  PTXB_DEV_CHECK(cudaMemcpy(out.data(), src, count * sizeof(T), cudaMemcpyDeviceToHost));
  return out;
}

// Synchronizes `stream` and throws, naming `what`, if a launch or the execution failed. With
// `log`, prints a progress line first, so that a hang shows which step never finished.
void sync_check(cudaStream_t stream, const char* what, bool log = false) {
  if (log) {
    std::printf("    running: %s ...", what);
    std::fflush(stdout);
  }
  const auto start = std::chrono::steady_clock::now();
  const cudaError_t launch = cudaGetLastError();
  const cudaError_t done = cudaStreamSynchronize(stream);
  if (launch != cudaSuccess || done != cudaSuccess) {
    const cudaError_t e = launch != cudaSuccess ? launch : done;
    if (log) std::printf(" FAILED\n");
    throw std::runtime_error(fmt("%s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e)));
  }
  if (log)
    std::printf(" ok (%.1f ms)\n",
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                    .count());
}

// ---- generators ----
__device__ uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
// normal(0, sigma) bf16 from a counter-based generator keyed by (seed, index).
__global__ void fill_normal_bf16(bf16* x, int64_t n, uint64_t seed, float sigma) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const uint64_t r = splitmix64(seed * 0x100000001B3ull ^ static_cast<uint64_t>(i));
    const float u1 = (static_cast<float>(r >> 40) + 1.f) * (1.f / 16777217.f);
    const float u2 = static_cast<float>((r >> 16) & 0xFFFFFF) * (1.f / 16777216.f);
    x[i] = __float2bfloat16_rn(sigma * sqrtf(-2.f * logf(u1)) * cospif(2.f * u2));
  }
}
__global__ void fill_f32(float* x, int64_t n, float value) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x)
    x[i] = value;
}
// dst_bf16 = round(src); back = float(dst_bf16): the O the kernel sees, for the reference.
__global__ void round_to_bf16(const float* src, bf16* dst, float* back, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    dst[i] = __float2bfloat16_rn(src[i]);
    back[i] = __bfloat162float(dst[i]);
  }
}
constexpr int kFillBlocks = 1024;

// ---- (a) building-block probes ----
// One warpgroup computes C (64 x kN) = A (64 x kK) B (kK x kN) with kK / 16 wgmma k-steps.
// A: TMA tile [64][kK] (K-major) or, with kRegA, registers filled as an m64nK accumulator
// fragment and packed by to_a_frags. B: TMA tile stored [kN][kK] (K-major, kTransB = 0) or
// [kK][kN] (MN-major, kTransB = 1; `swap` exchanges LBO and SBO as a diagnostic). kTransA: A
// stored [kK][64] (MN-major, as k1's dS^T rows for the fused dQ; n128 with MN-major B only).
template <int kN, int kK, bool kRegA, int kTransB, bool kTransA = false>
__global__ void __launch_bounds__(128)
    wgmma_probe(const __grid_constant__ CUtensorMap map_a,
                const __grid_constant__ CUtensorMap map_b, const float* a_values, float* c,
                int swap, int* status) {
  extern __shared__ uint8_t raw[];
  uint8_t* base = align_1024(raw);
  bf16* sa = reinterpret_cast<bf16*>(base);                // (64, kK) as kK/64 blocks
  bf16* sb = reinterpret_cast<bf16*>(base + 64 * kK * 2);  // (kN, kK) or (kK, kN) blocks
  uint64_t* bar = reinterpret_cast<uint64_t*>(base + 64 * kK * 2 + kN * kK * 2);
  const int t = threadIdx.x;
  if (t == 0) {
    mbar_init(bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (t == 0) {
    mbar_arrive_expect_tx(bar, (kRegA ? 0 : 64 * kK * 2) + kN * kK * 2);
    if (kTransA)
      tma_load_3d(sa, &map_a, bar, 0, 0, 0);  // (kK, 64): one block of kK rows
    else if (!kRegA)
      for (int cb = 0; cb < kK / 64; ++cb)
        tma_load_3d(sa + cb * 64 * 64, &map_a, bar, cb * 64, 0, 0);
    if (kTransB)
      for (int cb = 0; cb < kN / 64; ++cb)
        tma_load_3d(sb + cb * kK * 64, &map_b, bar, cb * 64, 0, 0);
    else
      for (int cb = 0; cb < kK / 64; ++cb)
        tma_load_3d(sb + cb * kN * 64, &map_b, bar, cb * 64, 0, 0);
  }
  const long long start = clock64();
  while (!mbar_try_wait(smem_addr(bar), 0)) {
    if (clock64() - start > 4000000000ll) {  // ~2 s: the TMA never completed
      if (t == 0) atomicExch(status, 1);
      return;
    }
  }
  auto desc_b = [&](int kk) {
    if constexpr (!kTransB) return desc_k(sb, kN, kk);
    return swap ? wgmma_desc_sw128(sb + kk * 16 * 64, 1024, kK * 128) : desc_mn(sb, kK, kk);
  };
  float d[kN / 2];
#pragma unroll
  for (int i = 0; i < kN / 2; ++i) d[i] = 0.f;
  if constexpr (kRegA) {
    float acc[kK / 2];  // A as the fragment of an m64nK accumulator
#pragma unroll
    for (int e = 0; e < kK / 2; ++e) acc[e] = a_values[acc_row(e, t) * kK + acc_col(e, t)];
    uint32_t a[kK / 16][4];
    to_a_frags(acc, a);
    wgmma_fence();
    fence_regs(d);
#pragma unroll
    for (int kk = 0; kk < kK / 16; ++kk) wgmma_rs<kTransB>(d, a[kk], desc_b(kk), 1);
  } else if constexpr (kTransA) {
    static_assert(kN == 128 && kTransB == 1, "wgmma_ss_mn is m64n128k16 with both MN-major");
    wgmma_fence();
    fence_regs(d);
#pragma unroll
    for (int kk = 0; kk < kK / 16; ++kk) wgmma_ss_mn(d, desc_mn(sa, kK, kk), desc_b(kk), 1);
  } else {
    wgmma_fence();
    fence_regs(d);
#pragma unroll
    for (int kk = 0; kk < kK / 16; ++kk) wgmma_ss<kTransB>(d, desc_k(sa, 64, kk), desc_b(kk), 1);
  }
  wgmma_commit();
  wgmma_wait<0>();
  fence_regs(d);
#pragma unroll
  for (int e = 0; e < kN / 2; ++e) c[acc_row(e, t) * kN + acc_col(e, t)] = d[e];
}

// Small integers in [-3, 3]: exact in bf16 and in fp32 sums of products.
std::vector<float> small_ints(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t x = seed * 2654435761u + 12345u;
  for (auto& e : v) {
    x = x * 1664525u + 1013904223u;
    e = static_cast<float>(static_cast<int>((x >> 24) % 7) - 3);
  }
  return v;
}

template <int kN, int kK, bool kRegA, int kTransB, bool kTransA = false>
std::string run_probe(bool swap) {
  const size_t a_count = 64 * kK, b_count = size_t(kN) * kK;
  const std::vector<float> a = small_ints(a_count, 1), b = small_ints(b_count, 2);
  std::vector<uint16_t> a16(a_count), b16(b_count);
  // a[m * kK + k] is A(m, k); stored [k][m] when kTransA
  for (size_t i = 0; i < a_count; ++i)
    a16[kTransA ? (i % kK) * 64 + i / kK : i] = float_to_bf16_bits(a[i]);
  for (size_t i = 0; i < b_count; ++i) b16[i] = float_to_bf16_bits(b[i]);
  DeviceBuffer da(a_count * 2), db(b_count * 2), dav(a_count * 4), dc(64 * kN * 4), dst(4);
  PTXB_DEV_CHECK(cudaMemcpy(da.get(), a16.data(), a_count * 2, cudaMemcpyHostToDevice));
  PTXB_DEV_CHECK(cudaMemcpy(db.get(), b16.data(), b_count * 2, cudaMemcpyHostToDevice));
  PTXB_DEV_CHECK(cudaMemcpy(dav.get(), a.data(), a_count * 4, cudaMemcpyHostToDevice));
  PTXB_DEV_CHECK(cudaMemset(dc.get(), 0xFF, 64 * kN * 4));
  PTXB_DEV_CHECK(cudaMemset(dst.get(), 0, 4));
  CUtensorMap map_a, map_b;
  // B is [kN][kK] (K-major) or [kK][kN] (MN-major); boxes cover the whole matrix.
  if (!(kTransA ? encode_3d(&map_a, da.get(), 1, kK, 64, kK)
                : encode_3d(&map_a, da.get(), 1, 64, kK, 64)) ||
      !(kTransB ? encode_3d(&map_b, db.get(), 1, kK, kN, kK)
                : encode_3d(&map_b, db.get(), 1, kN, kK, kN)))
    return "FAIL cuTensorMapEncodeTiled failed";
  auto kernel = wgmma_probe<kN, kK, kRegA, kTransB, kTransA>;
  const int smem = 64 * kK * 2 + kN * kK * 2 + 8 + 1024;
  PTXB_DEV_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  kernel<<<1, 128, smem>>>(map_a, map_b, dav.get<float>(), dc.get<float>(), swap ? 1 : 0,
                           dst.get<int>());
  sync_check(nullptr, "wgmma_probe");
  if (to_host<int>(dst.get(), 1)[0] != 0)
    return "FAIL TMA wait timed out (mbarrier never completed)";
  const std::vector<float> c = to_host<float>(dc.get(), 64 * kN);
  int bad = 0, first_m = -1, first_n = -1;
  double max_err = 0, got0 = 0, want0 = 0;
  for (int m = 0; m < 64; ++m)
    for (int n = 0; n < kN; ++n) {
      double want = 0;
      for (int k = 0; k < kK; ++k)
        want += double(a[m * kK + k]) * (kTransB ? b[size_t(k) * kN + n] : b[size_t(n) * kK + k]);
      const double err = std::fabs(c[m * kN + n] - want);
      if (!(err == 0)) {
        if (bad++ == 0) first_m = m, first_n = n, got0 = c[m * kN + n], want0 = want;
        max_err = std::isnan(err) ? INFINITY : std::max(max_err, err);
      }
    }
  if (bad == 0) return "PASS exact";
  return fmt("FAIL %d/%d wrong, max err %.3g, first (%d,%d) got %g want %g", bad, 64 * kN, max_err,
             first_m, first_n, got0, want0);
}

// ---- (b) full problem ----
struct Shape {
  int b, h, s, d;
  bool causal, timed;
  bool f32_out = false;
  float sigma = 1.f;  // Q, K, V, dO ~ normal(0, sigma); the task's "peaked" draws use 2
  int hkv = 0;        // key/value heads (grouped-query attention; 0: h)
  int kv_heads() const { return hkv > 0 ? hkv : h; }
  int group() const { return h / kv_heads(); }
  std::string name() const {
    return fmt("B%d H%d%s S%d D%d %s%s%s", b, h, hkv > 0 ? fmt(" HKV%d", hkv).c_str() : "", s, d,
               causal ? "causal" : "full", f32_out ? " f32out" : "",
               sigma != 1.f ? fmt(" sigma%g", sigma).c_str() : "");
  }
  double units() const { return double(s) * s * d; }  // reference work per head
  double flops() const { return 2.5 * 4.0 * b * h * double(s) * s * d * (causal ? 0.5 : 1.0); }
};

struct Stats {
  double max_err = 0, max_ref = 0, err2 = 0, ref2 = 0;
  int64_t nan = 0, count = 0;
  // Where the large errors are (|err| > 5% of the range's max |ref|, or not finite): their count
  // by (row % 128 < 64 ? warpgroup 0 : 1) x (column < 64 ? block 0 : 1), and the first one.
  int64_t bad = 0, buckets[2][2] = {};
  std::string first_bad;
  // The task's element rule (tasks/sm90/attention/bwd-bf16): |err| <= 2^-5 (rms(ref) + |ref|).
  int64_t task_off = 0;
  void add(double got, double want) {
    ++count;
    if (!std::isfinite(got)) {
      ++nan;
      return;
    }
    max_err = std::max(max_err, std::fabs(got - want));
    max_ref = std::max(max_ref, std::fabs(want));
    err2 += (got - want) * (got - want);
    ref2 += want * want;
  }
  // Adds a (heads, seq, dim) block whose first head has flat index head0.
  void add_block(const std::vector<float>& got, const std::vector<float>& want, int64_t head0,
                 int64_t seq, int64_t dim) {
    double block_max = 0, sum2 = 0;
    for (float w : want)
      block_max = std::max<double>(block_max, std::fabs(w)), sum2 += double(w) * w;
    const double rms = std::sqrt(sum2 / std::max<size_t>(want.size(), 1));
    for (size_t i = 0; i < got.size(); ++i) {
      add(got[i], want[i]);
      const double err = std::fabs(double(got[i]) - want[i]);
      task_off += !(err <= 0.03125 * (rms + std::fabs(want[i])));
      if (std::isfinite(err) && err <= 0.05 * block_max) continue;
      const int64_t col = i % dim, row = (i / dim) % seq, head = head0 + int64_t(i / dim / seq);
      ++buckets[(row % 128) / 64][col / 64];
      if (bad++ == 0)
        first_bad = fmt("head %lld row %lld col %lld: got %g want %g", (long long)head,
                        (long long)row, (long long)col, got[i], want[i]);
    }
  }
  double frob() const { return ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2); }
  bool pass() const { return nan == 0 && frob() <= 1e-2 && max_err <= 0.05 * max_ref; }
};

// The contiguous runs of flat (batch, head) indices that the reference checks: whole groups of
// query heads (first and count multiples of the group), so that run's kv heads are first /
// group, count / group.
struct HeadRange {
  int64_t first, count;
};

// Runs of flat (batch, kv head) indices whose groups the reference checks within the budget
// (`rate`: reference work units a second, 0 when not yet measured): all, or the first and last
// halves of as many as fit.
std::vector<HeadRange> pick_groups(const Shape& sh, double budget_s, double rate) {
  const int64_t total = int64_t(sh.b) * sh.kv_heads();
  const double units = sh.units() * sh.group();  // reference work per group
  int64_t n = total;
  if (rate <= 0 && units * total > 1e10) rate = 1e9;  // no measurement yet: be careful
  if (rate > 0) {
    n = std::min<int64_t>(total, static_cast<int64_t>(budget_s * rate / units));
    if (n == 0 && units / rate <= 3 * budget_s) n = 1;
  }
  if (n == 0) return {};
  if (n == total) return {{0, total}};
  const int64_t head_part = (n + 1) / 2, tail_part = n / 2;
  std::vector<HeadRange> out{{0, head_part}};
  if (tail_part > 0) out.push_back({total - tail_part, tail_part});
  return out;
}

std::vector<HeadRange> pick_heads(const Shape& sh, double budget_s, double rate) {
  std::vector<HeadRange> out;
  for (const HeadRange& r : pick_groups(sh, budget_s, rate))
    out.push_back({r.first * sh.group(), r.count * sh.group()});
  return out;
}

struct Problem {  // the ABI view of a shape
  ptxb_tensor_desc in[6], out[3];
  double scalars[2];
  ptxb_problem p;
  explicit Problem(const Shape& sh) {
    const int64_t shape4[4] = {sh.b, sh.h, sh.s, sh.d};
    auto desc = [](int dtype, int rank, const int64_t* shape) {
      ptxb_tensor_desc t{};
      t.dtype = dtype;
      t.rank = rank;
      int64_t stride = 1;
      for (int i = rank - 1; i >= 0; --i) {
        t.shape[i] = shape[i];
        t.strides[i] = stride;
        stride *= shape[i];
      }
      return t;
    };
    const int64_t kv_shape4[4] = {sh.b, sh.kv_heads(), sh.s, sh.d};
    for (int i = 0; i < 5; ++i) in[i] = desc(PTXB_BF16, 4, i == 1 || i == 2 ? kv_shape4 : shape4);
    in[5] = desc(PTXB_F32, 3, shape4);
    for (int i = 0; i < 3; ++i)
      out[i] = desc(sh.f32_out ? PTXB_F32 : PTXB_BF16, 4, i == 0 ? shape4 : kv_shape4);
    scalars[0] = 1.0 / std::sqrt(double(sh.d));
    scalars[1] = sh.causal ? 1.0 : 0.0;
    p = {PTXB_ABI_VERSION, 6, 3, 2, in, out, scalars};
  }
};

// Median time in microseconds of `fn` over `reps` event-timed calls after 3 warm-ups, with the
// L2 scrubbed (a 256 MiB memset) before each call, outside the events.
double median_us(const std::function<void()>& fn, void* scrub, size_t scrub_bytes, int reps,
                 cudaStream_t stream) {
  for (int i = 0; i < 3; ++i) fn();
  cudaEvent_t start, stop;
  PTXB_DEV_CHECK(cudaEventCreate(&start));
  PTXB_DEV_CHECK(cudaEventCreate(&stop));
  std::vector<float> ms(reps);
  for (int i = 0; i < reps; ++i) {
    PTXB_DEV_CHECK(cudaMemsetAsync(scrub, i & 0xFF, scrub_bytes, stream));
    PTXB_DEV_CHECK(cudaEventRecord(start, stream));
    fn();
    PTXB_DEV_CHECK(cudaEventRecord(stop, stream));
    PTXB_DEV_CHECK(cudaEventSynchronize(stop));
    PTXB_DEV_CHECK(cudaEventElapsedTime(&ms[i], start, stop));
  }
  sync_check(stream, "timing");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return 1000.0 * ms[reps / 2];
}

struct ShapeResult {
  std::string line;
  double ref_rate = 0;  // reference work units per second (0: not measured)
};

ShapeResult run_shape(const Shape& sh, double budget_s, double rate, bool timing) {
  cudaStream_t stream;
  PTXB_DEV_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const int64_t heads = int64_t(sh.b) * sh.h, per_head = int64_t(sh.s) * sh.d;
  const int64_t group = sh.group(), kv_heads = heads / group;
  const int64_t n = heads * per_head, n_kv = kv_heads * per_head, out_elem = sh.f32_out ? 4 : 2;
  DeviceBuffer q(n * 2), k(n_kv * 2), v(n_kv * 2), o(n * 2), dout(n * 2), lse(heads * sh.s * 4);
  DeviceBuffer dq(n * out_elem), dk(n_kv * out_elem), dv(n_kv * out_elem);
  fill_normal_bf16<<<kFillBlocks, 256, 0, stream>>>(q.get<bf16>(), n, 11, sh.sigma);
  fill_normal_bf16<<<kFillBlocks, 256, 0, stream>>>(k.get<bf16>(), n_kv, 12, sh.sigma);
  fill_normal_bf16<<<kFillBlocks, 256, 0, stream>>>(v.get<bf16>(), n_kv, 13, sh.sigma);
  fill_normal_bf16<<<kFillBlocks, 256, 0, stream>>>(dout.get<bf16>(), n, 14, sh.sigma);
  // NOTE: heads the reference does not check get stand-in O and LSE (same magnitudes); only
  // the checked heads need the true forward.
  fill_normal_bf16<<<kFillBlocks, 256, 0, stream>>>(o.get<bf16>(), n, 15, 0.3f);
  fill_f32<<<kFillBlocks, 256, 0, stream>>>(lse.get<float>(), heads * sh.s,
                                            std::log(float(sh.s)) + 0.5f);
  sync_check(stream, "input generation");

  const std::vector<HeadRange> ranges = pick_heads(sh, budget_s, rate);
  int64_t checked = 0;
  for (const auto& r : ranges) checked += r.count;
  std::printf("  [%s] reference on %lld of %lld heads\n", sh.name().c_str(),
              static_cast<long long>(checked), static_cast<long long>(heads));

  // Forward reference on the checked heads -> O (bf16) and LSE; O rounded back for the backward.
  std::vector<std::unique_ptr<DeviceBuffer>> o_back;
  const auto ref_start = std::chrono::steady_clock::now();
  for (const auto& r : ranges) {
    ptxb::AttentionDims dims;
    dims.batch = 1, dims.heads = r.count, dims.kv_heads = r.count / group, dims.seq = sh.s;
    dims.head_dim = sh.d, dims.causal = sh.causal, dims.scale = 1.f / std::sqrt(float(sh.d));
    DeviceBuffer o_ref(r.count * per_head * 4);
    const int64_t off = r.first * per_head, kv_off = r.first / group * per_head;
    ptxb::reference_attention_forward(q.get<bf16>() + off, k.get<bf16>() + kv_off,
                                      v.get<bf16>() + kv_off, o_ref.get<float>(),
                                      lse.get<float>() + r.first * sh.s, dims, stream);
    o_back.push_back(std::make_unique<DeviceBuffer>(r.count * per_head * 4));
    round_to_bf16<<<kFillBlocks, 256, 0, stream>>>(o_ref.get<float>(), o.get<bf16>() + off,
                                                   o_back.back()->get<float>(), r.count * per_head);
    sync_check(stream, "reference forward", true);
  }
  double ref_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - ref_start).count();

  // The kernel: plan, then k0, k1, k2 one at a time with a synchronize after each.
  Problem prob(sh);
  uint64_t ws_bytes = 0;
  if (const int st = ptxb_plan(&prob.p, &ws_bytes); st != PTXB_OK)
    return {fmt("FAIL ptxb_plan returned %d", st)};
  DeviceBuffer ws(ws_bytes);
  PTXB_DEV_CHECK(cudaMemset(ws.get(), 0xFF, ws_bytes));
  const void* ins[6] = {q.get(), k.get(), v.get(), o.get(), dout.get(), lse.get()};
  void* outs[3] = {dq.get(), dk.get(), dv.get()};
  const ptxb_args args{&prob.p, ins, outs, ws.get(), ws_bytes, stream};
  for (auto* b : {&dq, &dk, &dv}) PTXB_DEV_CHECK(cudaMemset(b->get(), 0xFF, b->bytes()));  // NaN
  Launch l;
  if (const int st = prepare(args, &l); st != PTXB_OK) return {fmt("FAIL prepare returned %d", st)};
  if (launch_delta(l) != PTXB_OK) return {"FAIL launch of k0 (delta) failed"};
  sync_check(stream, "k0 delta_kernel", true);
  if (launch_dkdv(l) != PTXB_OK) return {"FAIL launch of k1 (dkdv) failed"};
  sync_check(stream, "k1 dkdv_kernel", true);
  if (launch_dq(l) != PTXB_OK) return {"FAIL launch of k2 (dq) failed"};
  sync_check(stream, "k2 dq_kernel", true);

  // Reference backward on the checked heads.
  const auto bwd_start = std::chrono::steady_clock::now();
  Stats st_dq, st_dk, st_dv, st_delta;
  double lse2_err = 0;
  bool padding_ok = true;
  const std::vector<float> ws_host = to_host<float>(ws.get(), ws_bytes / 4);
  const int64_t seq_pad = l.d.seq_pad;
  const std::vector<float> lse_host = to_host<float>(lse.get(), heads * sh.s);
  for (size_t ri = 0; ri < ranges.size(); ++ri) {
    const HeadRange& r = ranges[ri];
    ptxb::AttentionDims dims;
    dims.batch = 1, dims.heads = r.count, dims.kv_heads = r.count / group, dims.seq = sh.s;
    dims.head_dim = sh.d, dims.causal = sh.causal, dims.scale = 1.f / std::sqrt(float(sh.d));
    const int64_t off = r.first * per_head, cnt = r.count * per_head;
    const int64_t kv_off = r.first / group * per_head, kv_cnt = cnt / group;
    DeviceBuffer rdq(cnt * 4), rdk(kv_cnt * 4), rdv(kv_cnt * 4), rdelta(r.count * sh.s * 4);
    ptxb::reference_attention_backward(
        q.get<bf16>() + off, k.get<bf16>() + kv_off, v.get<bf16>() + kv_off, dout.get<bf16>() + off,
        o_back[ri]->get<float>(), lse.get<float>() + r.first * sh.s, rdelta.get<float>(),
        rdq.get<float>(), rdk.get<float>(), rdv.get<float>(), dims, stream);
    sync_check(stream, "reference backward", true);
    // elements at..at + count of `got` against `want`, the first head's flat index head0
    const auto cmp = [&](Stats& s, const DeviceBuffer& got, const DeviceBuffer& want, int64_t at,
                         int64_t count, int64_t head0) {
      std::vector<float> g(count);
      if (sh.f32_out) {
        g = to_host<float>(got.get<float>() + at, count);
      } else {
        const std::vector<uint16_t> g16 = to_host<uint16_t>(got.get<uint16_t>() + at, count);
        for (int64_t i = 0; i < count; ++i) g[i] = bf16_bits_to_float(g16[i]);
      }
      s.add_block(g, to_host<float>(want.get(), count), head0, sh.s, sh.d);
    };
    cmp(st_dq, dq, rdq, off, cnt, r.first);
    cmp(st_dk, dk, rdk, kv_off, kv_cnt, r.first / group);
    cmp(st_dv, dv, rdv, kv_off, kv_cnt, r.first / group);
    const std::vector<float> delta_ref = to_host<float>(rdelta.get(), r.count * sh.s);
    for (int64_t hh = 0; hh < r.count; ++hh)
      for (int64_t i = 0; i < seq_pad; ++i) {
        const int64_t row = (r.first + hh) * seq_pad + i;
        const float lse2 = ws_host[row], delta = ws_host[heads * seq_pad + row];
        if (i >= sh.s) {
          padding_ok = padding_ok && std::isinf(lse2) && lse2 > 0 && delta == 0.f;
          continue;
        }
        st_delta.add(delta, delta_ref[hh * sh.s + i]);
        lse2_err = std::max<double>(
            lse2_err, std::fabs(lse2 - lse_host[(r.first + hh) * sh.s + i] * 1.4426950408889634));
      }
  }
  ref_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - bwd_start).count();

  // NaN anywhere in the outputs means an element was never written.
  auto nan_count = [&](const DeviceBuffer& b, int64_t count) {
    int64_t bad = 0;
    if (sh.f32_out) {
      for (float x : to_host<float>(b.get(), count)) bad += !std::isfinite(x);
    } else {
      for (uint16_t x : to_host<uint16_t>(b.get(), count)) bad += (x & 0x7F80) == 0x7F80;
    }
    return bad;
  };
  const int64_t nan_all = nan_count(dq, n) + nan_count(dk, n_kv) + nan_count(dv, n_kv);
  const std::vector<uint8_t> first_dq = to_host<uint8_t>(dq.get(), n * out_elem);
  const std::vector<uint8_t> first_dk = to_host<uint8_t>(dk.get(), n_kv * out_elem);
  const std::vector<uint8_t> first_dv = to_host<uint8_t>(dv.get(), n_kv * out_elem);

  // The ABI path must give the same bits.
  for (auto* b : {&dq, &dk, &dv}) PTXB_DEV_CHECK(cudaMemset(b->get(), 0xFF, b->bytes()));
  if (const int st = ptxb_run(&args); st != PTXB_OK) return {fmt("FAIL ptxb_run returned %d", st)};
  sync_check(stream, "ptxb_run", true);
  int64_t abi_diff = 0;
  for (auto [buf, ref] : {std::make_pair(&dq, &first_dq), std::make_pair(&dk, &first_dk),
                          std::make_pair(&dv, &first_dv)}) {
    const std::vector<uint8_t> now = to_host<uint8_t>(buf->get(), ref->size());
    for (size_t i = 0; i < ref->size(); ++i) abi_diff += now[i] != (*ref)[i];
  }

  std::string verdict;
  if (checked > 0) {
    auto line = [](const char* name, const Stats& s) {
      std::printf(
          "    %-5s max|err| %.3e  max|ref| %.3e  rel frob %.3e  NaN %lld  task-rule off %lld  -> "
          "%s\n",
          name, s.max_err, s.max_ref, s.frob(), static_cast<long long>(s.nan),
          static_cast<long long>(s.task_off), s.pass() ? "PASS" : "FAIL");
      if (s.bad > 0)
        std::printf(
            "          %lld large errors [wg0/blk0 %lld, wg0/blk1 %lld, wg1/blk0 %lld, "
            "wg1/blk1 %lld], first at %s\n",
            (long long)s.bad, (long long)s.buckets[0][0], (long long)s.buckets[0][1],
            (long long)s.buckets[1][0], (long long)s.buckets[1][1], s.first_bad.c_str());
    };
    line("dQ", st_dq);
    line("dK", st_dk);
    line("dV", st_dv);
    std::printf(
        "    k0    Delta max|err| %.3e (max|ref| %.3e), LSE*log2e max|err| %.3e, padding %s\n",
        st_delta.max_err, st_delta.max_ref, lse2_err, padding_ok ? "ok" : "WRONG");
    const bool pass = st_dq.pass() && st_dk.pass() && st_dv.pass() && nan_all == 0 &&
                      abi_diff == 0 && padding_ok &&
                      st_delta.max_err <= 1e-3 * st_delta.max_ref + 1e-4;
    verdict = fmt("%s frob dQ %.1e dK %.1e dV %.1e", pass ? "PASS" : "FAIL", st_dq.frob(),
                  st_dk.frob(), st_dv.frob());
    if (const int64_t off = st_dq.task_off + st_dk.task_off + st_dv.task_off; off > 0)
      verdict += fmt(", %lld elements off the task rule", static_cast<long long>(off));
  } else {
    verdict = nan_all == 0 && abi_diff == 0 ? "INFO (not checked: reference too slow)"
                                            : "FAIL (unchecked shape)";
  }
  std::printf("    unwritten/NaN elements in dQ,dK,dV: %lld; ABI run differs in %lld bytes\n",
              static_cast<long long>(nan_all), static_cast<long long>(abi_diff));
  if (nan_all) verdict += fmt(", %lld NaN", static_cast<long long>(nan_all));
  if (abi_diff) verdict += fmt(", ABI run differs (%lld B)", static_cast<long long>(abi_diff));
  // NOTE: only a run of 0.5 s or more measures the reference's speed rather than its overheads.
  const double rate_out = checked > 0 && ref_s >= 0.5 ? checked * sh.units() / ref_s : 0;
  std::printf("    reference time %.2f s (%.3g units/s)\n", ref_s, rate_out);

  if (timing) {
    DeviceBuffer scrub(256ull << 20);
    const double total_us =
        median_us([&] { ptxb_run(&args); }, scrub.get(), scrub.bytes(), 20, stream);
    const double k0_us =
        median_us([&] { launch_delta(l); }, scrub.get(), scrub.bytes(), 10, stream);
    // kPersistentK1, kPersistentK2: k1's and k2's unit counters zeroed before each call, as k0
    // does in a whole run (timed alone, a kernel would otherwise find its counter spent and take
    // no unit)
    const auto zero_counters = [&] {
      if (kPersistentK1 || kPersistentK2)
        cudaMemsetAsync(l.params.next_unit, 0, 2 * sizeof(int), stream);
    };
    const double k1_us = median_us(
        [&] {
          zero_counters();
          launch_dkdv(l);
        },
        scrub.get(), scrub.bytes(), 10, stream);
    const double k2_us = median_us(
        [&] {
          zero_counters();
          launch_dq(l);
        },
        scrub.get(), scrub.bytes(), 10, stream);
    const double tflops = sh.flops() / (total_us * 1e-6) / 1e12;
    // NOTE: the task counts 5 products; k1 computes 4 (S^T, dP^T, dV, dK) and k2 3 (S, dP, dQ).
    const double product = sh.flops() / 5;
    std::printf(
        "    TIME total %.1f us = %.1f TFLOP/s (task FLOPs) | k0 %.1f us | k1 dKdV %.1f us "
        "(%.0f TFLOP/s executed) | k2 dQ %.1f us (%.0f TFLOP/s executed)\n",
        total_us, tflops, k0_us, k1_us, 4 * product / (k1_us * 1e-6) / 1e12, k2_us,
        3 * product / (k2_us * 1e-6) / 1e12);
    verdict +=
        fmt(" | %.0f us %.1f TFLOP/s (k1 %.0f us, k2 %.0f us)", total_us, tflops, k1_us, k2_us);
  }
  cudaStreamDestroy(stream);
  return {verdict, rate_out};
}

// ---- process isolation ----
struct Outcome {
  std::string name, verdict;
};

// Runs `body` in a child process with a deadline; its returned line (PASS/FAIL/INFO ...) is the
// verdict. A second line "rate X" from the child is returned through `rate`.
Outcome run_isolated(const std::string& name, int timeout_s,
                     const std::function<std::pair<std::string, double>()>& body, double* rate) {
  std::printf("=== %s\n", name.c_str());
  std::fflush(stdout);
  int fds[2];
  if (pipe(fds) != 0) return {name, "FAIL pipe()"};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    std::string line;
    double r = 0;
    try {
      std::tie(line, r) = body();
    } catch (const std::exception& e) {
      line = std::string("FAIL ") + e.what();
    }
    std::printf("  -> %s\n", line.c_str());
    std::fflush(stdout);
    line += fmt("\nrate %.6g\n", r);
    if (write(fds[1], line.data(), line.size()) < 0) _exit(2);
    _exit(0);
  }
  close(fds[1]);
  std::string got;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  bool timed_out = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000))) <= 0) continue;
    char buf[4096];
    const ssize_t k = read(fds[0], buf, sizeof buf);
    if (k <= 0) break;
    got.append(buf, k);
  }
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (timed_out) return {name, fmt("FAIL TIMEOUT after %d s (hang?)", timeout_s)};
  if (WIFSIGNALED(status)) return {name, fmt("FAIL child killed by signal %d", WTERMSIG(status))};
  const size_t nl = got.find('\n');
  if (nl == std::string::npos) return {name, "FAIL child exited without a verdict"};
  double r = 0;
  if (std::sscanf(got.c_str() + nl + 1, "rate %lf", &r) == 1 && r > 0) *rate = r;
  return {name, got.substr(0, nl)};
}

}  // namespace dev

int main(int argc, char** argv) {
  using namespace dev;
  bool quick = false, timing = true;
  double budget_s = 10;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick")
      quick = true;
    else if (a == "--no-timing")
      timing = false;
    else if (a == "--ref-budget" && i + 1 < argc)
      budget_s = std::atof(argv[++i]);
    else if (a == "--only" && i + 1 < argc)
      only = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--quick] [--no-timing] [--ref-budget S] [--only TEXT]\n",
                   argv[0]);
      return 2;
    }
  }
  const auto start = std::chrono::steady_clock::now();
  auto elapsed_s = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::vector<Outcome> outcomes;
  double rate = 0;  // reference work units (S^2 D per head) per second, last measured
  auto add = [&](const std::string& name, int timeout_s,
                 std::function<std::pair<std::string, double>()> body) {
    if (!only.empty() && name.find(only) == std::string::npos) return;
    // NOTE: the whole run sits under `timeout 300` (bwd_dev.sh): a child gets what is left.
    const int left_s = static_cast<int>(290 - elapsed_s());
    if (left_s < 15) {
      outcomes.push_back({name, "SKIP (time budget of the run)"});
      return;
    }
    double r = 0;
    outcomes.push_back(run_isolated(name, std::min(timeout_s, left_s), body, &r));
    if (r > 0) rate = r;  // the latest (largest) shape predicts the next best
  };
  auto probe = [&](const std::string& name, std::function<std::string()> fn) {
    add("probe " + name, 30, [fn] { return std::make_pair(fn(), 0.0); });
  };

  add("device", 30, [] {
    cudaDeviceProp prop{};
    int driver = 0, clock_khz = 0;
    PTXB_DEV_CHECK(cudaGetDeviceProperties(&prop, 0));
    PTXB_DEV_CHECK(cudaDriverGetVersion(&driver));
    PTXB_DEV_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    return std::make_pair(
        fmt("INFO %s, %d SMs, sm_%d%d, max clock %d MHz, driver %d", prop.name,
            prop.multiProcessorCount, prop.major, prop.minor, clock_khz / 1000, driver),
        0.0);
  });
  probe("SS K-major A,B  n64 k128 (k1 S^T, dP^T)",
        [] { return run_probe<64, 128, false, 0>(false); });
  probe("SS K-major A,B  n128 k128 (k2 S, dP)",
        [] { return run_probe<128, 128, false, 0>(false); });
  probe("RS reg-A, K-major B  n64 k64 (accumulator -> A fragment)",
        [] { return run_probe<64, 64, true, 0>(false); });
  probe("SS MN-major B  n128 k64 (transpose-B, LBO = next 64 columns)",
        [] { return run_probe<128, 64, false, 1>(false); });
  probe("SS MN-major B  n128 k64, LBO/SBO swapped (diagnostic only)",
        [] { return "INFO swapped strides give: " + run_probe<128, 64, false, 1>(true); });
  probe("SS MN-major B  n64 k64", [] { return run_probe<64, 64, false, 1>(false); });
  probe("SS MN-major A and B  n128 k64 (k1's fused dQ = dS K)",
        [] { return run_probe<128, 64, false, 1, true>(false); });
  probe("RS reg-A, MN-major B  n128 k64 (k1 dV, dK at D=128)",
        [] { return run_probe<128, 64, true, 1>(false); });
  probe("RS reg-A, MN-major B  n64 k64 (k1 dV, dK at D=64)",
        [] { return run_probe<64, 64, true, 1>(false); });
  probe("RS reg-A, MN-major B  n128 k128 (k2 dQ at D=128)",
        [] { return run_probe<128, 128, true, 1>(false); });
  probe("RS reg-A, MN-major B  n64 k128 (k2 dQ at D=64)",
        [] { return run_probe<64, 128, true, 1>(false); });

  // The task's shapes (tasks/sm90/attention/bwd-bf16/task.toml and bwd-bf16-gqa) plus small edge
  // cases.
  const std::vector<Shape> shapes = {
      {1, 2, 128, 128, false, false},
      {1, 2, 128, 128, true, false},
      {1, 4, 256, 64, true, false},
      {1, 2, 1000, 128, false, false},
      {1, 2, 1000, 128, true, false},
      {2, 4, 300, 64, true, false},
      {2, 4, 300, 64, false, false},
      {1, 2, 1000, 128, true, false, true},
      {1, 4, 256, 64, true, false, false, 2.f},
      {2, 8, 1000, 128, true, false},
      {2, 8, 1000, 128, false, true},
      {2, 8, 1000, 128, true, false, false, 2.f},
      {5, 12, 777, 64, true, false},
      {1, 64, 512, 128, false, true},
      {4, 32, 4096, 64, false, true},
      {4, 16, 4096, 128, false, true},
      {4, 16, 4096, 128, true, true},
      {1, 16, 16384, 128, false, true},
      // grouped-query attention (task bwd-bf16-gqa: its four timed shapes), and one whose few
      // kv heads make k1 split each group over several CTAs
      {1, 4, 1000, 128, true, false, false, 1.f, 2},
      {1, 8, 256, 128, false, false, false, 1.f, 1},
      {2, 16, 1500, 128, true, false, false, 1.f, 2},
      {2, 8, 1000, 128, false, true, false, 1.f, 2},
      {4, 16, 4096, 128, false, true, false, 1.f, 8},
      {4, 16, 4096, 128, true, true, false, 1.f, 4},
      {4, 32, 4096, 64, false, true, false, 1.f, 4},
      // head dim 96 (task bwd-bf16-d96): padded to two 64-column blocks, m64n96 products
      {1, 2, 128, 96, false, false},
      {1, 2, 1000, 96, true, false},
      {1, 2, 1000, 96, true, false, true},
      {2, 8, 1000, 96, false, true},
      {1, 64, 512, 96, false, false},
      {4, 16, 4096, 96, false, true},
      {4, 16, 4096, 96, true, true},
  };
  for (const Shape& sh : shapes) {
    const bool big = sh.s >= 4096;
    if (quick && big) continue;
    add("full " + sh.name(), big ? 120 : 60, [&, sh] {
      const ShapeResult r = run_shape(sh, budget_s, rate, timing && sh.timed);
      return std::make_pair(r.line, r.ref_rate);
    });
  }

  std::printf("\n==== SUMMARY (%.0f s) ====\n", elapsed_s());
  int failed = 0;
  for (const Outcome& o : outcomes) {
    failed += o.verdict.rfind("FAIL", 0) == 0;
    std::printf("%-66s %s\n", o.name.c_str(), o.verdict.c_str());
  }
  std::printf("%d of %zu failed\n", failed, outcomes.size());
  return failed == 0 ? 0 : 1;
}
