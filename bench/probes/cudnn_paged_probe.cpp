// Probe: does cuDNN's SDPA forward with a paged KV cache (cudnn-frontend graph API) work on
// Hopper for LLM decode, and how fast is it? Answers whether a future PTXBench task
// sm90/attention/decode-paged can take it as its timed baseline.
//
// Problem: B sequences, q_len new query tokens each (the LAST q_len positions of the sequence:
// causal masking is bottom-right aligned), H query heads, HKV kv heads, D 128, bf16 in and out,
// fp32 softmax statistics (LSE). K and V live in a pool of pages of P tokens; page_table[B,
// max_pages] (int32) maps a sequence's page index to a page of the pool; pages are handed out in
// a shuffled order. Per variant (each independent: a failure does not stop the others) it prints
// built or the exact error, the plans offered and built (at most PROBE_MAX_PLANS per graph,
// default 3), each plan's median device time over 10 runs after 3 warm-ups (the host's enqueue
// kept out of the timing by a host-function gate), the effective HBM bandwidth (bytes of the K/V
// pages the sequences cover + Q + O, per second) and the max abs error of O and LSE against an
// fp64 CPU reference (every row on the small shape, a few rows on the timing shapes).
// Variants: cuDNN's native paged layout (K/V containers [num_pages, HKV, P, D] row-major), the
// vLLM layout [num_pages, P, HKV, D] expressed through strides on the same logical dims, and the
// native layout without the LSE output.
//
// Build and run on the GPU machine: bench/probes/cudnn_paged_probe.sh OUT_DIR (the script holds
// the build command). By hand: ./cudnn_paged_probe [LIBCUDNN_PATH_OR_SONAME]; environment:
// PROBE_MAX_PLANS (plans built per graph, default 3), PROBE_BUDGET_S (no new variant starts after
// this many seconds, default 80). libcudnn is opened at run time (the frontend's dynamic loading,
// as in src/baselines/cudnn_library.cpp), so the library actually used is the one named here.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <cudnn_frontend.h>

// The frontend's dynamic loading resolves every cuDNN symbol through this handle.
namespace cudnn_frontend {
void* cudnn_dlhandle = nullptr;
}  // namespace cudnn_frontend

namespace {

namespace fe = cudnn_frontend;
using Clock = std::chrono::steady_clock;

constexpr int64_t kD = 128;
constexpr int kWarmups = 3, kTimedRuns = 10;
enum Uid : int64_t { kQ = 1, kK, kV, kO, kStats, kSeqQ, kSeqKV, kTableK, kTableV };

const Clock::time_point g_start = Clock::now();
double elapsed_s() { return std::chrono::duration<double>(Clock::now() - g_start).count(); }

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(e) + " (" +
                             cudaGetErrorString(e) + ")");
}

const char* error_name(fe::error_code_t code) {
  using fe::error_code_t;
  switch (code) {
    case error_code_t::OK:
      return "OK";
    case error_code_t::ATTRIBUTE_NOT_SET:
      return "ATTRIBUTE_NOT_SET";
    case error_code_t::SHAPE_DEDUCTION_FAILED:
      return "SHAPE_DEDUCTION_FAILED";
    case error_code_t::INVALID_TENSOR_NAME:
      return "INVALID_TENSOR_NAME";
    case error_code_t::INVALID_VARIANT_PACK:
      return "INVALID_VARIANT_PACK";
    case error_code_t::GRAPH_NOT_SUPPORTED:
      return "GRAPH_NOT_SUPPORTED";
    case error_code_t::GRAPH_EXECUTION_PLAN_CREATION_FAILED:
      return "GRAPH_EXECUTION_PLAN_CREATION_FAILED";
    case error_code_t::GRAPH_EXECUTION_FAILED:
      return "GRAPH_EXECUTION_FAILED";
    case error_code_t::HEURISTIC_QUERY_FAILED:
      return "HEURISTIC_QUERY_FAILED";
    case error_code_t::UNSUPPORTED_GRAPH_FORMAT:
      return "UNSUPPORTED_GRAPH_FORMAT";
    case error_code_t::CUDA_API_FAILED:
      return "CUDA_API_FAILED";
    case error_code_t::CUDNN_BACKEND_API_FAILED:
      return "CUDNN_BACKEND_API_FAILED";
    case error_code_t::INVALID_CUDA_DEVICE:
      return "INVALID_CUDA_DEVICE";
    case error_code_t::HANDLE_ERROR:
      return "HANDLE_ERROR";
    case error_code_t::INVALID_VALUE:
      return "INVALID_VALUE";
    case error_code_t::NVRTC_COMPILATION_FAILED:
      return "NVRTC_COMPILATION_FAILED";
    default:
      return "unknown frontend error";
  }
}

