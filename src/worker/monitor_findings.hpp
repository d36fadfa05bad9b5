// The ABI violations in what the CUPTI monitor gathered while candidate code ran
// (docs/threat-model.md). Pure, so that the rules are tested without a GPU.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "worker/monitor.hpp"

namespace ptxb {

/// Forbidden API calls, modules loaded that the candidate's compiled device code does not hold,
/// and kernels launched from a host thread the candidate started, on a
/// stream outside `allowed_streams` (CUPTI stream ids), or not defined by the candidate
/// (`candidate_functions`, mangled names; nullopt: unknown). One finding per distinct text.
std::vector<std::string> monitor_violations(
    const MonitorReport& report, const std::set<uint32_t>& allowed_streams,
    const std::optional<std::set<std::string>>& candidate_functions);

}  // namespace ptxb
