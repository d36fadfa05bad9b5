#include "baselines/cudnn_sdpa_build.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "core/clock.hpp"
#include "cuda/cuda_check.hpp"

namespace ptxb::cudnn_sdpa {
namespace fe = cudnn_frontend;
namespace {

std::shared_ptr<fe::graph::Graph> new_bf16_graph() {
  auto graph = std::make_shared<fe::graph::Graph>();
  graph->set_io_data_type(fe::DataType_t::BFLOAT16)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  return graph;
}

// NOTE: causal = keys right of the diagonal masked; S_q == S_kv (per sequence too), so top-left
// and bottom-right alignment coincide, and top-left works on every cuDNN 9.
template <class Attributes>
void set_causal(Attributes& attrs, bool causal) {
  if (causal)
    attrs.set_diagonal_alignment(fe::DiagonalAlignment_t::TOP_LEFT)
        .set_diagonal_band_right_bound(0);
}

// The variable-length forward (THD): Q, K, V, O as [B, heads, S, D] views of the packed tensors
// (strides S*heads*D, D, heads*D, 1: token-major within a sequence), each sequence placed by its
// ragged offset (elements) and cut to its length by the padding mask; no Stats (inference).
std::shared_ptr<fe::graph::Graph> make_varlen_graph(const Dims& d) {
  auto graph = new_bf16_graph();
  auto index = [&](const char* name, int64_t uid, int64_t count) {
    return graph->tensor(fe::graph::Tensor_attributes()
                             .set_name(name)
                             .set_uid(uid)
                             .set_dim({count, 1, 1, 1})
                             .set_stride({1, 1, 1, 1})
                             .set_data_type(fe::DataType_t::INT32));
  };
  auto packed = [&](const std::shared_ptr<fe::graph::Tensor_attributes>& t, const char* name,
                    int64_t uid, int64_t heads, int64_t ragged_uid, const char* ragged_name) {
    t->set_name(name)
        .set_uid(uid)
        .set_dim({d.batch, heads, d.seq, d.head_dim})
        .set_stride({d.seq * heads * d.head_dim, d.head_dim, heads * d.head_dim, 1})
        .set_ragged_offset(index(ragged_name, ragged_uid, d.batch + 1));
    return t;
  };
  auto q =
      packed(graph->tensor(fe::graph::Tensor_attributes()), "Q", kQ, d.heads, kRaggedQ, "ragged_q");
  auto k = packed(graph->tensor(fe::graph::Tensor_attributes()), "K", kK, d.kv_heads, kRaggedK,
                  "ragged_k");
  auto v = packed(graph->tensor(fe::graph::Tensor_attributes()), "V", kV, d.kv_heads, kRaggedV,
                  "ragged_v");
  auto attrs = fe::graph::SDPA_attributes()
                   .set_name("sdpa_varlen_forward")
                   .set_generate_stats(false)
                   .set_attn_scale(d.scale)
                   .set_padding_mask(true)
                   .set_seq_len_q(index("seq_len_q", kSeqLenQ, d.batch))
                   .set_seq_len_kv(index("seq_len_kv", kSeqLenKV, d.batch));
  set_causal(attrs, d.causal);
  auto [o, stats] = graph->sdpa(q, k, v, attrs);
  packed(o, "O", kO, d.heads, kRaggedO, "ragged_o")->set_output(true);
  return graph;
}

// Paged decode: Q and O as [B, H, SQ, D] views of [B, SQ, H, D]; the caches as cuDNN's
// containers [pages, HKV, P, D] viewed on the vLLM layout [pages, P, HKV, D] through strides;
// seq_len_q (the baseline's own, SQ for every sequence) and seq_len_kv (the ABI's seq_lens) for
// the padding mask; the page table [B, 1, W, 1] bound as both the K and the V table; the paged
// load spans a whole table row (max_seq_len_kv = W * P). Stats [B, H, SQ, 1] is our LSE
// [B, SQ, H] through strides. Bottom-right causal when SQ > 1: the new tokens are the last SQ
// positions of their sequence. (bench/results/2026-12-02-h200-cudnn-paged-probe: this graph
// built, ran and matched an fp64 reference on the H200 with cuDNN 9.14.)
std::shared_ptr<fe::graph::Graph> make_paged_graph(const Dims& d) {
  auto graph = new_bf16_graph();
  const std::vector<int64_t> q_dims = {d.batch, d.heads, d.seq, d.head_dim};
  const std::vector<int64_t> q_strides = {d.seq * d.heads * d.head_dim, d.head_dim,
                                          d.heads * d.head_dim, 1};
  const std::vector<int64_t> cache_dims = {d.pages, d.kv_heads, d.page_size, d.head_dim};
  const std::vector<int64_t> cache_strides = {d.page_size * d.kv_heads * d.head_dim, d.head_dim,
                                              d.kv_heads * d.head_dim, 1};
  auto tensor = [&](const char* name, int64_t uid, const std::vector<int64_t>& dims,
                    const std::vector<int64_t>& strides) {
    return graph->tensor(
        fe::graph::Tensor_attributes().set_name(name).set_uid(uid).set_dim(dims).set_stride(
            strides));
  };
  auto q = tensor("Q", kQ, q_dims, q_strides);
  auto k = tensor("K_cache", kK, cache_dims, cache_strides);
  auto v = tensor("V_cache", kV, cache_dims, cache_strides);
  auto ints = [&](const char* name, int64_t uid, const std::vector<int64_t>& dims,
                  const std::vector<int64_t>& strides) {
    auto t = tensor(name, uid, dims, strides);
    t->set_data_type(fe::DataType_t::INT32);
    return t;
  };
  const int64_t w = d.table_width;
  auto attrs = fe::graph::SDPA_attributes()
                   .set_name("sdpa_paged_decode")
                   .set_generate_stats(true)
                   .set_attn_scale(d.scale)
                   .set_padding_mask(true)
                   .set_seq_len_q(ints("seq_len_q", kSeqLenQ, {d.batch, 1, 1, 1}, {1, 1, 1, 1}))
                   .set_seq_len_kv(ints("seq_len_kv", kSeqLenKV, {d.batch, 1, 1, 1}, {1, 1, 1, 1}))
                   .set_paged_attention_k_table(
                       ints("page_table_k", kPageTable, {d.batch, 1, w, 1}, {w, w, 1, 1}))
                   .set_paged_attention_v_table(
                       ints("page_table_v", kPageTableV, {d.batch, 1, w, 1}, {w, w, 1, 1}))
                   .set_paged_attention_max_seq_len_kv(static_cast<int>(w * d.page_size));
  if (d.causal)
    attrs.set_diagonal_alignment(fe::DiagonalAlignment_t::BOTTOM_RIGHT)
        .set_diagonal_band_right_bound(0);
  auto [o, stats] = graph->sdpa(q, k, v, attrs);
  o->set_name("O").set_uid(kO).set_dim(q_dims).set_stride(q_strides).set_output(true);
  stats->set_name("LSE")
      .set_uid(kStats)
      .set_dim({d.batch, d.heads, d.seq, 1})
      .set_stride({d.seq * d.heads, 1, d.heads, 1})
      .set_data_type(fe::DataType_t::FLOAT)
      .set_output(true);
  return graph;
}

// A bf16 graph (fp32 intermediates and compute) with every tensor bound to its ABI uid: forward =
// sdpa with generate_stats (Stats = LSE), backward = sdpa_backward from the given O, dO and Stats.
// Causal masking through the diagonal band; grouped-query attention through the K/V head count.
std::shared_ptr<fe::graph::Graph> make_graph(const Dims& d, SdpaDirection direction) {
  if (direction == SdpaDirection::kVarlenForward) return make_varlen_graph(d);
  if (direction == SdpaDirection::kPagedDecode) return make_paged_graph(d);
  auto graph = new_bf16_graph();
  const std::vector<int64_t> q_dims = {d.batch, d.heads, d.seq, d.head_dim};
  const std::vector<int64_t> kv_dims = {d.batch, d.kv_heads, d.seq, d.head_dim};
  // cuDNN's Stats is [B,H,S,1] fp32: with the trailing 1 it is our LSE [B,H,S] byte for byte.
  const std::vector<int64_t> stats_dims = {d.batch, d.heads, d.seq, 1};
  auto bind = [](const std::shared_ptr<fe::graph::Tensor_attributes>& t, const char* name,
                 int64_t uid, const std::vector<int64_t>& dims) {
    t->set_name(name).set_uid(uid).set_dim(dims).set_stride(row_major_strides(dims));
    return t;
  };
  auto input = [&](const char* name, int64_t uid, const std::vector<int64_t>& dims) {
    return bind(graph->tensor(fe::graph::Tensor_attributes()), name, uid, dims);
  };
  auto q = input("Q", kQ, q_dims), k = input("K", kK, kv_dims), v = input("V", kV, kv_dims);

  if (direction == SdpaDirection::kForward) {
    auto attrs = fe::graph::SDPA_attributes()
                     .set_name("sdpa_forward")
                     .set_generate_stats(true)
                     .set_attn_scale(d.scale);
    set_causal(attrs, d.causal);
    auto [o, stats] = graph->sdpa(q, k, v, attrs);
    bind(o, "O", kO, q_dims)->set_output(true);
    // NOTE: Stats is the natural-log log-sum-exp of the scaled (and masked) scores per query row,
    // max_j(s_ij) + ln(sum_j exp(s_ij - max)), our LSE. The frontend documents it as cuDNN's
    // natural-log convention and offers set_stats_use_log2 to convert it to base 2, which is left
    // off here; tests/gpu/test_cudnn_sdpa_gpu.cpp checks it against the fp32 reference.
    bind(stats, "LSE", kStats, stats_dims)->set_output(true).set_data_type(fe::DataType_t::FLOAT);
    return graph;
  }

  auto o = input("O", kO, q_dims), d_o = input("dO", kDO, q_dims);
  auto stats = input("LSE", kStats, stats_dims);
  stats->set_data_type(fe::DataType_t::FLOAT);
  // Non-deterministic (dQ accumulated with atomics), cuDNN's default and its fastest.
  auto attrs =
      fe::graph::SDPA_backward_attributes().set_name("sdpa_backward").set_attn_scale(d.scale);
  set_causal(attrs, d.causal);
  auto [dq, dk, dv] = graph->sdpa_backward(q, k, v, o, d_o, stats, attrs);
  bind(dq, "dQ", kDQ, q_dims)->set_output(true);
  bind(dk, "dK", kDK, kv_dims)->set_output(true);
  bind(dv, "dV", kDV, kv_dims)->set_output(true);
  return graph;
}

}  // namespace

BuiltGraph build_graph(const Dims& dims, SdpaDirection direction, const nlohmann::json& only) {
  const auto started = std::chrono::steady_clock::now();
  BuiltGraph b;
  b.handle = std::make_shared<CudnnHandle>();
  const cudnnHandle_t handle = b.handle->get();
  auto refuse = [&](CudnnSdpaStatus status, const std::string& why, fe::error_t& e) {
    b.status = static_cast<int>(status);
    b.error = why + ": " + frontend_error_name(e.get_code()) + ": " + e.get_message();
    b.build_seconds = seconds_since(started);
    return std::move(b);
  };
  std::shared_ptr<fe::graph::Graph> graph = make_graph(dims, direction);
  if (fe::error_t e = graph->validate(); e.is_bad())
    return refuse(CudnnSdpaStatus::kUnsupportedProblem,
                  "cudnn-frontend rejects the graph (validate)", e);
  if (fe::error_t e = graph->build_operation_graph(handle); e.is_bad())
    return refuse(CudnnSdpaStatus::kUnsupportedProblem,
                  "cuDNN rejects the operation graph (build_operation_graph)", e);
  if (fe::error_t e = graph->create_execution_plans({fe::HeurMode_t::A, fe::HeurMode_t::FALLBACK});
      e.is_bad())
    return refuse(CudnnSdpaStatus::kNoPlan, "heuristics (create_execution_plans)", e);
  const int64_t count = graph->get_execution_plan_count();
  auto name_at = [&](int64_t index) {
    std::string name;
    return graph->get_plan_name_at_index(index, name).is_good() ? name : std::string();
  };
  // The preferred plan, when the heuristics offer it where it was: only it is built.
  int64_t preferred = -1;
  if (only.is_object() && only.value("index", nlohmann::json()).is_number_integer() &&
      only.value("name", nlohmann::json()).is_string()) {
    const int64_t i = only["index"].get<int64_t>();
    if (i >= 0 && i < count && name_at(i) == only["name"].get<std::string>()) preferred = i;
  }
  for (int64_t index = 0; index < count; ++index) {
    nlohmann::json entry = {{"index", index}, {"built", false}, {"ran", false}};
    if (const std::string name = name_at(index); !name.empty()) entry["name"] = name;
    if (preferred >= 0 && index != preferred) {
      entry["skipped"] = "another plan was preferred";
      b.plans.push_back(std::move(entry));
      continue;
    }
    const auto build_start = std::chrono::steady_clock::now();
    fe::error_t status = graph->build_plan_at_index(index);
    entry["build_ms"] = 1000.0 * seconds_since(build_start);
    if (status.is_bad()) {
      entry["error"] = std::string("build: ") + frontend_error_name(status.get_code()) + ": " +
                       status.get_message();
    } else {
      int64_t workspace = 0;
      PTXB_CHECK_CUDNN_FE(graph->get_workspace_size_plan_at_index(index, workspace));
      entry["built"] = true;
      entry["workspace_bytes"] = workspace;
    }
    b.plans.push_back(std::move(entry));
  }
  b.graph = std::move(graph);
  b.build_seconds = seconds_since(started);
  return b;
}

std::vector<std::optional<BuiltGraph>> build_graphs(const std::vector<Dims>& all,
                                                    SdpaDirection direction,
                                                    const std::vector<nlohmann::json>& only) {
  std::vector<std::optional<BuiltGraph>> out(all.size());
  int device = 0;
  PTXB_CHECK_CUDA(cudaGetDevice(&device));
  std::atomic<size_t> next{0};
  auto work = [&] {
    if (cudaSetDevice(device) != cudaSuccess) return;  // the runtime's device is per thread
    for (size_t i = next++; i < all.size(); i = next++) {
      try {
        out[i] = build_graph(all[i], direction, i < only.size() ? only[i] : nlohmann::json());
      } catch (...) {  // left empty: plan() builds it and reports the failure
        out[i].reset();
      }
    }
  };
  const size_t threads =
      std::min<size_t>(all.size(), std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t) pool.emplace_back(work);
  for (std::thread& t : pool) t.join();
  return out;
}

}  // namespace ptxb::cudnn_sdpa
