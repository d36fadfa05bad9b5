// The attempt export (JSON Lines, schema 1): the documented fields, a round-trip through the
// reader of every field, and errors that name the field and the line.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <sstream>

#include "store/export.hpp"
#include "store/store.hpp"
#include "test_store_records.hpp"

namespace ptxb {
namespace {

using namespace store_test;

struct TwoRuns {
  ResultStore store = ResultStore::in_memory();
  RunRecord run_a = sample_run("run-a");
  RunRecord run_b = sample_run("run-b");
  std::vector<AttemptRecord> attempts;  // in export order
  std::vector<std::optional<EvaluationRecord>> evaluations;

  TwoRuns() {
    run_a.id = store.create_run(run_a);
    run_b.model = "reference";
    run_b.endpoint = "";
    run_b.id = store.create_run(run_b);
    add(run_a.id, "sm90/gemm/bf16-wgmma-tma", 0, 0, false);
    add(run_a.id, "sm90/gemm/bf16-wgmma-tma", 0, 1, true);
    AttemptRecord no_code = sample_attempt(run_a.id, "sm90/gemm/bf16-wgmma-tma", 1, 0);
    no_code.status = GenerationStatus::kNoCode;
    no_code.code = std::nullopt;
    no_code.latency_s = std::numeric_limits<double>::quiet_NaN();
    no_code.id = store.insert_attempt(no_code);
    attempts.push_back(no_code);
    evaluations.push_back(std::nullopt);  // not judged: "evaluation": null
    add(run_b.id, "sm90/attention/fwd-bf16", 0, 0, true);
  }

  void add(int64_t run_id, const std::string& task, int sample, int turn, bool success) {
    AttemptRecord a = sample_attempt(run_id, task, sample, turn);
    a.feedback = success ? "" : "turn " + std::to_string(turn) + " failed: fix the tile loop";
    a.id = store.insert_attempt(a);
    EvaluationRecord e = sample_evaluation(a.id, success);
    store.insert_evaluation(e);
    attempts.push_back(a);
    evaluations.push_back(e);
  }
};

std::vector<AttemptExport> read_back(const std::string& text) {
  std::istringstream in(text);
  std::vector<AttemptExport> out;
  read_attempt_export(in, [&](AttemptExport&& record) { out.push_back(std::move(record)); });
  return out;
}

TEST(StoreExport, RoundTripsEveryField) {
  TwoRuns fixture;
  std::ostringstream out;
  EXPECT_EQ(export_all_runs(fixture.store, out), 4u);
  const std::string text = out.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4);
  const std::vector<AttemptExport> back = read_back(text);
  ASSERT_EQ(back.size(), fixture.attempts.size());
  for (size_t i = 0; i < back.size(); ++i) {
    SCOPED_TRACE("attempt " + std::to_string(i));
    expect_same(back[i].run, i < 3 ? fixture.run_a : fixture.run_b);
    expect_same(back[i].attempt, fixture.attempts[i]);
    ASSERT_EQ(back[i].evaluation.has_value(), fixture.evaluations[i].has_value());
    if (back[i].evaluation) expect_same(*back[i].evaluation, *fixture.evaluations[i]);
  }

  std::ostringstream one_run;
  EXPECT_EQ(export_run(fixture.store, fixture.run_b.id, one_run), 1u);
  EXPECT_EQ(read_back(one_run.str()).at(0).attempt.task_id, "sm90/attention/fwd-bf16");
  std::ostringstream none;
  EXPECT_THROW(export_run(fixture.store, 999, none), InputError);
}

TEST(StoreExport, LineHasTheDocumentedFields) {
  TwoRuns fixture;
  const nlohmann::json line = nlohmann::json::parse(
      attempt_export_line(fixture.run_a, fixture.attempts[0], fixture.evaluations[0]));
  std::vector<std::string> keys;
  for (const auto& item : line.items()) keys.push_back(item.key());
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "attempt_id", "code", "created_at", "error", "evaluation", "feedback",
                      "latency_s", "reasoning", "request", "response", "response_text", "retries",
                      "run", "sample", "schema", "status", "task", "turn", "usage"}));
  EXPECT_EQ(line["schema"], 1);
  EXPECT_EQ(line["run"]["name"], "run-a");
  EXPECT_EQ(line["request"]["messages"][1]["role"], "user");
  EXPECT_EQ(line["usage"]["completion_tokens"], 5'000'000'000LL);
  EXPECT_EQ(line["evaluation"]["speedups"][1]["hidden"], true);
  EXPECT_EQ(line["evaluation"]["verdict"]["schema"], 2);

  const nlohmann::json no_code =
      attempt_export_json(fixture.run_a, fixture.attempts[2], fixture.evaluations[2]);
  EXPECT_TRUE(no_code["code"].is_null());
  EXPECT_TRUE(no_code["evaluation"].is_null());
  EXPECT_EQ(no_code["status"], "no_code");
  EXPECT_EQ(no_code["latency_s"], "NaN");
}

TEST(StoreExport, InvalidUtf8IsReplacedNotFatal) {
  TwoRuns fixture;
  AttemptRecord a = fixture.attempts[0];
  a.response_text = "cut in the middle of \xE2\x9C";  // a truncated UTF-8 sequence
  const AttemptExport back =
      parse_attempt_export_line(attempt_export_line(fixture.run_a, a, std::nullopt));
  EXPECT_EQ(back.attempt.response_text, "cut in the middle of \xEF\xBF\xBD");  // U+FFFD
}

TEST(StoreExport, ReaderNamesTheFieldAndTheLine) {
  TwoRuns fixture;
  nlohmann::json good =
      attempt_export_json(fixture.run_a, fixture.attempts[0], fixture.evaluations[0]);
  auto error_of = [](const std::string& text) {
    try {
      read_back(text);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  nlohmann::json newer = good;
  newer["schema"] = 2;
  EXPECT_NE(error_of(good.dump() + "\n\n" + newer.dump() + "\n")
                .find("line 3: attempt export "
                      "schema 2"),
            std::string::npos);
  nlohmann::json missing = good;
  missing["run"].erase("model");
  EXPECT_NE(error_of(missing.dump()).find("line 1: field `run.model` is missing"),
            std::string::npos);
  nlohmann::json mistyped = good;
  mistyped["evaluation"]["speedups"][0]["speedup"] = "fast";
  EXPECT_NE(error_of(mistyped.dump()).find("`speedups[0].speedup` must be a number"),
            std::string::npos)
      << error_of(mistyped.dump());
  nlohmann::json bad_status = good;
  bad_status["status"] = "maybe";
  EXPECT_NE(error_of(bad_status.dump()).find("unknown value 'maybe'"), std::string::npos);
  EXPECT_NE(error_of("{not json").find("line 1: attempt export line is not JSON"),
            std::string::npos);
  EXPECT_EQ(error_of(good.dump() + "\n   \n" + good.dump()), "no error");
}

}  // namespace
}  // namespace ptxb
