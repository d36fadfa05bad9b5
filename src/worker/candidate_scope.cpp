#include "worker/candidate_scope.hpp"

#include <cstdlib>

#include "worker/monitor_findings.hpp"
#include "worker/stage_helpers.hpp"

namespace ptxb {

CandidateScope::CandidateScope(StageContext& ctx, std::string what, std::chrono::seconds limit)
    : ctx_(ctx),
      what_(std::move(what)),
      before_(capture_host_state()),
      peak_before_(peak_resident_bytes()) {
  ctx_.watchdog.begin(what_, limit.count() > 0 ? limit : ctx_.call_deadline);
  arm();
}

CandidateScope::~CandidateScope() {
  if (!open_) return;
  disarm();
  ctx_.watchdog.end();
}

void CandidateScope::arm() {
  if (ctx_.monitor != nullptr) ctx_.monitor->arm();
}

void CandidateScope::disarm() {
  if (ctx_.monitor != nullptr) ctx_.monitor->disarm();
}

void CandidateScope::close() {
  disarm();
  // Work the candidate left on the streams is still its own: the watchdog keeps running, and
  // a CUDA error is its fault. The device-wide wait covers other streams, so that their kernels'
  // records carry timestamps.
  check_after_candidate(ctx_.stream, what_);
  const cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess)
    throw CandidateFault(what_ + ": " + cudaGetErrorName(err) + ": " + cudaGetErrorString(err));
  open_ = false;
  ctx_.watchdog.end();
  HostState after = capture_host_state();
  after.mapped_libraries.erase(ctx_.candidate_library);
  before_.mapped_libraries.erase(ctx_.candidate_library);
  std::vector<std::string> findings = host_state_changes(before_, after);
  const int64_t grown = peak_resident_bytes() - peak_before_;
  if (grown > kHostMemoryAllowance)
    findings.push_back("touched " + std::to_string(grown >> 20) +
                       " MiB of host memory (peak resident size)");
  if (ctx_.monitor != nullptr) {
    const MonitorReport report = ctx_.monitor->collect();
    std::set<uint32_t> allowed = {ctx_.stream_id};
    if (default_streams_allowed_)
      allowed.insert(ctx_.default_stream_ids.begin(), ctx_.default_stream_ids.end());
    for (std::string& f : monitor_violations(report, allowed, ctx_.candidate_functions))
      findings.push_back(std::move(f));
  }
  if (findings.empty()) return;
  for (const std::string& f : findings)
    ctx_.out.send({{"type", "candidate_violation"}, {"during", what_}, {"finding", f}});
  ctx_.out.send({{"type", "stopped"}, {"during", what_}, {"reason", "a violation"}});
  std::_Exit(kExitCandidateViolation);
}

}  // namespace ptxb
