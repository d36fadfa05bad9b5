// Development harness for kernels/reference/sm90_attention_fwd_varlen.cu (variable-length,
// "THD" attention forward), one GPU run tells what is wrong: (a) the ABI validation (malformed
// problems refused before any launch), (b) every schedule of the kernel and the ABI entry against
// a plain fp32 SIMT reference written here, on ragged batches with the edge lengths (1, 127, 128,
// 129, ...), causal and not, D 64 and 128, H = HKV and grouped-query heads; O is poisoned with NaN
// before every call, and a guard band past the last token must stay untouched; (c) event timing
// of large batches with an L2 scrub between calls, in TFLOP/s (sum over sequences of
// 4 H len^2 D, halved when causal).
// Every check prints one "RESULT" line (PASS/FAIL and its numbers) and never stops the others;
// every launch is synchronized and its error reported. Built with -DPTXB_ATTN_WATCHDOG=1, an
// mbarrier wait that hangs gives up after about a second and is reported as WATCHDOG.
// Usage: varlen_dev [--list] [--only NAME]... (no --only: every test in order). varlen_dev.sh
// builds it, runs each test in its own process under a shared timeout and prints the table.
// Build alone: nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -I src -I include
//   bench/attention_dev/varlen_dev.cu src/families/structured_values.cpp src/core/error.cpp
//   -o varlen_dev
// NOTE: varlen_dev.sh sets PTXB_VARLEN_SOURCE to a variant of the expert (PTXB_VARLEN_KERNEL).
#ifndef PTXB_VARLEN_SOURCE
#define PTXB_VARLEN_SOURCE "../../kernels/reference/sm90_attention_fwd_varlen.cu"
#endif
#include PTXB_VARLEN_SOURCE

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "families/structured_values.hpp"

namespace dev {

// ---- small utilities ----
bool cuda_ok(cudaError_t e, const char* what, const std::string& test) {
  if (e == cudaSuccess) return true;
  std::printf("CUDA_ERROR %s: %s: %s (%s)\n", test.c_str(), what, cudaGetErrorName(e),
              cudaGetErrorString(e));
  return false;
}

// Device memory owner (non-copyable).
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    if (cudaMalloc(&ptr_, bytes) != cudaSuccess) ptr_ = nullptr;
  }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <class T = void>
  T* get() const {
    return static_cast<T*>(ptr_);
  }
  size_t bytes() const { return bytes_; }
  bool ok() const { return ptr_ != nullptr; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_;
};

// Synchronizes, reports a launch or execution error and any watchdog timeouts. True when clean.
bool sync_and_check(cudaStream_t stream, const std::string& test, const char* what) {
  bool ok = cuda_ok(cudaGetLastError(), what, test);
  ok = cuda_ok(cudaStreamSynchronize(stream), what, test) && ok;
#if PTXB_ATTN_WATCHDOG
  unsigned int timeouts = 0;
  if (cudaMemcpyFromSymbol(&timeouts, g_watchdog_timeouts, sizeof(timeouts)) == cudaSuccess &&
      timeouts != 0) {
    std::printf("WATCHDOG %s: %s: %u mbarrier waits timed out (barrier protocol or TMA bug)\n",
                test.c_str(), what, timeouts);
    const unsigned int zero = 0;
    cudaMemcpyToSymbol(g_watchdog_timeouts, &zero, sizeof(zero));
    ok = false;
  }
#endif
  return ok;
}

int g_failures = 0;  // RESULT lines with FAIL so far

void report(const std::string& test, const std::string& variant, bool pass,
            const std::string& detail) {
  if (!pass) ++g_failures;
  std::printf("RESULT\t%s\t%s\t%s\t%s\n", test.c_str(), variant.c_str(), pass ? "PASS" : "FAIL",
              detail.c_str());
  std::fflush(stdout);
}

__device__ uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// normal(0, scale^2) bf16 values keyed by (seed, index): Box-Muller on two hashed uniforms.
__global__ void fill_normal_bf16(__nv_bfloat16* dst, int64_t count, uint64_t seed, float scale) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x) {
    const uint64_t h1 = splitmix64(seed ^ splitmix64(2 * uint64_t(i)));
    const uint64_t h2 = splitmix64(seed ^ splitmix64(2 * uint64_t(i) + 1));
    const double u1 = (double(h1 >> 11) + 1.0) * 0x1p-53, u2 = double(h2 >> 11) * 0x1p-53;
    dst[i] = __float2bfloat16_rn(scale * float(sqrt(-2.0 * log(u1)) * cospi(2.0 * u2)));
  }
}

__global__ void checksum_u16(const uint16_t* src, int64_t count, unsigned long long* sum) {
  unsigned long long local = 0;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x)
    local += src[i] * 2654435761ull + uint64_t(i % 977);
  atomicAdd(sum, local);
}

