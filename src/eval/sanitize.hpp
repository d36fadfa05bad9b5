// `ptxbench eval --sanitize`: the quick correctness cases again, each under one of the
// compute-sanitizer tools (memcheck, initcheck, racecheck, synccheck), in separate worker runs.
// Findings are part of the verdict (docs/evaluation.md).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "eval/config.hpp"
#include "protocol/protocol.hpp"

namespace ptxb {

/// compute-sanitizer's findings in one tool's log.
struct SanitizerFindings {
  /// From "ERROR SUMMARY: N errors" (racecheck: "RACECHECK SUMMARY: ... (N errors, ...)");
  /// -1 when absent, or when the worker under the tool judged no case.
  int errors = -1;
  std::vector<std::string> first;  ///< the first few finding lines, "========= " prefix removed
};

/// Reads a compute-sanitizer log. Pure, for tests on recorded logs.
SanitizerFindings parse_sanitizer_log(const std::string& log);

struct SanitizeResult {
  nlohmann::json record = nlohmann::json::array();  ///< per tool: tool, errors, first, seconds, end
  std::string failure;  ///< memcheck/initcheck errors: the verdict becomes incorrect with this
  std::vector<std::string> audit;  ///< racecheck/synccheck findings: flagged, not failed
};

/// compute-sanitizer: PTXBENCH_COMPUTE_SANITIZER, else on PATH, else /usr/local/cuda/bin.
std::filesystem::path default_compute_sanitizer();

/// Runs every tool over `job` (its correctness made quick, timing off), each in a worker folder
/// of its own (job_in_folder), its log in a folder only this process can write (candidate code
/// could otherwise replace the log that reports its errors).
SanitizeResult run_sanitizers(WorkerJob job, const EvalConfig& config);

}  // namespace ptxb
