// The library's plan choices cached between evaluations (eval/library_choices.hpp): they come
// back as stored, merge by problem, device and library, and any file that is not exactly what the
// parent wrote (torn, edited, of another schema) is a miss, never an error. The worker's report of
// them counts only from before the candidate loaded (eval/worker_fold.cpp): one after the
// "sandbox" message is a forged protocol message.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "baselines/plan_choices.hpp"
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

// What a baseline's prefer() keeps (baselines/plan_choices.hpp): its own library's well-formed
// choices by problem, the later of two for one problem; malformed ones and other libraries' are
// skipped, and anything but an array gives none.
TEST(LibraryChoices, ABaselineKeepsItsLibrarysWellFormedChoicesByProblem) {
  json later = choice("64x64x64 bf16", 3);
  later["median_us"] = 12.5;
  json no_plan = choice("1x1x1 bf16", 0);
  no_plan.erase("algo");
  json text_median = choice("2x2x2 bf16", 0);
  text_median["median_us"] = "fast";
  json other_library = choice("3x3x3 bf16", 0);
  other_library["library"] = "cublaslt 120000";
  json text_index = choice("4x4x4 bf16", 0);
  text_index["index"] = "0";
  const json choices = json::array({choice("64x64x64 bf16", 1), later, no_plan, text_median,
                                    other_library, text_index, 7, choice("8x8x8 bf16", 2)});
  const auto kept = choices_by_problem(choices, "cublaslt 130100", "algo");
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept.at("64x64x64 bf16"), later);
  EXPECT_EQ(kept.at("8x8x8 bf16")["index"], 2);
  EXPECT_TRUE(choices_by_problem(choices, "cublaslt 130100", "name").empty());  // no "name"
  EXPECT_TRUE(choices_by_problem(json::object(), "cublaslt 130100", "algo").empty());
}

}  // namespace
}  // namespace ptxb