std::string describe(const char* step, fe::error_t e) {
  return std::string(step) + ": " + error_name(e.get_code()) + ": " + e.get_message();
}

// Single-line text for the RESULT table (messages may hold newlines and tabs).
std::string one_line(std::string s, size_t limit = 400) {
  for (char& c : s)
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
  if (s.size() > limit) s = s.substr(0, limit) + "...";
  return s;
}

uint16_t to_bf16(float f) {  // round to nearest even
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7FFF + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

float from_bf16(uint16_t h) {
  const uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

struct DeviceBuffer {
  void* ptr = nullptr;
  size_t bytes = 0;
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t n) : bytes(n) {
    check_cuda(cudaMalloc(&ptr, std::max<size_t>(n, 16)), "cudaMalloc");
  }
  ~DeviceBuffer() {
    if (ptr) cudaFree(ptr);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr(o.ptr), bytes(o.bytes) { o.ptr = nullptr; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr, o.ptr);
    std::swap(bytes, o.bytes);
    return *this;
  }
};

// All bf16 data is a repeated pattern of N(0, 1) values: element e of a buffer filled with phase
// p holds pattern[(e + p) % kPatternLen], so the host knows every device value without a copy
// of the multi-GB pools. The length is prime: pages and heads do not line up with the period.
constexpr int64_t kPatternLen = 4194301;
constexpr int64_t kPhaseQ = 2718281, kPhaseK = 0, kPhaseV = 1234567;

struct Pattern {
  std::vector<uint16_t> bits;
  std::vector<float> values;
  Pattern() : bits(kPatternLen), values(kPatternLen) {
    std::mt19937 rng(0x5eed);
    std::normal_distribution<float> normal(0.f, 1.f);
    for (int64_t i = 0; i < kPatternLen; ++i) {
      bits[i] = to_bf16(normal(rng));
      values[i] = from_bf16(bits[i]);
    }
  }
  // D consecutive values from element `index` of a buffer filled with `phase`.
  void row(int64_t phase, int64_t index, double* out) const {
    int64_t k = (index + phase) % kPatternLen;
    for (int64_t d = 0; d < kD; ++d, ++k) {
      if (k == kPatternLen) k = 0;
      out[d] = values[k];
    }
  }
  void fill(DeviceBuffer& buffer, int64_t elements, int64_t phase) const {
    uint16_t* staging = nullptr;  // pinned: the multi-GB pools copy at full PCIe speed
    check_cuda(cudaMallocHost(&staging, kPatternLen * sizeof(uint16_t)), "cudaMallocHost");
    for (int64_t i = 0; i < kPatternLen; ++i) staging[i] = bits[(i + phase) % kPatternLen];
    auto* dst = static_cast<uint16_t*>(buffer.ptr);
    for (int64_t off = 0; off < elements; off += kPatternLen)
      check_cuda(
          cudaMemcpy(dst + off, staging, std::min(kPatternLen, elements - off) * sizeof(uint16_t),
                     cudaMemcpyHostToDevice),
          "cudaMemcpy (fill)");
    cudaFreeHost(staging);
  }
};

enum class Layout { kNative, kVllm };

struct Variant {
  std::string name;
  Layout layout;
  int64_t q_len;
  bool causal;  // bottom-right aligned, right bound 0
  bool stats;   // generate_stats (LSE output)
};

constexpr int64_t kMaxQLen = 8;  // Q, O, LSE buffers are sized for the longest q_len

struct Shape {
  std::string name;
  int64_t B = 0, H = 0, HKV = 0, P = 0;
  std::vector<int> lens;    // seq_len_kv per sequence (includes the q_len new tokens)
  bool full_check = false;  // reference for every row; else a few spot rows
  int64_t max_pages = 0, used_pages = 0, pool_pages = 0;
  std::vector<int32_t> table;  // [B, max_pages]
  DeviceBuffer k, v, q, o, lse, table_dev, seq_q_dev, seq_kv_dev;

  Shape(std::string name_, int64_t b, int64_t h, int64_t hkv, int64_t p, std::vector<int> lens_,
        bool full)
      : name(std::move(name_)),
        B(b),
        H(h),
        HKV(hkv),
        P(p),
        lens(std::move(lens_)),
        full_check(full) {}

  int64_t pool_elements() const { return pool_pages * HKV * P * kD; }
  int64_t kv_bytes_read() const {  // whole pages the sequences cover, K and V
    int64_t tokens = 0;
    for (int len : lens) tokens += (len + P - 1) / P * P;
    return tokens * HKV * kD * 2 * 2;
  }
};

// The pool and its shuffled page table, the seq_len_kv array, and Q, K, V filled from the pattern.
void materialize(Shape& s, const Pattern& pattern, uint32_t seed) {
  const int64_t B = s.B;
  int max_len = *std::max_element(s.lens.begin(), s.lens.end());
  s.max_pages = (max_len + s.P - 1) / s.P;
  s.used_pages = 0;
  for (int len : s.lens) s.used_pages += (len + s.P - 1) / s.P;
  s.pool_pages = s.used_pages + s.used_pages / 8 + 1;  // some pages belong to nobody
  std::vector<int32_t> order(s.pool_pages);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  s.table.assign(B * s.max_pages, 0);  // entries past a sequence's pages: page 0 (never read)
  int64_t next = 0;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t p = 0; p < (s.lens[b] + s.P - 1) / s.P; ++p)
      s.table[b * s.max_pages + p] = order[next++];

  const int64_t pool = s.pool_elements();
  s.k = DeviceBuffer(pool * 2);
  s.v = DeviceBuffer(pool * 2);
  pattern.fill(s.k, pool, kPhaseK);
  pattern.fill(s.v, pool, kPhaseV);
  const int64_t q_elements = B * s.H * kMaxQLen * kD;
  s.q = DeviceBuffer(q_elements * 2);
  pattern.fill(s.q, q_elements, kPhaseQ);
  s.o = DeviceBuffer(q_elements * 2);
  s.lse = DeviceBuffer(B * s.H * kMaxQLen * sizeof(float));
  s.table_dev = DeviceBuffer(s.table.size() * sizeof(int32_t));
  check_cuda(cudaMemcpy(s.table_dev.ptr, s.table.data(), s.table.size() * sizeof(int32_t),
                        cudaMemcpyHostToDevice),
             "cudaMemcpy (page table)");
  s.seq_q_dev = DeviceBuffer(B * sizeof(int32_t));
  s.seq_kv_dev = DeviceBuffer(B * sizeof(int32_t));
  std::vector<int32_t> kv(s.lens.begin(), s.lens.end());
  check_cuda(cudaMemcpy(s.seq_kv_dev.ptr, kv.data(), B * sizeof(int32_t), cudaMemcpyHostToDevice),
             "cudaMemcpy (seq_len_kv)");
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (inputs)");
}

