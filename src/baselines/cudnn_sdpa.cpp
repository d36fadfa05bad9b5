#include "baselines/cudnn_sdpa.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "baselines/cudnn_library.hpp"
#include "baselines/cudnn_sdpa_build.hpp"
#include "baselines/cudnn_sdpa_problem.hpp"
#include "baselines/cudnn_sdpa_ragged.hpp"
#include "baselines/plan_choices.hpp"
#include "baselines/plan_trial.hpp"
#include "core/dtype.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device.hpp"
#include "cuda/host_mirror.hpp"
#include "timing/launch_gate.hpp"
#include "verify/gpu_verify.hpp"

namespace ptxb {
namespace fe = cudnn_frontend;

using cudnn_sdpa::Dims;

namespace {

constexpr int kWarmups = 3, kTimedRuns = 10;

// Scratch tensors of one problem in ABI order, bf16 ones drawn from N(0, 1), the backward's LSE
// zero (any finite value does for timing: the kernels do the same work whatever the values); the
// variable-length forward's ragged tensors from evenly split lengths (cu_seqlens itself is not a
// graph tensor); paged decode's lengths all the table's span (W * P: the plan that handles long
// histories best is chosen), its table the pool's pages in order, and its seq_len_q.
struct Scratch {
  std::vector<DeviceBuffer> buffers;
  cudnn_sdpa::RaggedTensors ragged;
  std::unordered_map<int64_t, void*> pointers;  // uid -> device pointer, for the variant pack
};

// Paged decode's seq_len_q: SQ new tokens for each of the B sequences.
DeviceBuffer paged_seq_len_q(const Dims& dims) {
  return cudnn_sdpa::upload_int32(
      std::vector<int32_t>(static_cast<size_t>(dims.batch), static_cast<int32_t>(dims.seq)));
}

Scratch make_scratch(const Dims& dims, SdpaDirection direction, cudaStream_t stream) {
  Scratch s;
  const std::vector<size_t> bytes = cudnn_sdpa::tensor_bytes(dims, direction);
  const std::vector<int64_t>& uids = cudnn_sdpa::abi_uids(direction);
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (uids[i] == cudnn_sdpa::kCuSeqlens) continue;
    if (dims.paged && uids[i] == cudnn_sdpa::kSeqLenKV) {
      const auto span = static_cast<int32_t>(dims.table_width * dims.page_size);
      s.buffers.push_back(
          cudnn_sdpa::upload_int32(std::vector<int32_t>(static_cast<size_t>(dims.batch), span)));
      s.pointers[uids[i]] = s.buffers.back().data();
      continue;
    }
    if (dims.paged && uids[i] == cudnn_sdpa::kPageTable) {
      std::vector<int32_t> table(static_cast<size_t>(dims.batch * dims.table_width));
      for (size_t e = 0; e < table.size(); ++e)
        table[e] = static_cast<int32_t>(static_cast<int64_t>(e) % dims.pages);
      s.buffers.push_back(cudnn_sdpa::upload_int32(table));
      s.pointers[uids[i]] = s.buffers.back().data();
      continue;
    }
    s.buffers.emplace_back(bytes[i]);
    s.pointers[uids[i]] = s.buffers.back().data();
    if (static_cast<int>(i) == cudnn_sdpa::lse_index(direction))
      PTXB_CHECK_CUDA(cudaMemsetAsync(s.buffers.back().data(), 0, bytes[i], stream));
    else
      fill_random(s.buffers.back().data(), DType::kBF16, static_cast<int64_t>(bytes[i] / 2),
                  ValueKind::kNormal, 1.0, 0x5d9a, i, stream);
  }
  if (dims.varlen) {
    s.ragged = cudnn_sdpa::make_ragged(cudnn_sdpa::even_cu_seqlens(dims), dims);
    s.ragged.bind(s.pointers);
  }
  if (dims.paged) {
    s.buffers.push_back(paged_seq_len_q(dims));
    s.pointers[cudnn_sdpa::kSeqLenQ] = s.buffers.back().data();
    s.pointers[cudnn_sdpa::kPageTableV] = s.pointers.at(cudnn_sdpa::kPageTable);
  }
  return s;
}

// One built plan timed on the scratch data; `entry` (its line in the report, from the build)
// gets ran, median_us or the error. With `best_median_us`, the best plan's so far, the trial
// stops once plan_cannot_win says this plan is far behind it (`entry` then has cut_after, the runs
// taken): the variable-length forward's offered plans include two runtime-compiled eng1 plans 15
// times slower than the best (13.3-13.6 ms against 0.92 ms at B=16 S=16384, H100, 2026-12-05),
// whose ten timed runs took 0.27 s of the worker's start for that shape, three of them 0.08 s.
struct Trial {
  bool ran = false;
  double median_us = 0;
  int64_t workspace_bytes = 0;
};

Trial time_plan(fe::graph::Graph& graph, nlohmann::json& entry, cudnnHandle_t handle,
                std::unordered_map<int64_t, void*>& pointers, cudaStream_t stream,
                const std::optional<double>& best_median_us) {
  Trial t;
  const int64_t index = entry["index"].get<int64_t>();
  t.workspace_bytes = entry["workspace_bytes"].get<int64_t>();
  DeviceBuffer workspace;
  try {
    workspace = DeviceBuffer(static_cast<size_t>(t.workspace_bytes));
  } catch (const ApiError& e) {
    (void)cudaGetLastError();  // an out-of-memory cudaMalloc is not sticky: clear it
    entry["error"] = std::string("workspace: ") + e.what();
    return t;
  }
  Event start, stop;
  // NOTE: the gate keeps the host's execute path out of the trial (docs/timing.md): without it
  // the trials at B=2 H=8 S=1000 D=128 took 74-107 µs of a 64 µs plan, and the choice between
  // plans of equal device time followed the host's noise.
  LaunchGate gate;
  std::vector<double> us;
  for (int rep = 0; rep < kWarmups + kTimedRuns; ++rep) {
    gate.hold(stream);
    start.record(stream);
    fe::error_t status = graph.execute_plan_at_index(handle, pointers, workspace.data(), index);
    stop.record(stream);
    gate.release();
    PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));
    if (status.is_bad()) {
      entry["error"] = std::string("execute: ") + frontend_error_name(status.get_code()) + ": " +
                       status.get_message();
      return t;
    }
    if (rep < kWarmups) continue;
    us.push_back(1000.0 * stop.elapsed_ms_since(start));
    if (plan_cannot_win(us, best_median_us)) {
      entry["cut_after"] = us.size();
      break;
    }
  }
  if (gate.expired() > 0) entry["gate_expired"] = gate.expired();
  std::sort(us.begin(), us.end());
  t.ran = true;
  t.median_us = us[us.size() / 2];
  entry["ran"] = true;
  entry["median_us"] = t.median_us;
  return t;
}

}  // namespace

