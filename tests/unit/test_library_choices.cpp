// The library's plan choices cached between evaluations (eval/library_choices.hpp): they come
// back as stored, merge by problem, device and library, and any file that is not exactly what the
// parent wrote (torn, edited, of another schema) is a miss, never an error. The worker's report of
// them counts only from before the candidate loaded (eval/worker_fold.cpp): one after the
// "sandbox" message is a forged protocol message.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "eval/library_choices.hpp"
#include "eval/worker_fold.hpp"
#include "protocol/protocol.hpp"
#include "sys/files.hpp"
#include "verdict/verdict.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

json choice(const std::string& problem, int index, const std::string& device = "H200") {
  return {{"library", "cublaslt 130100"},
          {"problem", problem},
          {"index", index},
          {"algo", "00ff"},
          {"device", device}};
}

void write_text(const std::filesystem::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary) << text;
}

TEST(LibraryChoices, TheFileIsKeyedByTaskAndDevice) {
  const std::filesystem::path a = library_choices_path("/c", "task-a", 0);
  EXPECT_EQ(a.parent_path(), std::filesystem::path("/c/library-choices"));
  EXPECT_NE(a, library_choices_path("/c", "task-b", 0));
  EXPECT_NE(a, library_choices_path("/c", "task-a", 1));
  EXPECT_EQ(a, library_choices_path("/c", "task-a", 0));
}

TEST(LibraryChoices, StoredChoicesComeBackAndMergeBySlot) {
  TempDir dir("ptxb-choices");
  const std::filesystem::path file = library_choices_path(dir.path(), "t", 0);
  EXPECT_EQ(load_library_choices(file), json::array()) << "no file: a miss";
  store_library_choices(file, json::array({choice("4096", 0), choice("8192", 6)}));
  EXPECT_EQ(load_library_choices(file), json::array({choice("4096", 0), choice("8192", 6)}));
  // A new choice for 8192 on the same device replaces the stored one; another device's is added.
  store_library_choices(file, json::array({choice("8192", 2), choice("8192", 5, "H100"), 7}));
  EXPECT_EQ(load_library_choices(file),
            json::array({choice("4096", 0), choice("8192", 2), choice("8192", 5, "H100")}));
}

TEST(LibraryChoices, AnythingButWhatTheParentWroteIsAMiss) {
  TempDir dir("ptxb-choices");
  const std::filesystem::path file = library_choices_path(dir.path(), "t", 0);
  store_library_choices(file, json::array({choice("4096", 0)}));
  json stored = json::parse(read_file(file));
  // A choice edited in place (a slower plan's index): the checksum no longer matches.
  stored["choices"][0]["index"] = 7;
  write_text(file, stored.dump());
  EXPECT_EQ(load_library_choices(file), json::array());
  stored["choices"][0]["index"] = 0;
  stored["schema"] = kLibraryChoicesSchema + 1;
  write_text(file, stored.dump());
  EXPECT_EQ(load_library_choices(file), json::array()) << "another schema";
  write_text(file, stored.dump().substr(0, 40));
  EXPECT_EQ(load_library_choices(file), json::array()) << "torn";
  write_text(file, "[1, 2]");
  EXPECT_EQ(load_library_choices(file), json::array()) << "not the stored form";
  // Storing over a bad file writes a good one.
  store_library_choices(file, json::array({choice("4096", 1)}));
  EXPECT_EQ(load_library_choices(file), json::array({choice("4096", 1)}));
}

ProcessResult worker_said(const std::vector<json>& messages) {
  ProcessResult p;
  p.exit_code = 0;
  for (const json& m : messages) p.result_bytes += m.dump() + "\n";
  return p;
}

const json kHello = {{"type", "hello"}, {"protocol", kWorkerProtocolVersion}};
const json kSandbox = {{"type", "sandbox"}, {"report", "off"}};
const json kDone = {{"type", "done"}};

TEST(LibraryChoices, TheWorkersReportCountsOnlyBeforeTheCandidateLoads) {
  const json report = {{"type", "library_choices"}, {"choices", json::array({choice("4096", 0)})}};
  Verdict before;
  const WorkerOutcome ok = fold_worker(worker_said({kHello, report, kSandbox, kDone}), "", before);
  EXPECT_EQ(ok.outcome, Outcome::kPassed);
  EXPECT_EQ(before.record["library_choices"], json::array({choice("4096", 0)}));

  // Written after the sandbox message: by candidate code, which would have later evaluations
  // time the library with the plan it names.
  Verdict after;
  const WorkerOutcome forged =
      fold_worker(worker_said({kHello, kSandbox, report, kDone}), "", after);
  EXPECT_EQ(forged.outcome, Outcome::kRejectedCheat);
  EXPECT_NE(forged.reason.find("forged protocol message"), std::string::npos) << forged.reason;
  EXPECT_FALSE(after.record.contains("library_choices"));
}

}  // namespace
}  // namespace ptxb