unsigned long long checksum(const void* p, int64_t count_u16, cudaStream_t stream) {
  DeviceBuffer sum(sizeof(unsigned long long));
  cudaMemsetAsync(sum.get(), 0, sizeof(unsigned long long), stream);
  checksum_u16<<<512, 256, 0, stream>>>(static_cast<const uint16_t*>(p), count_u16,
                                        sum.get<unsigned long long>());
  unsigned long long host = 0;
  cudaStreamSynchronize(stream);
  cudaMemcpy(&host, sum.get(), sizeof(host), cudaMemcpyDeviceToHost);
  return host;
}

// ---- the fp32 SIMT reference: one block per (token, query head) ----
constexpr int kRefThreads = 128, kRefWarps = kRefThreads / 32;
constexpr int kRefMaxDim = 128;

// Sum or max over the block; every thread gets the result.
__device__ float block_reduce(float x, bool take_max) {
  __shared__ float part[kRefThreads / 32];
  for (int o = 16; o > 0; o >>= 1) {
    const float y = __shfl_xor_sync(0xffffffffu, x, o);
    x = take_max ? fmaxf(x, y) : x + y;
  }
  __syncthreads();  // the previous call's readers are done with part[]
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = x;
  __syncthreads();
  x = part[0];
  for (int w = 1; w < kRefThreads / 32; ++w) x = take_max ? fmaxf(x, part[w]) : x + part[w];
  return x;
}

// O[t][h] = sum_j softmax_j(scale * q . k_j) v_j over the keys j of token t's own sequence (causal:
// only j <= t's position in it). Dynamic shared memory: head_dim + longest-sequence floats. Each
// warp takes every kRefWarps-th key, its lanes the columns (coalesced rows of K and V).
__global__ void __launch_bounds__(kRefThreads)
    reference_varlen_fwd(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                         const int* cu_seqlens, int batch, int heads, int kv_heads, int head_dim,
                         float scale, bool causal, float* o_ref) {
  extern __shared__ float ref_smem[];
  float* q_row = ref_smem;             // [head_dim]
  float* score = ref_smem + head_dim;  // [keys]: scores, then exp(score - max)
  const int t = blockIdx.x, h = blockIdx.y, g = h / (heads / kv_heads);
  int b = 0;
  while (b + 1 < batch && cu_seqlens[b + 1] <= t) ++b;  // the sequence that owns token t
  const int first = cu_seqlens[b], len = cu_seqlens[b + 1] - first, pos = t - first;
  const int keys = causal ? pos + 1 : len;
  for (int d = threadIdx.x; d < head_dim; d += kRefThreads)
    q_row[d] = __bfloat162float(q[(int64_t(t) * heads + h) * head_dim + d]);
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll 4
  for (int j = warp; j < keys; j += kRefWarps) {
    const __nv_bfloat16* k_row = k + (int64_t(first + j) * kv_heads + g) * head_dim;
    float dot = 0.f;
    for (int d = lane; d < head_dim; d += 32) dot += q_row[d] * __bfloat162float(k_row[d]);
    for (int o = 16; o > 0; o >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, o);
    if (lane == 0) score[j] = dot * scale;
  }
  __syncthreads();
  float mx = -INFINITY;
  for (int j = threadIdx.x; j < keys; j += kRefThreads) mx = fmaxf(mx, score[j]);
  mx = block_reduce(mx, true);
  float sum = 0.f;
  for (int j = threadIdx.x; j < keys; j += kRefThreads) {
    score[j] = expf(score[j] - mx);
    sum += score[j];
  }
  sum = block_reduce(sum, false);  // its barriers also publish score[]
  float acc[kRefMaxDim / 32] = {};
#pragma unroll 4
  for (int j = warp; j < keys; j += kRefWarps) {
    const __nv_bfloat16* v_row = v + (int64_t(first + j) * kv_heads + g) * head_dim;
#pragma unroll
    for (int c = 0; c < kRefMaxDim / 32; ++c)
      if (lane + 32 * c < head_dim) acc[c] += score[j] * __bfloat162float(v_row[lane + 32 * c]);
  }
  __shared__ float partial[kRefWarps][kRefMaxDim];  // each warp's sums over its keys
#pragma unroll
  for (int c = 0; c < kRefMaxDim / 32; ++c)
    if (lane + 32 * c < head_dim) partial[warp][lane + 32 * c] = acc[c];
  __syncthreads();
  for (int d = threadIdx.x; d < head_dim; d += kRefThreads) {
    float total = 0.f;
    for (int w = 0; w < kRefWarps; ++w) total += partial[w][d];
    o_ref[(int64_t(t) * heads + h) * head_dim + d] = total / sum;
  }
}

// ---- comparison ----
struct CompareDev {
  unsigned long long bad, nan, guard_changed;
  unsigned int max_err_bits;  // non-negative float as bits: integer order == float order
  unsigned long long first_bad;
};

