// Brackets every stretch of candidate code in the worker: the watchdog runs, the CUPTI monitor is
// armed, the host state is snapshotted; at the end the stream is drained (a CUDA error there is
// the candidate's) and everything the candidate did that the ABI forbids is reported as
// "candidate_violation" messages (docs/threat-model.md); a stretch with any violation ends the
// worker there, so hostile code runs no further than its first violation.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sys/host_state.hpp"
#include "worker/call_counters.hpp"
#include "worker/monitor.hpp"
#include "worker/phase_clock.hpp"
#include "worker/result_channel.hpp"
#include "worker/sass_metrics.hpp"
#include "worker/watchdog.hpp"

namespace ptxb {

/// Host memory candidate code may touch before it counts as a grab (a GEMM needs almost none).
inline constexpr int64_t kHostMemoryAllowance = 4ll << 30;

/// Worker exit status after a stretch of candidate code with a violation.
inline constexpr int kExitCandidateViolation = 6;

/// What every stage needs to run candidate code under watch.
struct StageContext {
  const ResultChannel& out;
  CallWatchdog& watchdog;
  CandidateMonitor* monitor = nullptr;  ///< nullptr: CUPTI unavailable (e.g. under ncu)
  /// Counts every candidate call at a timed shape; nullptr: unavailable (e.g. under ncu).
  CallCounters* counters = nullptr;
  /// The in-process evidence's per-instruction counts; nullptr: the evidence runs under ncu.
  SassMetrics* sass = nullptr;
  /// Mangled names in the candidate's cubin; nullopt: unknown (no SASS listing).
  std::optional<std::set<std::string>> candidate_functions;
  std::string candidate_library;  ///< the candidate's own shared object: loading it is no finding
  std::chrono::seconds call_deadline{20};
  cudaStream_t stream = nullptr;
  uint32_t stream_id = 0;  ///< the monitor's id of `stream`
  /// The monitor's ids of the legacy and per-thread default streams: ptxb_plan gets no stream,
  /// and the kernels it may launch (docs/abi.md) go to one of these.
  std::set<uint32_t> default_stream_ids;
  PhaseClock phases;  ///< where the worker's time goes ("phases" message)
};

class CandidateScope {
 public:
  /// Starts watching; `what` names the stretch in messages ("ptxb_run at M=... (case 3)").
  /// `limit` overrides the context's per-call deadline.
  CandidateScope(StageContext& ctx, std::string what,
                 std::chrono::seconds limit = std::chrono::seconds(0));
  /// Without close(): stops the watchdog and disarms, reporting nothing (an exception is on its
  /// way).
  ~CandidateScope();
  CandidateScope(const CandidateScope&) = delete;
  CandidateScope& operator=(const CandidateScope&) = delete;

  /// Kernels on the default streams are no finding (ptxb_plan, which gets no stream; close()
  /// waits for the whole device, so its work ends inside the stretch).
  void allow_default_streams() { default_streams_allowed_ = true; }
  /// Arms / disarms the monitor only (timing brackets each candidate call, not the baseline's).
  void arm();
  void disarm();
  /// Drains the stream (throws CandidateFault on a CUDA error), stops watching, and sends one
  /// "candidate_violation" message per finding. With any finding it then sends "stopped" and
  /// ends the process at once (status kExitCandidateViolation): no unwinding, so no destructor,
  /// library unload or CUDA teardown races a thread the candidate left running, and no more
  /// candidate code runs. The verdict is rejected_cheat whatever would have followed.
  void close();

 private:
  StageContext& ctx_;
  std::string what_;
  HostState before_;
  int64_t peak_before_ = 0;
  bool open_ = true;
  bool default_streams_allowed_ = false;
};

}  // namespace ptxb