// Element index in the pool of K/V row (sequence b, kv head g, token j).
int64_t pool_row(const Shape& s, Layout layout, int64_t b, int64_t g, int64_t j) {
  const int64_t page = s.table[b * s.max_pages + j / s.P], t = j % s.P;
  return layout == Layout::kNative ? ((page * s.HKV + g) * s.P + t) * kD
                                   : ((page * s.P + t) * s.HKV + g) * kD;
}

// fp64 reference of one output row (sequence b, head h, query i of q_len): the keys the row
// may see are gathered through the page table; query i sits at position len - q_len + i.
void reference_row(const Shape& s, const Variant& v, const Pattern& pattern, int64_t b, int64_t h,
                   int64_t i, std::vector<double>& out, double& lse) {
  const int64_t g = h / (s.H / s.HKV), len = s.lens[b];
  const int64_t visible = v.causal ? len - v.q_len + i + 1 : len;
  const double scale = 1.0 / std::sqrt(static_cast<double>(kD));
  double q[kD], row[kD];
  pattern.row(kPhaseQ, ((b * s.H + h) * v.q_len + i) * kD, q);
  std::vector<double> score(visible);
  double max_score = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < visible; ++j) {
    pattern.row(kPhaseK, pool_row(s, v.layout, b, g, j), row);
    double dot = 0;
    for (int64_t d = 0; d < kD; ++d) dot += q[d] * row[d];
    score[j] = dot * scale;
    max_score = std::max(max_score, score[j]);
  }
  out.assign(kD, 0.0);
  double sum = 0;
  for (int64_t j = 0; j < visible; ++j) {
    const double p = std::exp(score[j] - max_score);
    sum += p;
    pattern.row(kPhaseV, pool_row(s, v.layout, b, g, j), row);
    for (int64_t d = 0; d < kD; ++d) out[d] += p * row[d];
  }
  for (int64_t d = 0; d < kD; ++d) out[d] /= sum;
  lse = max_score + std::log(sum);
}

// Keeps the stream closed while the host enqueues one timed call (cuDNN's execute path is host
// work that would otherwise sit between the events): a host function spins until release(), or
// gives up after 200 ms (an execute that waits on the stream itself would otherwise deadlock).
class LaunchGate {
 public:
  void hold(cudaStream_t stream) {
    target_.store(++generation_);
    check_cuda(cudaLaunchHostFunc(stream, &LaunchGate::wait, this), "cudaLaunchHostFunc");
  }
  void release() { released_.store(generation_, std::memory_order_release); }
  int expired() const { return expired_.load(); }

