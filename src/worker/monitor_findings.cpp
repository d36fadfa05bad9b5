#include "worker/monitor_findings.hpp"

namespace ptxb {

std::vector<std::string> monitor_violations(
    const MonitorReport& report, const std::set<uint32_t>& allowed_streams,
    const std::optional<std::set<std::string>>& candidate_functions) {
  std::vector<std::string> out;
  for (const std::string& call : report.forbidden_api_calls)
    out.push_back("called " + call + ", which the ABI forbids");
  for (const uint64_t bytes : report.foreign_modules)
    out.push_back("loaded a module of " + std::to_string(bytes) +
                  " bytes that its own compiled device code does not hold (code no static listing "
                  "shows)");
  std::set<std::string> seen;
  for (const MonitoredKernel& k : report.kernels) {
    std::string finding;
    if (k.from_other_thread)
      finding = "launched " + k.name + " from a host thread it started";
    else if (!k.from_candidate)
      continue;  // PTXBench's own kernels
    else if (allowed_streams.count(k.stream_id) == 0)
      finding = "launched " + k.name + " on a stream other than the one it was given";
    else if (candidate_functions && candidate_functions->count(k.name) == 0)
      finding = "launched " + k.name + ", a kernel its own code does not define (library code)";
    if (!finding.empty() && seen.insert(finding).second) out.push_back(finding);
  }
  return out;
}

}  // namespace ptxb
