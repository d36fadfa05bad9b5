// Reads what a worker run left behind (its signed messages and how it ended) into the verdict
// record and the outcome it implies (docs/evaluation.md, docs/threat-model.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/outcome.hpp"
#include "sys/process.hpp"

namespace ptxb {

struct WorkerOutcome {
  Outcome outcome = Outcome::kPassed;
  std::string reason;
};

/// Ratio above which a speedup over the library is flagged for audit (not a verdict by itself).
inline constexpr double kAuditSpeedup = 1.15;

/// Folds the messages (verified against `message_key`) and the end of the worker process into
/// an outcome, and fills `record` (correctness, timing, environment, isolation, worker, audit).
/// Throws ApiError when the worker reports a harness error or never started.
WorkerOutcome fold_worker(const ProcessResult& proc, const std::string& message_key,
                          nlohmann::json& record);

}  // namespace ptxb