 private:
  static void CUDART_CB wait(void* self) {
    auto* gate = static_cast<LaunchGate*>(self);
    const auto deadline = Clock::now() + std::chrono::milliseconds(200);
    while (gate->released_.load(std::memory_order_acquire) < gate->target_.load()) {
      if (Clock::now() > deadline) {
        ++gate->expired_;
        return;
      }
    }
  }
  std::atomic<uint32_t> released_{0}, target_{0};
  uint32_t generation_ = 0;
  std::atomic<int> expired_{0};
};

struct PlanResult {
  int64_t index = 0;
  std::string name, error;
  bool built = false, ran = false;
  double build_s = 0, median_us = 0;
  int64_t workspace = 0;
  double err_o = 0, err_lse = 0;  // max abs error over the checked rows (inf: NaN seen)
  int64_t nonfinite_o = 0;        // NaN/inf elements anywhere in O
  int gate_expired = 0;
};

std::shared_ptr<fe::graph::Graph> make_graph(const Shape& s, const Variant& v) {
  auto graph = std::make_shared<fe::graph::Graph>();
  graph->set_io_data_type(fe::DataType_t::BFLOAT16)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  const int64_t B = s.B, H = s.H, HKV = s.HKV, P = s.P, q = v.q_len, pages = s.pool_pages;
  const std::vector<int64_t> q_dims = {B, H, q, kD}, q_strides = {H * q * kD, q * kD, kD, 1};
  auto q_t = graph->tensor(
      fe::graph::Tensor_attributes().set_name("Q").set_uid(kQ).set_dim(q_dims).set_stride(
          q_strides));
  // Containers: logical dims [num_pages, HKV, P, D] either way; the vLLM layout stores a page
  // token-major ([num_pages, P, HKV, D] in memory).
  const std::vector<int64_t> kv_dims = {pages, HKV, P, kD};
  const std::vector<int64_t> kv_strides = v.layout == Layout::kNative
                                              ? std::vector<int64_t>{HKV * P * kD, P * kD, kD, 1}
                                              : std::vector<int64_t>{P * HKV * kD, kD, HKV * kD, 1};
  auto container = [&](const char* name, int64_t uid) {
    return graph->tensor(
        fe::graph::Tensor_attributes().set_name(name).set_uid(uid).set_dim(kv_dims).set_stride(
            kv_strides));
  };
  auto k_t = container("container_K", kK), v_t = container("container_V", kV);
  auto int_tensor = [&](const char* name, int64_t uid, std::vector<int64_t> dims,
                        std::vector<int64_t> strides) {
    return graph->tensor(fe::graph::Tensor_attributes()
                             .set_name(name)
                             .set_uid(uid)
                             .set_dim(dims)
                             .set_stride(strides)
                             .set_data_type(fe::DataType_t::INT32));
  };
  auto seq_q = int_tensor("seq_len_q", kSeqQ, {B, 1, 1, 1}, {1, 1, 1, 1});
  auto seq_kv = int_tensor("seq_len_kv", kSeqKV, {B, 1, 1, 1}, {1, 1, 1, 1});
  const int64_t mp = s.max_pages;
  auto table_k = int_tensor("page_table_k", kTableK, {B, 1, mp, 1}, {mp, mp, 1, 1});
  auto table_v = int_tensor("page_table_v", kTableV, {B, 1, mp, 1}, {mp, mp, 1, 1});

  auto attrs = fe::graph::SDPA_attributes()
                   .set_name("paged_decode")
                   .set_generate_stats(v.stats)
                   .set_attn_scale(static_cast<float>(1.0 / std::sqrt(static_cast<double>(kD))))
                   .set_padding_mask(true)
                   .set_seq_len_q(seq_q)
                   .set_seq_len_kv(seq_kv)
                   .set_paged_attention_k_table(table_k)
                   .set_paged_attention_v_table(table_v)
                   // The paged-cache load requires table size == ceil(max_seq_len_kv / P).
                   .set_paged_attention_max_seq_len_kv(static_cast<int>(mp * P));
  if (v.causal)
    attrs.set_diagonal_alignment(fe::DiagonalAlignment_t::BOTTOM_RIGHT)
        .set_diagonal_band_right_bound(0);
  auto [o, stats] = graph->sdpa(q_t, k_t, v_t, attrs);
  o->set_output(true).set_uid(kO).set_dim(q_dims).set_stride(q_strides);
  if (v.stats)
    stats->set_output(true)
        .set_uid(kStats)
        .set_data_type(fe::DataType_t::FLOAT)
        .set_dim({B, H, q, 1})
        .set_stride({H * q, q, 1, 1});
  return graph;
}

