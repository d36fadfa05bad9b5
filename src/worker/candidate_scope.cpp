#include "worker/candidate_scope.hpp"

#include "worker/stage_helpers.hpp"

namespace ptxb {

std::vector<std::string> monitor_violations(
    const MonitorReport& report, uint32_t stream_id,
    const std::optional<std::set<std::string>>& candidate_functions) {
  std::vector<std::string> out;
  for (const std::string& call : report.forbidden_api_calls)
    out.push_back("called " + call + ", which the ABI forbids");
  std::set<std::string> seen;
  for (const MonitoredKernel& k : report.kernels) {
    std::string finding;
    if (k.from_other_thread)
      finding = "launched " + k.name + " from a host thread it started";
    else if (!k.from_candidate)
      continue;  // PTXBench's own kernels
    else if (k.stream_id != stream_id)
      finding = "launched " + k.name + " on a stream other than the one it was given";
    else if (candidate_functions && candidate_functions->count(k.name) == 0)
      finding = "launched " + k.name + ", a kernel its own code does not define (library code)";
    if (!finding.empty() && seen.insert(finding).second) out.push_back(finding);
  }
  return out;
}

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

std::vector<std::string> CandidateScope::close() {
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
    for (std::string& f : monitor_violations(report, ctx_.stream_id, ctx_.candidate_functions))
      findings.push_back(std::move(f));
  }
  for (const std::string& f : findings)
    ctx_.out.send({{"type", "candidate_violation"}, {"during", what_}, {"finding", f}});
  return findings;
}

}  // namespace ptxb
