// Where the answers of a run come from: an OpenAI-compatible endpoint, or one of two offline
// models that need no network: `reference` answers with the task's expert solution (the whole
// pipeline runs with no API key) and `replay` re-serves the answers recorded in an attempt
// export (re-judging, scripted multi-turn tests).
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "llm/chat_client.hpp"
#include "tasks/spec.hpp"

namespace ptxb {

/// One request of the run loop: the conversation for turn `turn` of sample `sample` of `task`.
struct ModelQuery {
  const TaskSpec* task = nullptr;
  int sample = 0;
  int turn = 0;
  std::vector<ChatMessage> messages;
};

class Model {
 public:
  virtual ~Model() = default;
  /// Recorded as the run's model ("reference", "replay", or the endpoint's model name).
  virtual std::string name() const = 0;
  /// The answer, or a failed ChatResult with the reason. Never throws for a bad answer.
  /// Thread-safe: the run loop calls it from several threads.
  virtual ChatResult answer(const ModelQuery& query) = 0;
};

/// An OpenAI-compatible chat-completions endpoint through `client` (which must outlive it).
class EndpointModel final : public Model {
 public:
  explicit EndpointModel(ChatClient& client) : client_(client) {}
  std::string name() const override { return client_.config().model; }
  ChatResult answer(const ModelQuery& query) override { return client_.complete(query.messages); }

 private:
  ChatClient& client_;
};

/// Answers every turn with kernels_dir/<task id, '/' and '-' as '_'>.cu in a ```cuda block.
class ReferenceModel final : public Model {
 public:
  explicit ReferenceModel(std::filesystem::path kernels_dir) : dir_(std::move(kernels_dir)) {}
  std::string name() const override { return "reference"; }
  ChatResult answer(const ModelQuery& query) override;

 private:
  std::filesystem::path dir_;
};

/// The file of the expert solution of task `id` under `kernels_dir`.
std::filesystem::path expert_solution_path(const std::filesystem::path& kernels_dir,
                                           const std::string& id);

/// Re-serves the response texts of an attempt export (store/export.hpp) by (task, sample, turn);
/// a query with no recorded answer fails with a message that says so.
class ReplayModel final : public Model {
 public:
  /// Reads the export; throws InputError for a missing or malformed file.
  explicit ReplayModel(const std::filesystem::path& export_file);
  std::string name() const override { return "replay"; }
  ChatResult answer(const ModelQuery& query) override;
  size_t size() const { return answers_.size(); }

 private:
  struct Recorded {
    std::string content, reasoning;
    int64_t prompt_tokens = 0, completion_tokens = 0;
  };
  std::map<std::tuple<std::string, int, int>, Recorded> answers_;
};

}  // namespace ptxb
