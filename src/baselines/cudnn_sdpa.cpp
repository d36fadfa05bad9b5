#include "baselines/cudnn_sdpa.hpp"

#include <algorithm>
#include <chrono>
#include <unordered_map>
#include <vector>

#include "baselines/cudnn_library.hpp"
#include "baselines/cudnn_sdpa_problem.hpp"
#include "core/dtype.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "verify/gpu_verify.hpp"

namespace ptxb {
namespace fe = cudnn_frontend;
namespace cudnn_sdpa {
namespace {

// A bf16 graph (fp32 intermediates and compute) with every tensor bound to its ABI uid: forward =
// sdpa with generate_stats (Stats = LSE), backward = sdpa_backward from the given O, dO and Stats.
// Causal masking through the diagonal band; grouped-query attention through the K/V head count.
std::shared_ptr<fe::graph::Graph> make_graph(const Dims& d, SdpaDirection direction) {
  auto graph = std::make_shared<fe::graph::Graph>();
  graph->set_io_data_type(fe::DataType_t::BFLOAT16)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
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
    // NOTE: causal = keys right of the diagonal masked; S_q == S_kv, so top-left and bottom-right
    // alignment coincide, and top-left works on every cuDNN 9.
    if (d.causal)
      attrs.set_diagonal_alignment(fe::DiagonalAlignment_t::TOP_LEFT)
          .set_diagonal_band_right_bound(0);
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
  if (d.causal)
    attrs.set_diagonal_alignment(fe::DiagonalAlignment_t::TOP_LEFT)
        .set_diagonal_band_right_bound(0);
  auto [dq, dk, dv] = graph->sdpa_backward(q, k, v, o, d_o, stats, attrs);
  bind(dq, "dQ", kDQ, q_dims)->set_output(true);
  bind(dk, "dK", kDK, kv_dims)->set_output(true);
  bind(dv, "dV", kDV, kv_dims)->set_output(true);
  return graph;
}

}  // namespace
}  // namespace cudnn_sdpa

using cudnn_sdpa::Dims;

namespace {

constexpr int kWarmups = 3, kTimedRuns = 10;

// Scratch tensors of one problem in ABI order, bf16 ones drawn from N(0, 1), the backward's LSE
// zero (any finite value does for timing: the kernels do the same work whatever the values).
struct Scratch {
  std::vector<DeviceBuffer> buffers;
  std::unordered_map<int64_t, void*> pointers;  // uid -> device pointer, for the variant pack
};

Scratch make_scratch(const Dims& dims, SdpaDirection direction, cudaStream_t stream) {
  Scratch s;
  const std::vector<size_t> bytes = cudnn_sdpa::tensor_bytes(dims, direction);
  const std::vector<int64_t>& uids = cudnn_sdpa::abi_uids(direction);
  for (size_t i = 0; i < bytes.size(); ++i) {
    s.buffers.emplace_back(bytes[i]);
    s.pointers[uids[i]] = s.buffers.back().data();
    if (i == cudnn_sdpa::lse_index(direction))
      PTXB_CHECK_CUDA(cudaMemsetAsync(s.buffers.back().data(), 0, bytes[i], stream));
    else
      fill_random(s.buffers.back().data(), DType::kBF16, static_cast<int64_t>(bytes[i] / 2),
                  ValueKind::kNormal, 1.0, 0x5d9a, i, stream);
  }
  return s;
}

// One offered plan: built, then timed on the scratch data. `entry` is its line in the report.
struct Trial {
  nlohmann::json entry;
  bool ran = false;
  double median_us = 0;
  int64_t workspace_bytes = 0;
};

Trial try_plan(fe::graph::Graph& graph, int64_t index, cudnnHandle_t handle,
               std::unordered_map<int64_t, void*>& pointers, cudaStream_t stream) {
  Trial t;
  t.entry = {{"index", index}, {"built", false}, {"ran", false}};
  std::string name;
  if (graph.get_plan_name_at_index(index, name).is_good()) t.entry["name"] = name;
  const auto build_start = std::chrono::steady_clock::now();
  fe::error_t status = graph.build_plan_at_index(index);
  t.entry["build_ms"] =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - build_start)
          .count();
  if (status.is_bad()) {
    t.entry["error"] = std::string("build: ") + frontend_error_name(status.get_code()) + ": " +
                       status.get_message();
    return t;
  }
  t.entry["built"] = true;
  PTXB_CHECK_CUDNN_FE(graph.get_workspace_size_plan_at_index(index, t.workspace_bytes));
  t.entry["workspace_bytes"] = t.workspace_bytes;
  DeviceBuffer workspace;
  try {
    workspace = DeviceBuffer(static_cast<size_t>(t.workspace_bytes));
  } catch (const ApiError& e) {
    (void)cudaGetLastError();  // an out-of-memory cudaMalloc is not sticky: clear it
    t.entry["error"] = std::string("workspace: ") + e.what();
    return t;
  }
  Event start, stop;
  std::vector<double> us;
  for (int rep = 0; rep < kWarmups + kTimedRuns; ++rep) {
    start.record(stream);
    status = graph.execute_plan_at_index(handle, pointers, workspace.data(), index);
    stop.record(stream);
    PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));
    if (status.is_bad()) {
      t.entry["error"] = std::string("execute: ") + frontend_error_name(status.get_code()) + ": " +
                         status.get_message();
      return t;
    }
    if (rep >= kWarmups) us.push_back(1000.0 * stop.elapsed_ms_since(start));
  }
  std::sort(us.begin(), us.end());
  t.ran = true;
  t.median_us = us[us.size() / 2];
  t.entry["ran"] = true;
  t.entry["median_us"] = t.median_us;
  return t;
}

}  // namespace

