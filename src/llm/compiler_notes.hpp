// What the compiler said about code that compiled, for the repair loop's feedback
// (llm/feedback.hpp): per kernel its registers and any spills (ptxas -v), then ptxas's coded
// performance diagnostics (C7508 setmaxnreg ignored, C7510-C7515 and C7520 wgmma serialized,
// C7517 and C7519 warpgroup wait or arrive injected, ...), the first line of each code with the
// count of the others. All of it is about the source alone, the same for every shape, so none of
// it falls under the redaction rule for hidden shapes.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

namespace ptxb {

struct CompilerNoteLimits {
  size_t max_kernels = 8;  ///< functions listed with their resources (the first ones)
  size_t max_codes = 6;    ///< distinct diagnostic codes quoted (the first ones)
};

/// The notes for the verdict's `compile` record (docs/result-schema.md: `resources[]`,
/// `quality_flags[]`); "" when it lists neither a function ptxas compiled nor a diagnostic code.
std::string compiler_notes(const nlohmann::json& compile, const CompilerNoteLimits& limits = {});

/// A function name as ptxas prints it (mangled), as its author wrote it: demangled, without
/// "(anonymous namespace)::" and without the parameter list ("gemm_tile<1>"). A name that does
/// not demangle comes back unchanged.
std::string readable_function(const std::string& mangled);

}  // namespace ptxb