struct CudnnSdpa::State {
  std::string library;
  const CudnnLibrary* cudnn = nullptr;
  // Graphs built ahead by prebuild(), (problem dims as JSON, graph); every plan() of the
  // problem shares its graph and handle.
  std::vector<std::pair<nlohmann::json, cudnn_sdpa::BuiltGraph>> prebuilt;
  // prefer()'s choices by problem key, and the last plan()'s choice (null: none).
  std::map<std::string, nlohmann::json> preferred;
  nlohmann::json choice;
  std::shared_ptr<CudnnHandle> handle;  // the chosen plan's (each built graph has its own)
  // The chosen plan; graph is null until a plan() succeeds.
  std::shared_ptr<fe::graph::Graph> graph;
  int64_t plan_index = -1;
  DeviceBuffer workspace;
  // uid -> device pointer; plan() fixes the keys, run() only overwrites the values (no allocation).
  std::unordered_map<int64_t, void*> pointers;
  // Variable-length forward: the planned problem and its ragged tensors (tune(), or run() when
  // the lengths changed); empty until then.
  Dims dims;
  cudnn_sdpa::RaggedTensors ragged;
  DeviceBuffer seq_len_q;  // paged decode: SQ per sequence (the graph's seq_len_q)
};

CudnnSdpa::CudnnSdpa(SdpaDirection direction, const std::string& library)
    : direction_(direction), state_(std::make_unique<State>()) {
  state_->library = library;
  state_->cudnn = &CudnnLibrary::open(library);
}

