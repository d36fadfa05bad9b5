#include "worker/call_counters.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <utility>

#include "controls/evidence_controls.hpp"
#include "controls/evidence_names.hpp"
#include "controls/flop_control.hpp"
#include "core/error.hpp"
#include "cuda/cuda_check.hpp"
#include "timing/l2_flush.hpp"
#include "timing/launch_gate.hpp"
#include "worker/cupti_library.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

constexpr size_t kCallsPerGroupKept = 4;  // call indices kept per group of equal counts

std::string range_name(size_t index) { return std::string("r").append(std::to_string(index)); }

}  // namespace

std::unique_ptr<CallCounters> CallCounters::create(const std::vector<CounterSpec>& counters,
                                                   int device, std::string* why_not) {
  if (counters.empty()) {
    if (why_not != nullptr) *why_not = "the catalog names no hardware counters for this arch";
    return nullptr;
  }
  std::vector<std::string> metrics;
  for (const CounterSpec& c : counters) metrics.push_back(c.metric);
  CUcontext context = nullptr;
  try {
    context = current_cuda_context();
  } catch (const ApiError& e) {
    if (why_not != nullptr) *why_not = e.what();
    return nullptr;
  }
  auto profiler = RangeProfiler::create(context, device, metrics, kRangesPerPass, why_not);
  if (!profiler) return nullptr;
  return std::unique_ptr<CallCounters>(new CallCounters(std::move(profiler)));
}

CallCounters::CallCounters(std::unique_ptr<RangeProfiler> profiler)
    : profiler_(std::move(profiler)) {}

std::vector<std::vector<double>> CallCounters::run_ranges(
    const std::vector<std::function<void()>>& work, cudaStream_t stream) {
  profiler_->reset();
  profiler_->start();
  for (size_t i = 0; i < work.size(); ++i) {
    profiler_->push(range_name(i).c_str());
    work[i]();
    profiler_->pop();
  }
  profiler_->stop();
  PTXB_CHECK_CUDA(cudaStreamSynchronize(stream));
  return profiler_->decode();
}

json CallCounters::check(cudaStream_t stream) {
  const std::vector<std::string>& m = profiler_->metrics();
  auto index_of = [&](const char* name) -> std::optional<size_t> {
    const auto it = std::find(m.begin(), m.end(), name);
    if (it == m.end()) return std::nullopt;
    return static_cast<size_t>(it - m.begin());
  };
  L2Flusher flusher;
  LaunchGate gate;
  // What precedes every timed call inside its range: the launch gate, then the flush.
  auto before_call = [&] {
    gate.hold(stream);
    flusher.flush(stream);
    gate.release();
  };
  const std::vector<std::function<void()>> work = {
      [&] { PTXB_CHECK_CUDA(launch_evidence_control(true, stream)); },
      [&] { PTXB_CHECK_CUDA(launch_evidence_control(false, stream)); },
      [&] { PTXB_CHECK_CUDA(launch_flop_control(true, stream)); },
      [&] { PTXB_CHECK_CUDA(launch_flop_control(false, stream)); },
      before_call,
      before_call,
      before_call};
  json out = {{"metrics", m}, {"ok", false}};
  std::vector<std::vector<double>> v;
  try {
    v = run_ranges(work, stream);
  } catch (const ApiError& e) {
    out["problem"] = std::string("the range profiler failed on the controls: ") + e.what();
    return out;
  }
  out["ranges"] = v;
  std::string problem;
  if (v.size() != work.size()) {
    problem = "decoded " + std::to_string(v.size()) + " ranges for " + std::to_string(work.size()) +
              " control launches";
  } else {
    auto expect = [&](size_t range, const char* metric, double lo, double hi, const char* what) {
      const auto i = index_of(metric);
      if (!problem.empty() || !i) return;
      if (v[range][*i] < lo || v[range][*i] > hi)
        problem = std::string(what) + ": " + metric + " = " + std::to_string(v[range][*i]);
    };
    const double gmma = kEvidenceControlGmmaWarpInstructions;
    expect(0, kGmmaPipeMetric, gmma, gmma, "the live evidence control");
    expect(1, kGmmaPipeMetric, 0, 0, "the dead evidence control");
    // The tensor-path ops and TMA bytes where the catalog counts them (evidence_names.hpp).
    const std::map<std::string, double> flops = evidence_control_mma_flops();
    for (const auto& [metric, live] :
         {std::pair{kBf16TensorOpsMetric, flops.at("HGMMA")},
          std::pair{kFp8TensorOpsMetric, flops.at("QGMMA")},
          std::pair{kTmaLoadBytesMetric, kEvidenceControlTmaLoadBytes}}) {
      expect(0, metric, live, live, "the live evidence control");
      expect(1, metric, 0, 0, "the dead evidence control");
    }
    expect(2, kFp64PipeMetric, kFlopControlFp64PipeWarpInstructions,
           kFlopControlFp64PipeWarpInstructions, "the live FLOP control");
    expect(2, kFmaPipeMetric, kFlopControlFmaPipeWarpInstructions,
           1.01 * kFlopControlFmaPipeWarpInstructions, "the live FLOP control");
    expect(3, kFmaPipeMetric, 0, 0, "the dead FLOP control");
    if (problem.empty() && (v[4] != v[5] || v[5] != v[6]))
      problem = "the launch gate and L2 flush's counts differ between launches";
  }
  if (!problem.empty()) {
    out["problem"] = problem;
    return out;
  }
  flush_counts_ = v[4];
  out["flush"] = flush_counts_;
  try {
    profiler_->reset();
    profiler_->start();
  } catch (const ApiError& e) {
    out["problem"] = std::string("the range profiler failed to start: ") + e.what();
    return out;
  }
  ok_ = true;
  out["ok"] = true;
  return out;
}

