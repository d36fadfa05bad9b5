// The feedback a model gets about its previous answer in the repair loop: a short structured text
// built from the verdict (outcome, compiler errors, first mismatches with coordinates, target
// evidence per kernel, what the compiler said about code that compiled (llm/compiler_notes.hpp),
// time against the library). One redaction rule for hidden shapes: a model
// learns their label ("hidden shape #n"), pass/fail and speedup only: no sizes, times, TFLOP/s,
// element, byte or instruction counts, coordinates or shares, in any part, the reason included.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "tasks/spec.hpp"

namespace ptxb {

struct FeedbackOptions {
  size_t max_compile_lines = 20;  ///< compiler error lines kept (the first ones)
  size_t max_failing_cases = 3;   ///< correctness cases described in detail
  size_t max_chars = 8000;        ///< the whole text is cut here (with a note)
};

/// The feedback text for a verdict JSON (docs/result-schema.md) of `task`. `verdict` may also be
/// the pseudo-verdict {"outcome": "no_code"} of an answer without a code block.
std::string render_feedback(const TaskSpec& task, const nlohmann::json& verdict,
                            const FeedbackOptions& options = {});

/// `text` with every hidden shape of `task` written as "hidden shape #n" instead of its sizes
/// (both the "B=2 H=8 S=1000" and the JSON {"B":2,...} forms).
std::string redact_hidden_shapes(const TaskSpec& task, std::string text);

}  // namespace ptxb
