// The task's library baseline, chosen by its [baseline] library: cuBLASLt for GEMM, cuDNN SDPA
// (forward or backward by family) for attention.
#pragma once

#include <memory>

#include "tasks/spec.hpp"
#include "timing/implementation.hpp"

namespace ptxb {

/// A new, unplanned baseline for `task`. Opens the library (call before the sandbox applies).
std::unique_ptr<Implementation> make_library_baseline(const TaskSpec& task);

}  // namespace ptxb