// Elements [0, count): bad when |out - ref| > atol + rtol |ref| or not finite (a NaN is an element
// never written). Elements [count, count + guard): the guard band past the last token, which must
// still hold the poison (0xFFFF).
__global__ void compare_kernel(const __nv_bfloat16* out, const float* ref, int64_t count,
                               int64_t guard, float atol, float rtol, CompareDev* r) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count + guard;
       i += int64_t(gridDim.x) * blockDim.x) {
    if (i >= count) {
      if (reinterpret_cast<const uint16_t*>(out)[i] != 0xFFFFu) atomicAdd(&r->guard_changed, 1ull);
      continue;
    }
    const float got = __bfloat162float(out[i]), want = ref[i], err = fabsf(got - want);
    const bool finite = isfinite(got);
    if (!finite) atomicAdd(&r->nan, 1ull);
    if (!finite || !(err <= atol + rtol * fabsf(want))) {
      atomicAdd(&r->bad, 1ull);
      atomicMin(&r->first_bad, static_cast<unsigned long long>(i));
    }
    if (finite) atomicMax(&r->max_err_bits, __float_as_uint(err));
  }
}

// ---- cases ----
struct Case {
  std::string name;
  std::vector<int> lens;  // sequence lengths, in batch order
  int64_t h, hkv, d;
  bool causal;
  int max_seqlen_slack = 0;  // max_seqlen passed = longest + slack (a looser bound is legal)
  float input_scale = 1.f;   // 2: "peaked" inputs (scores ~ N(0, 16))

  int64_t batch() const { return static_cast<int64_t>(lens.size()); }
  int64_t tokens() const {
    int64_t t = 0;
    for (int len : lens) t += len;
    return t;
  }
  int longest() const { return *std::max_element(lens.begin(), lens.end()); }
  int max_seqlen() const { return longest() + max_seqlen_slack; }
  double flops() const {
    double f = 0;
    for (int len : lens) f += 4.0 * h * double(len) * len * d;
    return causal ? f / 2 : f;
  }
  std::vector<int> cu_seqlens() const {
    std::vector<int> cu(lens.size() + 1, 0);
    for (size_t b = 0; b < lens.size(); ++b) cu[b + 1] = cu[b] + lens[b];
    return cu;
  }
  std::string describe() const {
    return "B=" + std::to_string(batch()) + " T=" + std::to_string(tokens()) +
           " max_seqlen=" + std::to_string(max_seqlen()) + " H=" + std::to_string(h) +
           " HKV=" + std::to_string(hkv) + " D=" + std::to_string(d) +
           (causal ? " causal" : " full") + (input_scale != 1.f ? " peaked" : "");
  }
};

// n lengths uniform in [lo, hi] (a fixed LCG), then `pinned` written over the first ones.
std::vector<int> random_lengths(int n, int lo, int hi, uint64_t seed,
                                std::vector<int> pinned = {}) {
  std::vector<int> out(n);
  uint64_t state = seed;
  for (int& len : out) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    len = lo + static_cast<int>((state >> 33) % uint64_t(hi - lo + 1));
  }
  for (size_t i = 0; i < pinned.size() && i < out.size(); ++i) out[i] = pinned[i];
  return out;
}

// The lengths the task draws for a shape (B sequences, T tokens, longest S): PTXBench's own
// shape_sequence_offsets, so the timed cases below are the task's batches.
std::vector<int> task_lengths(int64_t batch, int64_t tokens, int64_t max_len) {
  const std::vector<int64_t> cu = ptxb::shape_sequence_offsets(batch, tokens, max_len);
  std::vector<int> lens(static_cast<size_t>(batch));
  for (size_t b = 0; b < lens.size(); ++b) lens[b] = static_cast<int>(cu[b + 1] - cu[b]);
  return lens;
}

// The ABI descriptors of one case (row-major contiguous strides).
struct AbiProblem {
  ptxb_tensor_desc in[4], out[1];
  double scalars[3];
  ptxb_problem problem;
};
ptxb_tensor_desc make_desc(int32_t dtype, std::vector<int64_t> shape) {
  ptxb_tensor_desc t{};
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(shape.size());
  int64_t stride = 1;
  for (int i = t.rank - 1; i >= 0; --i) {
    t.shape[i] = shape[i];
    t.strides[i] = stride;
    stride *= shape[i];
  }
  return t;
}
void build_abi(const Case& c, AbiProblem* p) {
  p->in[0] = make_desc(PTXB_BF16, {c.tokens(), c.h, c.d});
  p->in[1] = make_desc(PTXB_BF16, {c.tokens(), c.hkv, c.d});
  p->in[2] = p->in[1];
  p->in[3] = make_desc(PTXB_I32, {c.batch() + 1});
  p->out[0] = p->in[0];
  p->scalars[0] = 1.0 / std::sqrt(double(c.d));
  p->scalars[1] = c.causal ? 1.0 : 0.0;
  p->scalars[2] = double(c.max_seqlen());
  p->problem = ptxb_problem{PTXB_ABI_VERSION, 4, 1, 3, p->in, p->out, p->scalars};
}