CudnnSdpa::~CudnnSdpa() = default;

const char* CudnnSdpa::direction_name(SdpaDirection direction) {
  switch (direction) {
    case SdpaDirection::kForward:
      return "forward";
    case SdpaDirection::kBackward:
      return "backward";
    case SdpaDirection::kVarlenForward:
      return "variable-length forward";
    case SdpaDirection::kPagedDecode:
      return "paged decode";
  }
  return "unknown";
}

int CudnnSdpa::fail(CudnnSdpaStatus status, const std::string& why) {
  state_->choice = nullptr;
  report_["status"] = static_cast<int>(status);
  report_["error"] = why;
  return static_cast<int>(status);
}

std::string CudnnSdpa::library_id() const {
  const nlohmann::json d = state_->cudnn->describe();
  return "cudnn " + d.value("cudnn_version_string", std::string()) + " frontend " +
         d.value("frontend_version", std::string());
}

std::string CudnnSdpa::problem_key(const Dims& dims) const {
  return std::string(direction_name(direction_)) + " " + dims.to_json().dump();
}

nlohmann::json CudnnSdpa::plan_choice() const { return state_->choice; }

void CudnnSdpa::prefer(const nlohmann::json& choices) {
  State& s = *state_;
  s.preferred.clear();
  if (s.cudnn->loaded()) s.preferred = choices_by_problem(choices, library_id(), "name");
}