void CallCounters::fail(const std::string& what) {
  if (failure_.empty()) failure_ = what;
  ok_ = false;
}

void CallCounters::begin(size_t shape, int calls) {
  if (!ok_) return;
  try {
    profiler_->push(range_name(pending_.size()).c_str());
    in_range_ = true;
    pending_.push_back({shape, 0, next_call_, calls});
    next_call_ += calls;
  } catch (const ApiError& e) {
    fail(std::string("pushing a counter range failed: ") + e.what());
  }
}

void CallCounters::end(int flushes) {
  if (!ok_ || !in_range_) return;
  in_range_ = false;
  try {
    profiler_->pop();
    pending_.back().flushes = flushes;
    if (pending_.size() == kRangesPerPass) finish_pass();
  } catch (const ApiError& e) {
    fail(std::string("popping a counter range failed: ") + e.what());
  }
}

void CallCounters::finish_pass() {
  const auto started = std::chrono::steady_clock::now();
  struct AddTime {
    double& total;
    std::chrono::steady_clock::time_point from;
    ~AddTime() {
      total += std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
    }
  } add_time{pass_seconds_, started};
  profiler_->stop();
  const std::vector<std::vector<double>> values = profiler_->decode();
  if (values.size() != pending_.size()) {
    fail("decoded " + std::to_string(values.size()) + " counter ranges for " +
         std::to_string(pending_.size()) + " calls");
    return;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    std::vector<double> counts = values[i];
    for (size_t k = 0; k < counts.size() && k < flush_counts_.size(); ++k)
      counts[k] -= flush_counts_[k] * pending_[i].flushes;
    for (double& c : counts) c /= pending_[i].calls;
    CountedCalls& group = groups_[pending_[i].shape][counts];
    group.values = counts;
    group.count += pending_[i].calls;
    if (group.calls.size() < kCallsPerGroupKept) group.calls.push_back(pending_[i].call);
  }
  pending_.clear();
  profiler_->reset();
  profiler_->start();
}

std::map<size_t, std::vector<CountedCalls>> CallCounters::collect() {
  if (ok_ && !pending_.empty()) {
    try {
      finish_pass();
    } catch (const ApiError& e) {
      fail(std::string("decoding counter ranges failed: ") + e.what());
    }
  }
  std::map<size_t, std::vector<CountedCalls>> out;
  for (auto& [shape, groups] : groups_)
    for (auto& [values, group] : groups) out[shape].push_back(group);
  return out;
}

}  // namespace ptxb