constexpr int64_t kGuardRows = 256;  // poisoned rows after O's last token; must stay untouched

// Device tensors of one case, inputs filled, and the fp32 reference.
struct Workload {
  Case c;
  int64_t q_elems, kv_elems;
  DeviceBuffer q, k, v, cu, o, o_ref;
  DeviceBuffer slot_counter;  // the persistent kernel's dynamic slots; the ABI entry's workspace
  explicit Workload(const Case& cs)
      : c(cs),
        q_elems(cs.tokens() * cs.h * cs.d),
        kv_elems(cs.tokens() * cs.hkv * cs.d),
        q(q_elems * 2),
        k(kv_elems * 2),
        v(kv_elems * 2),
        cu((cs.batch() + 1) * 4),
        o((q_elems + kGuardRows * cs.h * cs.d) * 2),
        o_ref(q_elems * 4),
        slot_counter(kSlotCounterBytes) {}
  bool ok() const {
    return q.ok() && k.ok() && v.ok() && cu.ok() && o.ok() && o_ref.ok() && slot_counter.ok();
  }
};

bool prepare(Workload& w, cudaStream_t stream, const std::string& test) {
  if (!w.ok()) {
    std::printf("CUDA_ERROR %s: cudaMalloc failed\n", test.c_str());
    return false;
  }
  const Case& c = w.c;
  const std::vector<int> cu = c.cu_seqlens();
  cudaMemcpyAsync(w.cu.get(), cu.data(), cu.size() * 4, cudaMemcpyHostToDevice, stream);
  const float sc = c.input_scale;
  fill_normal_bf16<<<2048, 256, 0, stream>>>(w.q.get<__nv_bfloat16>(), w.q_elems, 1001, sc);
  fill_normal_bf16<<<2048, 256, 0, stream>>>(w.k.get<__nv_bfloat16>(), w.kv_elems, 1002, sc);
  fill_normal_bf16<<<2048, 256, 0, stream>>>(w.v.get<__nv_bfloat16>(), w.kv_elems, 1003, sc);
  if (!sync_and_check(stream, test, "fill inputs")) return false;
  const size_t smem = (c.d + c.longest()) * sizeof(float);
  if (!cuda_ok(cudaFuncSetAttribute(reference_varlen_fwd,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)),
               "reference smem attribute", test))
    return false;
  reference_varlen_fwd<<<dim3(unsigned(c.tokens()), unsigned(c.h)), kRefThreads, smem, stream>>>(
      w.q.get<__nv_bfloat16>(), w.k.get<__nv_bfloat16>(), w.v.get<__nv_bfloat16>(), w.cu.get<int>(),
      int(c.batch()), int(c.h), int(c.hkv), int(c.d), float(1.0 / std::sqrt(double(c.d))), c.causal,
      w.o_ref.get<float>());
  return sync_and_check(stream, test, "reference_varlen_fwd");
}

void poison(Workload& w, cudaStream_t stream) {
  cudaMemsetAsync(w.o.get(), 0xFF, w.o.bytes(), stream);  // bf16 0xFFFF: NaN (guard band too)
}

// "(b, position in the sequence, head, d)" of flat O index `index`.
std::string where(const Case& c, int64_t index) {
  if (index < 0) return "-";
  const int64_t d = index % c.d, h = (index / c.d) % c.h, t = index / (c.d * c.h);
  const std::vector<int> cu = c.cu_seqlens();
  int64_t b = 0;
  while (b + 1 < c.batch() && cu[b + 1] <= t) ++b;
  return "(b" + std::to_string(b) + ",len" + std::to_string(c.lens[b]) + ",pos" +
         std::to_string(t - cu[b]) + ",h" + std::to_string(h) + ",d" + std::to_string(d) + ")";
}

struct Verdict {
  bool pass;
  std::string detail;
};

