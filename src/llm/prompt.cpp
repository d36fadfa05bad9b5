#include "llm/prompt.hpp"

namespace ptxb {

const std::string& system_prompt() {
  static const std::string kText =
      "You are an expert GPU kernel engineer. You write CUDA C++ with inline PTX for NVIDIA "
      "Hopper and Blackwell GPUs, and you hold your kernels to the standard of NVIDIA's own "
      "libraries: correct on every shape, using the architecture's instructions for the real "
      "work, and fast. Answer with the complete source file in one fenced ```cuda block.";
  return kText;
}

std::vector<ChatMessage> conversation(const TaskSpec& task, const std::vector<PastTurn>& past) {
  std::vector<ChatMessage> messages = {{ChatRole::kSystem, system_prompt()},
                                       {ChatRole::kUser, task.prompt}};
  for (const PastTurn& turn : past) {
    messages.push_back({ChatRole::kAssistant, turn.answer});
    messages.push_back(
        {ChatRole::kUser,
         "PTXBench judged your previous answer:\n\n" + turn.feedback +
             "\nWrite an improved version: fix what failed, or if everything passed, make it "
             "faster while keeping it correct and keeping the target instructions doing the "
             "work. Reply with the whole source file in one fenced ```cuda block."});
  }
  return messages;
}

}  // namespace ptxb