// Rows compared with the reference: every row, or sequences {first, longest, last} x heads
// {0, H-1} x every query.
std::vector<std::array<int64_t, 3>> rows_to_check(const Shape& s, const Variant& v) {
  std::vector<int64_t> seqs, heads;
  if (s.full_check) {
    seqs.resize(s.B);
    std::iota(seqs.begin(), seqs.end(), 0);
    heads.resize(s.H);
    std::iota(heads.begin(), heads.end(), 0);
  } else {
    const int64_t longest = std::max_element(s.lens.begin(), s.lens.end()) - s.lens.begin();
    for (int64_t b : {int64_t{0}, longest, s.B - 1})
      if (std::find(seqs.begin(), seqs.end(), b) == seqs.end()) seqs.push_back(b);
    heads = {0, s.H - 1};
  }
  std::vector<std::array<int64_t, 3>> rows;
  for (int64_t b : seqs)
    for (int64_t h : heads)
      for (int64_t i = 0; i < v.q_len; ++i) rows.push_back({b, h, i});
  return rows;
}

struct Reference {
  std::vector<std::array<int64_t, 3>> rows;
  std::vector<std::vector<double>> o;
  std::vector<double> lse;
};

Reference compute_reference(const Shape& s, const Variant& v, const Pattern& pattern) {
  Reference r;
  r.rows = rows_to_check(s, v);
  r.o.resize(r.rows.size());
  r.lse.resize(r.rows.size());
  for (size_t n = 0; n < r.rows.size(); ++n)
    reference_row(s, v, pattern, r.rows[n][0], r.rows[n][1], r.rows[n][2], r.o[n], r.lse[n]);
  return r;
}

double abs_err(double got, double want) {
  const double e = std::fabs(got - want);
  return std::isfinite(e) ? e : std::numeric_limits<double>::infinity();
}

// Copies O (and LSE) back and compares the checked rows with the reference.
void compare(const Shape& s, const Variant& v, const Reference& ref, PlanResult& r) {
  const int64_t rows_total = s.B * s.H * v.q_len;
  std::vector<uint16_t> o(rows_total * kD);
  std::vector<float> lse(rows_total);
  check_cuda(cudaMemcpy(o.data(), s.o.ptr, o.size() * 2, cudaMemcpyDeviceToHost), "copy O");
  if (v.stats)
    check_cuda(cudaMemcpy(lse.data(), s.lse.ptr, lse.size() * 4, cudaMemcpyDeviceToHost),
               "copy LSE");
  r.nonfinite_o = 0;
  for (uint16_t x : o)
    if (!std::isfinite(from_bf16(x))) ++r.nonfinite_o;
  r.err_o = r.err_lse = 0;
  for (size_t n = 0; n < ref.rows.size(); ++n) {
    const int64_t row = (ref.rows[n][0] * s.H + ref.rows[n][1]) * v.q_len + ref.rows[n][2];
    for (int64_t d = 0; d < kD; ++d)
      r.err_o = std::max(r.err_o, abs_err(from_bf16(o[row * kD + d]), ref.o[n][d]));
    if (v.stats) r.err_lse = std::max(r.err_lse, abs_err(lse[row], ref.lse[n]));
  }
}

struct VariantResult {
  std::string status = "OK";  // or the first error that stopped the variant
  int64_t offered = 0, built = 0, ran = 0;
  std::vector<PlanResult> plans;
  int chosen = -1;  // index into plans: fastest that ran
  double build_s = 0;
};

int max_plans() {
  const char* env = std::getenv("PROBE_MAX_PLANS");
  return env ? std::max(1, std::atoi(env)) : 3;
}

double budget_s() {
  const char* env = std::getenv("PROBE_BUDGET_S");
  return env ? std::atof(env) : 80.0;
}