// Compares O of the last run with the reference: |err| <= 2e-2 + 2^-6 |ref| everywhere, no NaN
// (every element written), guard band untouched.
Verdict verify_outputs(Workload& w, cudaStream_t stream, const std::string& test) {
  constexpr float kAtol = 2e-2f, kRtol = 0x1p-6f;
  DeviceBuffer dev(sizeof(CompareDev));
  const CompareDev init{0, 0, 0, 0, ~0ull};
  if (!dev.ok() ||
      !cuda_ok(cudaMemcpy(dev.get(), &init, sizeof(init), cudaMemcpyHostToDevice), "compare", test))
    return {false, "compare buffer failed"};
  const int64_t guard = kGuardRows * w.c.h * w.c.d;
  compare_kernel<<<1024, 256, 0, stream>>>(w.o.get<__nv_bfloat16>(), w.o_ref.get<float>(),
                                           w.q_elems, guard, kAtol, kRtol, dev.get<CompareDev>());
  if (!sync_and_check(stream, test, "compare_kernel")) return {false, "compare kernel failed"};
  CompareDev got;
  cudaMemcpy(&got, dev.get(), sizeof(got), cudaMemcpyDeviceToHost);
  float max_err = 0, first_got = 0, first_want = 0;
  std::memcpy(&max_err, &got.max_err_bits, sizeof(float));
  const int64_t first = got.bad != 0 ? static_cast<int64_t>(got.first_bad) : -1;
  if (first >= 0) {
    __nv_bfloat16 x;
    cudaMemcpy(&x, w.o.get<__nv_bfloat16>() + first, sizeof(x), cudaMemcpyDeviceToHost);
    cudaMemcpy(&first_want, w.o_ref.get<float>() + first, sizeof(float), cudaMemcpyDeviceToHost);
    first_got = __bfloat162float(x);
  }
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "max_err=%.3e bad=%llu nan=%llu guard_changed=%llu first_bad=%s got=%.5g "
                "want=%.5g",
                max_err, got.bad, got.nan, got.guard_changed, where(w.c, first).c_str(), first_got,
                first_want);
  return {got.bad == 0 && got.guard_changed == 0, buf};
}

// ---- ways to run the kernel ----
struct Variant {
  std::string name;
  std::function<int(Workload&)> prepare;  // ptxb_plan or the smem attributes
  std::function<int(Workload&, cudaStream_t)> run;
};

// kDynamic (kPersistent only): the slots taken from Workload::slot_counter.
template <Schedule kSched, Grid kGrid = Grid::kPacked, bool kDynamic = false>
Variant direct_variant(const char* name) {
  return Variant{name, [](Workload&) { return set_smem_attributes<kSched>(); },
                 [](Workload& w, cudaStream_t stream) {
                   AbiProblem abi;
                   build_abi(w.c, &abi);
                   const std::optional<Problem> pb = parse_problem(abi.problem);
                   if (!pb) return int(kBadProblem);
                   unsigned* counter = kDynamic ? w.slot_counter.get<unsigned>() : nullptr;
                   return launch_forward<kSched>(*pb, w.q.get(), w.k.get(), w.v.get(), w.cu.get(),
                                                 w.o.get(), stream, kGrid, counter);
                 }};
}

// From the least to the most involved schedule (packed grid), the default schedule on the
// max_seqlen-sized grid (Grid::kPerSequence, for comparison) and on the persistent one
// (Grid::kPersistent), the ABI entry (the defaults) last: a hang (a ping-pong deadlock cannot be
// bounded by the watchdog) then hides as little as possible.
std::vector<Variant> variants() {
  std::vector<Variant> out;
  out.push_back(direct_variant<Schedule::kSerial>("serial"));
  out.push_back(direct_variant<Schedule::kOverlap>("overlap"));
  out.push_back(direct_variant<Schedule::kPingPong>("pingpong"));
  out.push_back(direct_variant<Schedule::kOverlapPingPong>("overlap+pingpong"));
  out.push_back(direct_variant<kDefaultSchedule, Grid::kPerSequence>("per-sequence-grid"));
  out.push_back(direct_variant<kDefaultSchedule, Grid::kPersistent>("persistent"));
  out.push_back(direct_variant<kDefaultSchedule, Grid::kPersistent, true>("persistent-dynamic"));
  out.push_back(Variant{"abi",
                        [](Workload& w) {
                          AbiProblem abi;
                          build_abi(w.c, &abi);
                          uint64_t ws = 1;
                          const int rc = ptxb_plan(&abi.problem, &ws);
                          return rc != PTXB_OK ? rc : ws <= kSlotCounterBytes ? PTXB_OK : -1;
                        },
                        [](Workload& w, cudaStream_t stream) {
                          AbiProblem abi;
                          build_abi(w.c, &abi);
                          const void* ins[4] = {w.q.get(), w.k.get(), w.v.get(), w.cu.get()};
                          void* outs[1] = {w.o.get()};
                          const ptxb_args args{&abi.problem,      ins,   outs, w.slot_counter.get(),
                                               kSlotCounterBytes, stream};
                          return ptxb_run(&args);
                        }});
  return out;
}

const char* schedule_name(Schedule s) {
  switch (s) {
    case Schedule::kSerial:
      return "serial";
    case Schedule::kPingPong:
      return "pingpong";
    case Schedule::kOverlap:
      return "overlap";
    case Schedule::kOverlapPingPong:
      return "overlap+pingpong";
  }
  return "?";
}

