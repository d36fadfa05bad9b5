// The conversation a model sees for a task (versioned text, DESIGN.md "LLM loop"): a short system
// message, the task's prompt (tasks/<id>/prompt.md: what to compute, tensors, visible shapes,
// tolerances, target instructions in our words, rules, answer format), and for a repair turn
// every earlier answer followed by the judge's feedback on it.
#pragma once

#include <string>
#include <vector>

#include "llm/chat_client.hpp"
#include "tasks/spec.hpp"

namespace ptxb {

/// Bumped whenever the text of system_prompt(), the repair request or the layout of the
/// conversation changes; stored with every run.
inline constexpr const char* kPromptVersion = "1";

/// The system message of every conversation.
const std::string& system_prompt();

/// One earlier turn of a sample: the model's answer (content only, no reasoning) and the feedback
/// rendered from its verdict (llm/feedback.hpp).
struct PastTurn {
  std::string answer;
  std::string feedback;
};

/// The messages for the next turn: system, task prompt, then per past turn its answer
/// (assistant) and a user message with its feedback and the request to fix or speed up the code.
std::vector<ChatMessage> conversation(const TaskSpec& task, const std::vector<PastTurn>& past);

}  // namespace ptxb