VariantResult run_variant(Shape& s, const Variant& v, const Pattern& pattern, cudnnHandle_t handle,
                          cudaStream_t stream) {
  VariantResult res;
  const auto t0 = Clock::now();
  std::vector<int32_t> seq_q(s.B, static_cast<int32_t>(v.q_len));
  check_cuda(
      cudaMemcpy(s.seq_q_dev.ptr, seq_q.data(), s.B * sizeof(int32_t), cudaMemcpyHostToDevice),
      "cudaMemcpy (seq_len_q)");
  // The stream is non-blocking: make sure every copy issued on the legacy stream has landed.
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize (inputs)");

  auto graph = make_graph(s, v);
  if (auto e = graph->validate(); e.is_bad()) return res.status = describe("validate", e), res;
  if (auto e = graph->build_operation_graph(handle); e.is_bad())
    return res.status = describe("build_operation_graph", e), res;
  if (auto e = graph->create_execution_plans({fe::HeurMode_t::A, fe::HeurMode_t::FALLBACK});
      e.is_bad())
    return res.status = describe("create_execution_plans", e), res;
  res.offered = graph->get_execution_plan_count();
  const int64_t limit = std::min<int64_t>(res.offered, max_plans());
  for (int64_t index = 0; index < limit; ++index) {
    PlanResult p;
    p.index = index;
    if (graph->get_plan_name_at_index(index, p.name).is_bad()) p.name = "(no name)";
    const auto b0 = Clock::now();
    fe::error_t e = graph->build_plan_at_index(index);
    p.build_s = std::chrono::duration<double>(Clock::now() - b0).count();
    if (e.is_bad()) {
      p.error = describe("build_plan_at_index", e);
    } else if (auto w = graph->get_workspace_size_plan_at_index(index, p.workspace); w.is_bad()) {
      p.error = describe("get_workspace_size_plan_at_index", w);
    } else {
      p.built = true;
      ++res.built;
    }
    std::printf("    plan %lld %s: %s in %.2f s, workspace %lld bytes %s\n",
                static_cast<long long>(index), p.name.c_str(), p.built ? "built" : "NOT built",
                p.build_s, static_cast<long long>(p.workspace), p.error.c_str());
    res.plans.push_back(std::move(p));
  }
  res.build_s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (res.offered == 0) return res.status = "no plan offered by the heuristics", res;
  if (res.built == 0) return res.status = "no plan built: " + res.plans[0].error, res;

  const double ref_start = elapsed_s();
  const Reference ref = compute_reference(s, v, pattern);
  std::printf("    reference: %zu rows in %.2f s\n", ref.rows.size(), elapsed_s() - ref_start);

  std::unordered_map<int64_t, void*> pack = {{kQ, s.q.ptr},
                                             {kK, s.k.ptr},
                                             {kV, s.v.ptr},
                                             {kO, s.o.ptr},
                                             {kSeqQ, s.seq_q_dev.ptr},
                                             {kSeqKV, s.seq_kv_dev.ptr},
                                             {kTableK, s.table_dev.ptr},
                                             {kTableV, s.table_dev.ptr}};
  if (v.stats) pack[kStats] = s.lse.ptr;
  const int64_t rows_total = s.B * s.H * v.q_len;
  for (PlanResult& p : res.plans) {
    if (!p.built) continue;
    try {
      DeviceBuffer workspace(static_cast<size_t>(p.workspace));
      // NaN everywhere first: an output the plan does not write shows as an error.
      check_cuda(cudaMemsetAsync(s.o.ptr, 0xFF, rows_total * kD * 2, stream), "cudaMemset O");
      check_cuda(cudaMemsetAsync(s.lse.ptr, 0xFF, rows_total * 4, stream), "cudaMemset LSE");
      fe::error_t e = graph->execute_plan_at_index(handle, pack, workspace.ptr, p.index);
      check_cuda(cudaStreamSynchronize(stream), "first execute (synchronize)");
      if (e.is_bad()) {
        p.error = describe("execute_plan_at_index", e);
        continue;
      }
      compare(s, v, ref, p);
      cudaEvent_t start, stop;
      check_cuda(cudaEventCreate(&start), "cudaEventCreate");
      check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
      LaunchGate gate;
      std::vector<double> us;
      for (int rep = 0; rep < kWarmups + kTimedRuns && p.error.empty(); ++rep) {
        gate.hold(stream);
        check_cuda(cudaEventRecord(start, stream), "cudaEventRecord");
        e = graph->execute_plan_at_index(handle, pack, workspace.ptr, p.index);
        check_cuda(cudaEventRecord(stop, stream), "cudaEventRecord");
        gate.release();
        check_cuda(cudaStreamSynchronize(stream), "timed execute (synchronize)");
        if (e.is_bad()) p.error = describe("execute_plan_at_index (timed)", e);
        float ms = 0;
        check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
        if (rep >= kWarmups) us.push_back(1000.0 * ms);
      }
      cudaEventDestroy(start);
      cudaEventDestroy(stop);
      p.gate_expired = gate.expired();
      if (!p.error.empty()) continue;
      std::sort(us.begin(), us.end());
      p.median_us = us[us.size() / 2];
      p.ran = true;
      ++res.ran;
      if (res.chosen < 0 || p.median_us < res.plans[res.chosen].median_us)
        res.chosen = static_cast<int>(&p - res.plans.data());
    } catch (const std::exception& ex) {
      p.error = ex.what();
      (void)cudaGetLastError();  // clears a non-sticky error (out of memory)
      if (cudaDeviceSynchronize() != cudaSuccess) throw;  // a fault: the context is gone
    }
  }
  for (const PlanResult& p : res.plans)
    if (p.built)
      std::printf(
          "    plan %lld %s: %s median %.1f us, max err O %.3g LSE %.3g, non-finite O %lld, "
          "gate expired %d %s\n",
          static_cast<long long>(p.index), p.name.c_str(), p.ran ? "ran" : "FAILED", p.median_us,
          p.err_o, p.err_lse, static_cast<long long>(p.nonfinite_o), p.gate_expired,
          p.error.c_str());
  if (res.ran == 0) {
    for (const PlanResult& p : res.plans)
      if (p.built) return res.status = "no plan ran: " + p.error, res;
  }
  return res;
}