void check_case(const Case& c, const std::string& test) {
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  std::printf("CASE %s: %s\n", test.c_str(), c.describe().c_str());
  Workload w(c);
  if (!prepare(w, stream, test)) {
    report(test, "-", false, "inputs or reference failed (see above)");
    cudaStreamDestroy(stream);
    return;
  }
  const unsigned long long sums[4] = {
      checksum(w.q.get(), w.q_elems, stream), checksum(w.k.get(), w.kv_elems, stream),
      checksum(w.v.get(), w.kv_elems, stream), checksum(w.cu.get(), 2 * (c.batch() + 1), stream)};
  for (Variant& var : variants()) {
    std::printf("RUN %s %s\n", test.c_str(), var.name.c_str());  // the last RUN names a hang
    std::fflush(stdout);
    const int plan = var.prepare(w);
    if (plan != PTXB_OK) {
      report(test, var.name, false, "plan/attributes returned " + std::to_string(plan));
      continue;
    }
    poison(w, stream);
    const int rc = var.run(w, stream);
    const bool clean = sync_and_check(stream, test, var.name.c_str());
    if (rc != PTXB_OK || !clean) {
      report(test, var.name, false,
             "run returned " + std::to_string(rc) + (clean ? "" : ", launch/execution error"));
      continue;
    }
    const Verdict v = verify_outputs(w, stream, test);
    report(test, var.name, v.pass, v.detail);
  }
  const bool unchanged = sums[0] == checksum(w.q.get(), w.q_elems, stream) &&
                         sums[1] == checksum(w.k.get(), w.kv_elems, stream) &&
                         sums[2] == checksum(w.v.get(), w.kv_elems, stream) &&
                         sums[3] == checksum(w.cu.get(), 2 * (c.batch() + 1), stream);
  report(test, "inputs-unchanged", unchanged,
         unchanged ? "Q, K, V, cu_seqlens checksums equal" : "MODIFIED");
  cudaStreamDestroy(stream);
}

