// The evaluation pipeline (parent side): static stage -> worker (correctness, timing) -> verdict.
// Judging never throws for a bad candidate; it throws only when PTXBench itself cannot run
// (InputError for bad task ids or paths, ApiError/InternalError for our failures).
#pragma once

#include <filesystem>
#include <string>

#include "eval/config.hpp"
#include "tasks/spec.hpp"
#include "verdict/verdict.hpp"

namespace ptxb {

struct EvalRequest {
  std::string source;                 ///< the submission's text
  std::filesystem::path source_path;  ///< for the record only
  std::string task_id;
};

Verdict evaluate(const EvalRequest& request, const EvalConfig& config);

}  // namespace ptxb