std::string loaded_objects() {
  std::string found;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        const std::string path = info->dlpi_name ? info->dlpi_name : "";
        const std::string file = path.substr(path.find_last_of('/') + 1);
        for (const char* prefix : {"libcudnn", "libnvrtc", "libcudart"})
          if (file.rfind(prefix, 0) == 0) *static_cast<std::string*>(data) += "  " + path + "\n";
        return 0;
      },
      &found);
  return found;
}

std::string version_string(size_t v) {
  return std::to_string(v / 10000) + "." + std::to_string(v % 10000 / 100) + "." +
         std::to_string(v % 100);
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const std::string library = argc > 1 ? argv[1] : "libcudnn.so.9";
  // Our CUDA runtime (libcudart.so.13, linked) is the one the frontend should call too.
  setenv("CUDNN_FRONTEND_CUDART_LIB_NAME", "libcudart.so.13", /*overwrite=*/0);
  void* lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::printf("FATAL: dlopen(%s): %s\n", library.c_str(), dlerror());
    return 2;
  }
  fe::cudnn_dlhandle = lib;

  try {
    cudaDeviceProp prop{};
    check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    std::printf("GPU: %s (sm_%d%d, %d SMs, %.1f GiB), driver %d, runtime %d\n", prop.name,
                prop.major, prop.minor, prop.multiProcessorCount,
                prop.totalGlobalMem / 1073741824.0, driver, runtime);
    const size_t backend = fe::detail::get_backend_version();
    std::printf("cudnnGetVersion(): %zu (%s); cuDNN headers %d; cudnn-frontend %d.%d.%d\n", backend,
                version_string(backend).c_str(), CUDNN_VERSION, CUDNN_FRONTEND_MAJOR_VERSION,
                CUDNN_FRONTEND_MINOR_VERSION, CUDNN_FRONTEND_PATCH_VERSION);
    std::printf(
        "libcudnn requested: %s; plans built per graph: at most %d (of those offered by "
        "heuristics A + FALLBACK); budget %.0f s\n",
        library.c_str(), max_plans(), budget_s());

    cudnnHandle_t handle = nullptr;
    if (fe::detail::create_handle(&handle) != CUDNN_STATUS_SUCCESS) {
      std::printf("FATAL: cudnnCreate failed\n");
      return 2;
    }
    cudaStream_t stream = nullptr;
    check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    fe::detail::set_stream(handle, stream);

    const Pattern pattern;
    std::vector<Shape> shapes;
    shapes.emplace_back("small", 3, 8, 2, 16, std::vector<int>{37, 300, 1000}, true);
    {  // 64 sequences, lengths log-uniform in [256, 32768], one at 32768
      std::mt19937 rng(7);
      std::uniform_real_distribution<double> u(std::log(256.0), std::log(32768.0));
      std::vector<int> lens(64);
      for (int& len : lens) len = static_cast<int>(std::lround(std::exp(u(rng))));
      lens[21] = 32768;
      shapes.emplace_back("mixed32k", 64, 32, 4, 16, lens, false);
    }
    shapes.emplace_back("long128k", 8, 32, 4, 64, std::vector<int>(8, 131072), false);
    for (size_t i = 0; i < shapes.size(); ++i) {
      Shape& s = shapes[i];
      materialize(s, pattern, 100 + static_cast<uint32_t>(i));
      long long tokens = 0;
      for (int len : s.lens) tokens += len;
      std::printf(
          "shape %s: B %lld H %lld HKV %lld D %lld P %lld, %lld kv tokens (max %d), "
          "max_pages %lld, pool %lld pages (%lld used, shuffled), K+V pool %.2f GB\n",
          s.name.c_str(), (long long)s.B, (long long)s.H, (long long)s.HKV, (long long)kD,
          (long long)s.P, tokens, *std::max_element(s.lens.begin(), s.lens.end()),
          (long long)s.max_pages, (long long)s.pool_pages, (long long)s.used_pages,
          2.0 * s.pool_elements() * 2 / 1e9);
    }
    std::printf("setup done at %.1f s\n", elapsed_s());

    const Variant native_q1{"native q1", Layout::kNative, 1, false, true};
    const Variant native_q4c{"native q4 causal-br", Layout::kNative, 4, true, true};
    const Variant native_q8c{"native q8 causal-br", Layout::kNative, 8, true, true};
    const Variant native_q1_nostats{"native q1 no-stats", Layout::kNative, 1, false, false};
    const Variant native_q4c_nostats{"native q4 causal-br no-stats", Layout::kNative, 4, true,
                                     false};
    const Variant vllm_q1{"vllm-strides q1", Layout::kVllm, 1, false, true};
    const Variant vllm_q4c{"vllm-strides q4 causal-br", Layout::kVllm, 4, true, true};
    // Riskiest last (a fault in one would end the process's CUDA context for the rest).
    const std::vector<std::pair<int, Variant>> jobs = {{0, native_q1},
                                                       {0, native_q4c},
                                                       {0, native_q1_nostats},
                                                       {0, native_q4c_nostats},
                                                       {0, native_q8c},
                                                       {1, native_q1},
                                                       {1, native_q1_nostats},
                                                       {2, native_q1},
                                                       {2, native_q1_nostats},
                                                       {0, vllm_q1},
                                                       {0, vllm_q4c},
                                                       {1, vllm_q1},
                                                       {2, vllm_q1}};

    std::vector<std::string> table;
    bool printed_objects = false, context_lost = false;
    for (const auto& [shape_index, v] : jobs) {
      Shape& s = shapes[shape_index];
      std::printf("\n== %s / %s (q_len %lld, %s, stats %s) at %.1f s\n", s.name.c_str(),
                  v.name.c_str(), (long long)v.q_len, v.causal ? "bottom-right causal" : "no mask",
                  v.stats ? "on" : "off", elapsed_s());
      VariantResult r;
      if (context_lost) {
        r.status = "skipped: the CUDA context was lost earlier";
      } else if (elapsed_s() > budget_s()) {
        r.status = "skipped: time budget (PROBE_BUDGET_S) spent";
      } else {
        try {
          r = run_variant(s, v, pattern, handle, stream);
        } catch (const std::exception& e) {
          r.status = std::string("exception: ") + e.what();
          const cudaError_t sticky = cudaDeviceSynchronize();
          if (sticky != cudaSuccess) {
            context_lost = true;
            r.status += std::string(" [CUDA context lost: ") + cudaGetErrorName(sticky) + "]";
          }
        }
      }
      if (!printed_objects && r.built > 0) {
        std::printf("  loaded objects:\n%s", loaded_objects().c_str());
        printed_objects = true;
      }
      const int64_t rows = s.B * s.H * v.q_len;
      const double bytes = s.kv_bytes_read() + 2.0 * rows * kD * 2;  // K/V pages + Q + O
      char line[1024];
      if (r.chosen >= 0) {
        const PlanResult& p = r.plans[r.chosen];
        const bool pass = p.err_o <= 0.02 && (!v.stats || p.err_lse <= 1e-3) && p.nonfinite_o == 0;
        char lse[32] = "-";
        if (v.stats) std::snprintf(lse, sizeof lse, "%.2e", p.err_lse);
        std::snprintf(
            line, sizeof line, "%s\t%s\tOK\t%lld/%lld/%lld\t%s\t%.1f\t%.0f\t%.2e\t%s\t%s\t%.1f",
            s.name.c_str(), v.name.c_str(), (long long)r.offered, (long long)r.built,
            (long long)r.ran, p.name.c_str(), p.median_us, bytes / (p.median_us * 1e-6) / 1e9,
            p.err_o, lse, pass ? "pass" : "FAIL", r.build_s);
      } else {
        std::snprintf(line, sizeof line, "%s\t%s\t%s\t%lld/%lld/%lld\t-\t-\t-\t-\t-\t-\t%.1f",
                      s.name.c_str(), v.name.c_str(), one_line(r.status).c_str(),
                      (long long)r.offered, (long long)r.built, (long long)r.ran, r.build_s);
      }
      std::printf("RESULT\t%s\n", line);
      table.push_back(line);
    }

    std::printf("\nfinished at %.1f s\n", elapsed_s());
    std::printf(
        "\nSUMMARY (plans offered/built/ran; chosen = fastest plan that ran; GB/s = (K/V "
        "pages covered + Q + O) / median; errors: max abs vs fp64 reference, O over %s, "
        "pass = O <= 0.02 and LSE <= 1e-3)\n",
        "every row (small) or 3 sequences x 2 heads (timing shapes)");
    std::printf(
        "TABLE\tshape\tvariant\tstatus\tplans\tchosen\tmedian_us\tGB/s\terr_O\terr_LSE\t"
        "check\tbuild_s\n");
    for (const std::string& l : table) std::printf("TABLE\t%s\n", l.c_str());
    fe::detail::destroy_handle(handle);
    cudaStreamDestroy(stream);
  } catch (const std::exception& e) {
    std::printf("FATAL: %s\n", e.what());
    return 1;
  }
  return 0;
}