void time_case(const Case& c, const std::string& test) {
  constexpr int kWarmup = 3, kSamples = 20;
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  std::printf("CASE %s: %s\n", test.c_str(), c.describe().c_str());
  Workload w(c);
  DeviceBuffer scrub(256ull << 20);
  if (!scrub.ok() || !prepare(w, stream, test)) {
    report(test, "-", false, "inputs, scrub buffer or reference failed (see above)");
    cudaStreamDestroy(stream);
    return;
  }
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (Variant& var : variants()) {
    std::printf("RUN %s %s\n", test.c_str(), var.name.c_str());
    std::fflush(stdout);
    if (var.prepare(w) != PTXB_OK) {
      report(test, var.name, false, "plan/attributes failed");
      continue;
    }
    std::vector<float> us;
    bool clean = true;
    for (int it = 0; it < kWarmup + kSamples && clean; ++it) {
      cudaMemsetAsync(scrub.get(), it & 0xFF, scrub.bytes(), stream);  // L2 scrub, untimed
      poison(w, stream);
      cudaEventRecord(start, stream);
      const int rc = var.run(w, stream);
      cudaEventRecord(stop, stream);
      clean = sync_and_check(stream, test, var.name.c_str()) && rc == PTXB_OK;
      float ms = 0;
      cudaEventElapsedTime(&ms, start, stop);
      if (it >= kWarmup) us.push_back(ms * 1e3f);
    }
    if (!clean) {
      report(test, var.name, false, "launch/execution error while timing");
      continue;
    }
    std::sort(us.begin(), us.end());
    const double median_us = (us[kSamples / 2 - 1] + us[kSamples / 2]) / 2;
    const Verdict v = verify_outputs(w, stream, test);  // the output of the last timed call
    char buf[256];
    std::snprintf(buf, sizeof(buf), "median_us=%.1f min_us=%.1f max_us=%.1f TFLOPs=%.1f | ",
                  median_us, us.front(), us.back(), c.flops() / (median_us * 1e-6) / 1e12);
    report(test, var.name, v.pass, buf + v.detail);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaStreamDestroy(stream);
}

// ---- ABI validation: every malformed problem is refused before any launch ----
void abi_validation(const std::string& test) {
  const Case good{"", {1, 300, 128}, 4, 2, 128, true};
  auto set_head_dim = [](AbiProblem& p, int64_t d) {
    for (auto* t : {&p.in[0], &p.in[1], &p.in[2], &p.out[0]}) {
      t->shape[2] = d;
      t->strides[1] = d;
      t->strides[0] = d * t->shape[1];
    }
  };
  struct Spoil {
    const char* what;
    std::function<void(AbiProblem&)> spoil;
  };
  const Spoil cases[] = {
      {"valid problem", [](AbiProblem&) {}},
      {"f16 Q", [](AbiProblem& p) { p.in[0].dtype = PTXB_F16; }},
      {"rank-4 K", [](AbiProblem& p) { p.in[1].rank = 4; }},
      {"head dim 96", [&](AbiProblem& p) { set_head_dim(p, 96); }},
      {"non-contiguous V", [](AbiProblem& p) { p.in[2].strides[1] = 256; }},
      {"H % HKV != 0",
       [](AbiProblem& p) {
         p.in[1].shape[1] = p.in[2].shape[1] = 3;
         p.in[1].strides[0] = p.in[2].strides[0] = 3 * p.in[1].strides[1];
       }},
      {"K tokens != Q tokens", [](AbiProblem& p) { p.in[1].shape[0] = p.in[2].shape[0] = 428; }},
      {"i64 cu_seqlens", [](AbiProblem& p) { p.in[3].dtype = PTXB_I64; }},
      {"rank-2 cu_seqlens",
       [](AbiProblem& p) {
         p.in[3] = make_desc(PTXB_I32, {1, 4});
       }},
      {"cu_seqlens of one value", [](AbiProblem& p) { p.in[3] = make_desc(PTXB_I32, {1}); }},
      {"f32 O", [](AbiProblem& p) { p.out[0].dtype = PTXB_F32; }},
      {"O tokens != Q tokens", [](AbiProblem& p) { p.out[0].shape[0] = 428; }},
      {"LSE output too", [](AbiProblem& p) { p.problem.num_outputs = 2; }},
      {"three inputs", [](AbiProblem& p) { p.problem.num_inputs = 3; }},
      {"two scalars", [](AbiProblem& p) { p.problem.num_scalars = 2; }},
      {"max_seqlen 0", [](AbiProblem& p) { p.scalars[2] = 0.0; }},
      {"max_seqlen 2.5", [](AbiProblem& p) { p.scalars[2] = 2.5; }},
      {"max_seqlen NaN", [](AbiProblem& p) { p.scalars[2] = std::nan(""); }},
      {"causal 0.5", [](AbiProblem& p) { p.scalars[1] = 0.5; }},
      {"scale 0", [](AbiProblem& p) { p.scalars[0] = 0.0; }},
  };
  for (const Spoil& c : cases) {
    AbiProblem p;
    build_abi(good, &p);
    c.spoil(p);
    p.problem.inputs = p.in;
    p.problem.outputs = p.out;
    p.problem.scalars = p.scalars;
    uint64_t ws = 1;
    const int plan = ptxb_plan(&p.problem, &ws);
    const void* ins[4] = {nullptr, nullptr, nullptr, nullptr};
    void* outs[1] = {nullptr};
    const ptxb_args args{&p.problem, ins, outs, nullptr, 0, nullptr};
    const bool valid = std::strcmp(c.what, "valid problem") == 0;
    // NOTE: the valid problem is only planned: running it would need real pointers.
    const int run = valid ? PTXB_OK : ptxb_run(&args);
    const bool pass =
        valid ? (plan == PTXB_OK && ws <= kSlotCounterBytes) : (plan != PTXB_OK && run != PTXB_OK);
    report(test, c.what, pass,
           "plan=" + std::to_string(plan) + " run=" + std::to_string(run) +
               " workspace=" + std::to_string(ws));
  }
}

// ---- test list ----
struct Test {
  std::string name;
  std::function<void(const std::string&)> fn;
};

std::vector<Test> all_tests() {
  std::vector<Test> t;
  t.push_back({"abi.validation", abi_validation});
  // The edge lengths around the 128-row tile, short (decode-like) sequences, a single sequence,
  // a looser max_seqlen, GQA groups 2, 3, 4 and 8, and peaked inputs.
  const std::vector<int> edge = {1, 127, 128, 129, 1000, 255, 2048};
  const std::vector<int> edge2 = {129, 1, 1000, 128, 127, 1536, 64, 2, 383, 385};
  const std::vector<int> gqa = {1000, 1, 129, 3000, 127, 128};
  const Case checks[] = {
      {"edge.d128.full", edge, 4, 4, 128, false},
      {"edge.d128.causal", edge, 4, 4, 128, true},
      {"edge.d64.full.gqa2", edge2, 8, 4, 64, false},
      {"edge.d64.causal.gqa2", edge2, 8, 4, 64, true},
      {"gqa8.d128.causal", gqa, 16, 2, 128, true},
      {"gqa8.d128.full", gqa, 16, 2, 128, false},
      {"gqa8.d64.causal", gqa, 16, 2, 64, true},
      {"single777.d128.causal.gqa3", {777}, 3, 1, 128, true},
      {"single1.d64.full", {1}, 2, 2, 64, false},
      {"ones200.d128.causal", std::vector<int>(200, 1), 4, 4, 128, true},
      // More sequences than threads per CTA: the packed grid's search takes several passes.
      {"many900.d64.causal.gqa2", random_lengths(900, 1, 300, 14, {300, 128, 1}), 4, 2, 64, true},
      {"many500.d128.full", random_lengths(500, 1, 200, 15, {129}), 2, 2, 128, false},
      // More sequences than the persistent scheduler caches (2048): it reads cu_seqlens itself.
      {"many2100.d64.causal", random_lengths(2100, 1, 200, 16, {200, 128, 129}), 2, 2, 64, true},
      {"short48.d128.causal.gqa4", random_lengths(48, 1, 127, 7), 8, 2, 128, true},
      {"short64.d64.full", random_lengths(64, 1, 130, 8), 4, 4, 64, false},
      {"random13.d128.causal.loose", random_lengths(13, 1, 1500, 9, {1500}), 8, 8, 128, true, 300},
      {"random13.d64.full.loose", random_lengths(13, 1, 1500, 10, {1500}), 8, 8, 64, false, 700},
      {"random10.d128.full.gqa4.peaked", random_lengths(10, 1, 2500, 11, {2500}), 8, 2, 128, false,
       0, 2.f},
      {"random10.d64.causal.gqa4.peaked", random_lengths(10, 1, 2500, 12, {2500}), 8, 2, 64, true,
       0, 2.f},
      // The task's visible small shapes (B x T x S), normal and peaked (N(0, 4)) inputs.
      {"task.3x300x200.d64.causal", task_lengths(3, 300, 200), 4, 4, 64, true},
      {"task.3x300x200.d64.causal.peaked", task_lengths(3, 300, 200), 4, 4, 64, true, 0, 2.f},
      {"task.5x700x256.d128.full.gqa4", task_lengths(5, 700, 256), 8, 2, 128, false},
      {"task.5x700x256.d128.full.gqa4.peaked", task_lengths(5, 700, 256), 8, 2, 128, false, 0, 2.f},
  };
  for (const Case& c : checks)
    t.push_back({"check." + c.name, [c](const std::string& n) { check_case(c, n); }});
  // The task's timed shapes (B x T x S, its own lengths); the brief's large case: 16 sequences up
  // to 8192 (T = 40120) in mixed order; four 4096-long sequences, comparable with fwd_dev's dense
  // 4x16x16x4096x128 timings; many short sequences.
  const std::vector<int> mixed = {1500, 8192, 300,  4000, 127, 2500, 6000, 1,
                                  900,  3500, 1800, 4500, 600, 3000, 1200, 2000};
  const std::vector<int> uniform(4, 4096);
  const Case timed[] = {
      {"task.16x32768x16384.d128.full", task_lengths(16, 32768, 16384), 16, 16, 128, false},
      {"task.32x65536x8192.d128.causal.gqa4", task_lengths(32, 65536, 8192), 32, 8, 128, true},
      {"task.64x32768x2048.d64.causal.gqa4", task_lengths(64, 32768, 2048), 16, 4, 64, true},
      {"mixed16.d128.causal", mixed, 16, 16, 128, true},
      {"mixed16.d128.full", mixed, 16, 16, 128, false},
      {"mixed16.d128.causal.gqa4", mixed, 32, 8, 128, true},
      {"mixed16.d64.causal", mixed, 16, 16, 64, true},
      {"uniform4x4096.d128.causal", uniform, 16, 16, 128, true},
      {"uniform4x4096.d128.full", uniform, 16, 16, 128, false},
      {"short256.d128.causal", random_lengths(256, 1, 255, 13), 16, 16, 128, true},
  };
  for (const Case& c : timed)
    t.push_back({"time." + c.name, [c](const std::string& n) { time_case(c, n); }});
  return t;
}

}  // namespace dev

