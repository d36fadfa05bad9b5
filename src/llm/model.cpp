#include "llm/model.hpp"

#include <fstream>

#include "core/error.hpp"
#include "store/export.hpp"
#include "sys/files.hpp"

namespace ptxb {
namespace {

nlohmann::json request_json(const ModelQuery& query, const std::string& model) {
  nlohmann::json messages = nlohmann::json::array();
  for (const ChatMessage& m : query.messages)
    messages.push_back({{"role", chat_role_name(m.role)}, {"content", m.content}});
  return {{"model", model}, {"messages", messages}};
}

ChatResult offline_answer(const ModelQuery& query, const std::string& model, std::string content) {
  ChatResult r;
  r.status = ChatStatus::kOk;
  r.content = std::move(content);
  r.finish_reason = "stop";
  r.request = request_json(query, model);
  r.response = {{"model", model}, {"offline", true}};
  return r;
}

ChatResult offline_failure(const ModelQuery& query, const std::string& model, std::string why) {
  ChatResult r;
  r.status = ChatStatus::kFailed;
  r.error = std::move(why);
  r.request = request_json(query, model);
  return r;
}

}  // namespace

std::filesystem::path expert_solution_path(const std::filesystem::path& kernels_dir,
                                           const std::string& id) {
  std::string file = id;
  for (char& c : file)
    if (c == '/' || c == '-') c = '_';
  return kernels_dir / (file + ".cu");
}

ChatResult ReferenceModel::answer(const ModelQuery& query) {
  const std::filesystem::path path = expert_solution_path(dir_, query.task->id);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return offline_failure(query, name(),
                           "no expert solution for " + query.task->id + " (" + path.string() + ")");
  return offline_answer(query, name(),
                        "The expert solution:\n\n```cuda\n" + read_file(path) + "```\n");
}

ReplayModel::ReplayModel(const std::filesystem::path& export_file) {
  std::ifstream in(export_file);
  if (!in) throw InputError("replay: cannot read " + export_file.string());
  read_attempt_export(in, [&](AttemptExport&& e) {
    const AttemptRecord& a = e.attempt;
    answers_[{a.task_id, a.sample, a.turn}] = {a.response_text, a.reasoning_text, a.prompt_tokens,
                                               a.completion_tokens};
  });
}

ChatResult ReplayModel::answer(const ModelQuery& query) {
  const auto it = answers_.find({query.task->id, query.sample, query.turn});
  if (it == answers_.end())
    return offline_failure(query, name(),
                           "replay: no recorded answer for " + query.task->id + " sample " +
                               std::to_string(query.sample) + " turn " +
                               std::to_string(query.turn));
  ChatResult r = offline_answer(query, name(), it->second.content);
  r.reasoning = it->second.reasoning;
  r.prompt_tokens = it->second.prompt_tokens;
  r.completion_tokens = it->second.completion_tokens;
  return r;
}

}  // namespace ptxb