struct CudnnSdpa::State {
  std::string library;
  const CudnnLibrary* cudnn = nullptr;
  std::unique_ptr<CudnnHandle> handle;  // created by the first plan()
  // The chosen plan; graph is null until a plan() succeeds.
  std::shared_ptr<fe::graph::Graph> graph;
  int64_t plan_index = -1;
  DeviceBuffer workspace;
  // uid -> device pointer; plan() fixes the keys, run() only overwrites the values (no allocation).
  std::unordered_map<int64_t, void*> pointers;
};

CudnnSdpa::CudnnSdpa(SdpaDirection direction, const std::string& library)
    : direction_(direction), state_(std::make_unique<State>()) {
  state_->library = library;
  state_->cudnn = &CudnnLibrary::open(library);
}

CudnnSdpa::~CudnnSdpa() = default;

int CudnnSdpa::fail(CudnnSdpaStatus status, const std::string& why) {
  report_["status"] = static_cast<int>(status);
  report_["error"] = why;
  return static_cast<int>(status);
}

int CudnnSdpa::plan(const ptxb_problem& problem, uint64_t* workspace_bytes) {
  *workspace_bytes = 0;
  State& s = *state_;
  s.graph.reset();
  s.plan_index = -1;
  s.workspace = DeviceBuffer();
  s.pointers.clear();
  report_ = {{"direction", direction_ == SdpaDirection::kForward ? "forward" : "backward"}};
  if (!s.cudnn->loaded())
    throw_api("cuDNN", ("dlopen(\"" + s.library + "\")").c_str(), -1, "library unavailable",
              s.cudnn->error(), __FILE__, __LINE__);
  report_.update(s.cudnn->describe());

  auto parsed = cudnn_sdpa::parse_problem(problem, direction_);
  if (const auto* why = std::get_if<std::string>(&parsed))
    return fail(CudnnSdpaStatus::kUnsupportedProblem, *why);
  try {
    const int status = plan_dims(std::get<Dims>(parsed));
    report_["loaded_objects"] = s.cudnn->describe()["loaded_objects"];  // NVRTC loads late
    return status;
  } catch (const ApiError&) {
    throw;
  } catch (const InputError&) {
    throw;
  } catch (const InternalError&) {
    throw;
  } catch (const std::exception& e) {
    // The frontend throws std::runtime_error when a symbol or the CUDA runtime cannot be loaded.
    throw_api("cudnn-frontend", "CudnnSdpa::plan", -1, "exception", e.what(), __FILE__, __LINE__);
  }
}