int main(int argc, char** argv) {
  std::vector<std::string> only;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--list") == 0) {
      list = true;
    } else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      only.push_back(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--list] [--only NAME]...\n", argv[0]);
      return 2;
    }
  }
  const auto tests = dev::all_tests();
  if (list) {
    for (const auto& t : tests) std::printf("%s\n", t.name.c_str());
    return 0;
  }
  std::printf(
      "INFO default schedule: %s; grid: %s; split P V: %d; watchdog: %d; smem bytes d64=%zu "
      "d128=%zu\n",
      dev::schedule_name(kDefaultSchedule),
      kDefaultGrid == Grid::kPacked       ? "packed"
      : kDefaultGrid == Grid::kPersistent ? "persistent"
                                          : "per-sequence",
      int(kSplitPvDefault), PTXB_ATTN_WATCHDOG, kSharedBytes<64>, kSharedBytes<128>);
  int ran = 0;
  for (const auto& t : tests) {
    if (!only.empty() && std::find(only.begin(), only.end(), t.name) == only.end()) continue;
    ++ran;
    std::printf("BEGIN %s\n", t.name.c_str());
    std::fflush(stdout);
    try {
      t.fn(t.name);
    } catch (const std::exception& e) {
      dev::report(t.name, "-", false, std::string("exception: ") + e.what());
    }
  }
  if (ran == 0) {
    std::fprintf(stderr, "no test matched\n");
    return 2;
  }
  return dev::g_failures == 0 ? 0 : 1;
}
