// Per-instruction execution counts of the worker's own calls, through CUPTI's SASS metrics API
// (cupti_sass_metrics.h): while a collection is open, every function the context launches is
// patched on its first launch and counts, per PC offset, warp executions
// (smsp__sass_inst_executed) and thread executions with all predicates true
// (smsp__sass_thread_inst_executed_pred_on). What Nsight Compute's per-opcode metric gives, without
// a second process (docs/evidence.md, "In-process evidence"). Needs a CUPTI of API 13.2 or later:
// 13.0 reports the first patched function of a process and nothing else (docs/timing.md).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "instrument/pc_executions.hpp"

namespace ptxb {

/// The oldest CUPTI API version (cuptiGetVersion) whose SASS metrics report every function.
inline constexpr uint32_t kSassMetricsMinCuptiVersion = 130200;

class SassMetrics {
 public:
  /// Configures the two metrics for device `device` (once per process: CUPTI refuses a second
  /// configuration) and binds collection to `context`. Returns nullptr with *why_not when the
  /// CUPTI is too old (below kSassMetricsMinCuptiVersion), lacks the API, or refuses the device.
  /// Throws nothing.
  static std::unique_ptr<SassMetrics> create(CUcontext context, int device, std::string* why_not);
  /// Disables collection if open; errors are ignored (the process is ending its use of CUPTI).
  ~SassMetrics();
  SassMetrics(const SassMetrics&) = delete;
  SassMetrics& operator=(const SassMetrics&) = delete;

  /// CUPTI's API version (cuptiGetVersion), e.g. 130202.
  uint32_t cupti_version() const { return cupti_version_; }

  /// Opens a collection: functions launched on the context from now on are patched (lazily, at
  /// their first launch) and counted. Throws ApiError on failure or when one is already open.
  void begin();
  /// Call once the context's work has finished. Closes the collection and returns its records: one
  /// per executed instruction (both counts summed over the GPU; instructions that never executed
  /// are left out). Whether patched code runs at its own speed again afterwards is not known (to be
  /// measured): callers time nothing after a collection. Throws ApiError on failure, and when
  /// CUPTI dropped records (the counts would be short).
  std::vector<PcRecord> end();

  struct Impl;

 private:
  SassMetrics() = default;
  std::unique_ptr<Impl> impl_;
  uint32_t cupti_version_ = 0;
};

}  // namespace ptxb
