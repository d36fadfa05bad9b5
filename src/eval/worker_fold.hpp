// Reads what a worker run left behind (its signed messages and how it ended) into the verdict
// record and the outcome it implies (docs/evaluation.md, docs/threat-model.md).
#pragma once

#include <string>

#include "core/outcome.hpp"
#include "sys/process.hpp"
#include "verdict/verdict.hpp"

namespace ptxb {

struct WorkerOutcome {
  Outcome outcome = Outcome::kPassed;
  std::string reason;
};

/// Ratio above which a speedup over the library is flagged for audit (not a verdict by itself).
inline constexpr double kAuditSpeedup = 1.15;

/// Folds the messages (verified against `message_key`) and the end of the worker process into
/// an outcome, and fills the verdict's correctness and timing and its record's environment,
/// isolation, worker, violations, audit and counters. Throws ApiError when the worker reports a
/// harness error or never started.
WorkerOutcome fold_worker(const ProcessResult& proc, const std::string& message_key,
                          Verdict& verdict);

}  // namespace ptxb