int CudnnSdpa::plan_dims(const Dims& dims) {
  State& s = *state_;
  report_["problem"] = dims.to_json();
  report_["heuristic_modes"] = {"A", "FALLBACK"};
  report_["attention_implementation"] = "AUTO";
  if (direction_ == SdpaDirection::kBackward) report_["deterministic"] = false;
  report_["timing"] = {{"warmups", kWarmups}, {"runs", kTimedRuns}, {"statistic", "median"}};
  if (!s.handle) s.handle = std::make_unique<CudnnHandle>();
  const cudnnHandle_t handle = s.handle->get();
  Stream stream;
  PTXB_CHECK_CUDNN(fe::detail::set_stream(handle, stream.get()));
  // The handle must not keep this stream past its destruction (run() sets its own each call).
  struct StreamUnbind {
    cudnnHandle_t handle;
    ~StreamUnbind() { (void)fe::detail::set_stream(handle, nullptr); }
  } unbind{handle};

  std::shared_ptr<fe::graph::Graph> graph = cudnn_sdpa::make_graph(dims, direction_);
  auto refused = [&](const char* step, fe::error_t& e) {
    return fail(
        CudnnSdpaStatus::kUnsupportedProblem,
        std::string(step) + ": " + frontend_error_name(e.get_code()) + ": " + e.get_message());
  };
  if (fe::error_t e = graph->validate(); e.is_bad())
    return refused("cudnn-frontend rejects the graph (validate)", e);
  if (fe::error_t e = graph->build_operation_graph(handle); e.is_bad())
    return refused("cuDNN rejects the operation graph (build_operation_graph)", e);
  if (fe::error_t e = graph->create_execution_plans({fe::HeurMode_t::A, fe::HeurMode_t::FALLBACK});
      e.is_bad())
    return fail(CudnnSdpaStatus::kNoPlan, std::string("heuristics (create_execution_plans): ") +
                                              frontend_error_name(e.get_code()) + ": " +
                                              e.get_message());
  const int64_t offered = graph->get_execution_plan_count();
  report_["plans_offered"] = offered;
  report_["plans"] = nlohmann::json::array();

  Scratch scratch = make_scratch(dims, direction_, stream.get());
  int64_t best = -1, built = 0;
  Trial best_trial;
  for (int64_t i = 0; i < offered; ++i) {
    Trial t = try_plan(*graph, i, handle, scratch.pointers, stream.get());
    built += t.entry["built"].get<bool>() ? 1 : 0;
    report_["plans"].push_back(t.entry);
    if (t.ran && (best < 0 || t.median_us < best_trial.median_us)) best = i, best_trial = t;
  }
  if (built == 0)
    return fail(CudnnSdpaStatus::kNoPlan, "none of the " + std::to_string(offered) +
                                              " offered plans built (see plans[].error)");
  if (best < 0)
    return fail(CudnnSdpaStatus::kNoPlanRan, "none of the " + std::to_string(built) +
                                                 " built plans executed (see plans[].error)");

  s.workspace = DeviceBuffer(static_cast<size_t>(best_trial.workspace_bytes));
  s.graph = std::move(graph);
  s.plan_index = best;
  s.pointers = std::move(scratch.pointers);  // the keys; run() replaces every value
  for (auto& entry : s.pointers) entry.second = nullptr;
  report_["chosen"] = best;
  report_["chosen_name"] = best_trial.entry.value("name", "");
  report_["chosen_median_us"] = best_trial.median_us;
  report_["workspace_bytes"] = best_trial.workspace_bytes;
  report_["workspace_owner"] = "baseline";  // allocated in plan(), 0 reported to the caller
  report_["status"] = PTXB_OK;
  return PTXB_OK;
}

int CudnnSdpa::run(const ptxb_args& args) {
  State& s = *state_;
  const std::vector<int64_t>& uids = cudnn_sdpa::abi_uids(direction_);
  if (!s.graph || args.problem == nullptr ||
      static_cast<size_t>(args.problem->num_inputs + args.problem->num_outputs) != uids.size())
    return static_cast<int>(CudnnSdpaStatus::kNotPlanned);
  try {
    const size_t num_inputs = static_cast<size_t>(args.problem->num_inputs);
    // NOTE: the variant pack takes void*; cuDNN only reads the input tensors.
    for (size_t i = 0; i < uids.size(); ++i)
      s.pointers.at(uids[i]) =
          i < num_inputs ? const_cast<void*>(args.inputs[i]) : args.outputs[i - num_inputs];
    if (fe::detail::set_stream(s.handle->get(), static_cast<cudaStream_t>(args.stream)) !=
        CUDNN_STATUS_SUCCESS)
      return static_cast<int>(CudnnSdpaStatus::kExecuteFailed);
    const fe::error_t status = s.graph->execute_plan_at_index(s.handle->get(), s.pointers,
                                                              s.workspace.data(), s.plan_index);
    return status.is_good() ? PTXB_OK : static_cast<int>(CudnnSdpaStatus::kExecuteFailed);
  } catch (...) {  // run() reports through its return value only
    return static_cast<int>(CudnnSdpaStatus::kExecuteFailed);
  }
}

}  // namespace ptxb