int CudnnSdpa::plan(const ptxb_problem& problem, uint64_t* workspace_bytes) {
  *workspace_bytes = 0;
  State& s = *state_;
  s.choice = nullptr;
  s.graph.reset();
  s.plan_index = -1;
  s.workspace = DeviceBuffer();
  s.pointers.clear();
  report_ = {{"direction", direction_name(direction_)}};
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

void CudnnSdpa::prebuild(const std::vector<const ptxb_problem*>& problems) {
  State& s = *state_;
  if (!s.cudnn->loaded()) return;  // plan() reports it
  std::vector<Dims> all;
  for (const ptxb_problem* p : problems) {
    const auto parsed = cudnn_sdpa::parse_problem(*p, direction_);
    if (const Dims* d = std::get_if<Dims>(&parsed)) {
      const bool seen = std::any_of(all.begin(), all.end(),
                                    [&](const Dims& o) { return o.to_json() == d->to_json(); });
      if (!seen) all.push_back(*d);
    }
  }
  std::vector<nlohmann::json> only;
  for (const Dims& d : all) {
    const auto preferred = s.preferred.find(problem_key(d));
    only.push_back(preferred == s.preferred.end() ? nlohmann::json() : preferred->second);
  }
  std::vector<std::optional<cudnn_sdpa::BuiltGraph>> built =
      cudnn_sdpa::build_graphs(all, direction_, only);
  for (size_t i = 0; i < all.size(); ++i)
    if (built[i]) s.prebuilt.emplace_back(all[i].to_json(), std::move(*built[i]));
}

int CudnnSdpa::plan_dims(const Dims& dims) {
  State& s = *state_;
  report_["problem"] = dims.to_json();
  report_["heuristic_modes"] = {"A", "FALLBACK"};
  report_["attention_implementation"] = "AUTO";
  if (direction_ == SdpaDirection::kBackward) report_["deterministic"] = false;
  report_["timing"] = {{"warmups", kWarmups}, {"runs", kTimedRuns}, {"statistic", "median"}};

  const std::string key = problem_key(dims);
  const auto preferred = s.preferred.find(key);
  const nlohmann::json only = preferred == s.preferred.end() ? nlohmann::json() : preferred->second;
  cudnn_sdpa::BuiltGraph built;
  const auto ahead = std::find_if(s.prebuilt.begin(), s.prebuilt.end(),
                                  [&](const auto& e) { return e.first == dims.to_json(); });
  report_["prebuilt"] = ahead != s.prebuilt.end();
  if (ahead != s.prebuilt.end()) {
    built = ahead->second;  // shared graph and handle, the plans' lines copied
  } else {
    built = cudnn_sdpa::build_graph(dims, direction_, only);
  }
  // The preferred plan, built and of the same name where it was chosen, is taken untimed. When
  // the build took only it and it did not build, every offered plan is built and timed.
  auto preferred_entry = [&]() -> const nlohmann::json* {
    if (only.is_null() || built.status != PTXB_OK) return nullptr;
    const int64_t i = only["index"].get<int64_t>();
    if (i < 0 || i >= static_cast<int64_t>(built.plans.size())) return nullptr;
    const nlohmann::json& entry = built.plans[static_cast<size_t>(i)];
    const bool same = entry.value("built", false) &&
                      entry.value("name", std::string()) == only["name"].get<std::string>();
    return same ? &entry : nullptr;
  };
  const bool partial = std::any_of(built.plans.begin(), built.plans.end(),
                                   [](const nlohmann::json& e) { return e.contains("skipped"); });
  if (!only.is_null() && preferred_entry() == nullptr && partial)
    built = cudnn_sdpa::build_graph(dims, direction_);
  report_["build_seconds"] = built.build_seconds;
  if (built.status != PTXB_OK) return fail(static_cast<CudnnSdpaStatus>(built.status), built.error);
  const int64_t offered = static_cast<int64_t>(built.plans.size());
  report_["plans_offered"] = offered;

  const cudnnHandle_t handle = built.handle->get();
  Stream stream;
  PTXB_CHECK_CUDNN(fe::detail::set_stream(handle, stream.get()));
  // The handle must not keep this stream past its destruction (run() sets its own each call).
  struct StreamUnbind {
    cudnnHandle_t handle;
    ~StreamUnbind() { (void)fe::detail::set_stream(handle, nullptr); }
  } unbind{handle};

  Scratch scratch = make_scratch(dims, direction_, stream.get());
  int64_t best = -1, built_count = 0;
  Trial best_trial;
  const nlohmann::json* taken = preferred_entry();
  if (taken != nullptr) {
    best = only["index"].get<int64_t>();
    best_trial.ran = true;
    best_trial.median_us = only.value("median_us", 0.0);
    best_trial.workspace_bytes = (*taken)["workspace_bytes"].get<int64_t>();
    built_count = 1;
  } else if (!only.is_null()) {
    report_["preferred_not_offered"] = only;
  }
  for (nlohmann::json& entry : built.plans) {
    if (taken != nullptr) break;  // the preferred plan: nothing to time
    if (!entry["built"].get<bool>()) continue;
    ++built_count;
    const std::optional<double> best_median_us =
        best < 0 ? std::nullopt : std::optional<double>(best_trial.median_us);
    const Trial t =
        time_plan(*built.graph, entry, handle, scratch.pointers, stream.get(), best_median_us);
    if (t.ran && (best < 0 || t.median_us < best_trial.median_us))
      best = entry["index"].get<int64_t>(), best_trial = t;
  }
  report_["plans"] = built.plans;
  if (built_count == 0)
    return fail(CudnnSdpaStatus::kNoPlan, "none of the " + std::to_string(offered) +
                                              " offered plans built (see plans[].error)");
  if (best < 0)
    return fail(CudnnSdpaStatus::kNoPlanRan, "none of the " + std::to_string(built_count) +
                                                 " built plans executed (see plans[].error)");

  s.workspace = DeviceBuffer(static_cast<size_t>(best_trial.workspace_bytes));
  s.dims = dims;
  s.ragged = cudnn_sdpa::RaggedTensors();
  s.graph = std::move(built.graph);
  s.handle = std::move(built.handle);
  s.plan_index = best;
  // "preferred": chosen by an earlier plan's timing (prefer()).
  report_["choice"] = taken != nullptr ? "preferred" : "timed";
  s.choice =
      taken != nullptr
          ? only
          : nlohmann::json{{"library", library_id()},
                           {"problem", key},
                           {"index", best},
                           {"name", report_["plans"][static_cast<size_t>(best)].value("name", "")},
                           {"median_us", best_trial.median_us}};
  s.pointers = std::move(scratch.pointers);  // the keys; run() replaces every value
  for (auto& entry : s.pointers) entry.second = nullptr;
  if (dims.paged) {  // the baseline's own tensor: run() leaves it bound
    s.seq_len_q = paged_seq_len_q(dims);
    s.pointers[cudnn_sdpa::kSeqLenQ] = s.seq_len_q.data();
  }
  report_["chosen"] = best;
  report_["chosen_name"] = report_["plans"][static_cast<size_t>(best)].value("name", "");
  report_["chosen_median_us"] = best_trial.median_us;
  report_["workspace_bytes"] = best_trial.workspace_bytes;
  report_["workspace_owner"] = "baseline";  // allocated in plan(), 0 reported to the caller
  report_["status"] = PTXB_OK;
  return PTXB_OK;
}

// The ragged tensors of args' cu_seqlens (its host copy), uploaded when they differ from the
// ones held: "" or why not. Throws ApiError when an upload fails.
std::string CudnnSdpa::refresh_ragged(const ptxb_args& args) {
  State& s = *state_;
  const std::vector<int64_t>* cu_seqlens = mirrored_host_integers(args.inputs[3]);
  if (cu_seqlens == nullptr) return "cu_seqlens: no host copy";
  if (*cu_seqlens == s.ragged.cu_seqlens) return "";
  try {
    s.ragged = cudnn_sdpa::make_ragged(*cu_seqlens, s.dims);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

int CudnnSdpa::tune(const ptxb_args& args) {
  State& s = *state_;
  if (direction_ != SdpaDirection::kVarlenForward) return PTXB_OK;
  if (!s.graph || args.problem == nullptr || args.problem->num_inputs != 4)
    return static_cast<int>(CudnnSdpaStatus::kNotPlanned);
  const std::string why = refresh_ragged(args);
  return why.empty() ? PTXB_OK : fail(CudnnSdpaStatus::kExecuteFailed, why);
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
    for (size_t i = 0; i < uids.size(); ++i) {
      if (uids[i] == cudnn_sdpa::kCuSeqlens) continue;
      s.pointers.at(uids[i]) =
          i < num_inputs ? const_cast<void*>(args.inputs[i]) : args.outputs[i - num_inputs];
    }
    if (direction_ == SdpaDirection::kVarlenForward) {
      // NOTE: lengths that changed since tune() are uploaded here, synchronously (the grouped
      // GEMM baseline does the same); a task's lengths are a function of its shape, so timed
      // calls find them uploaded.
      if (!refresh_ragged(args).empty()) return static_cast<int>(CudnnSdpaStatus::kExecuteFailed);
      s.ragged.bind(s.pointers);
    }
    if (direction_ == SdpaDirection::kPagedDecode)  // one table for K and V
      s.pointers.at(cudnn_sdpa::kPageTableV) = s.pointers.at(cudnn_sdpa::kPageTable);
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
