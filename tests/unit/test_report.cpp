// Report metrics (docs/report.md) on the fixed data set of test_report_fixture.hpp: every number
// is checked against a value computed by hand in the comments.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "report/render.hpp"
#include "report/report.hpp"
#include "test_report_fixture.hpp"

namespace ptxb {
namespace {

using report_test::Dataset;
using report_test::evaluation;
using report_test::kA1;
using report_test::kG1;
using report_test::kG2;
using report_test::make_dataset;

// Sample speedups (each shape clamped into [0.1, 10], then the geomean over shapes):
const double kAlphaG1s0 = std::sqrt(1.2 * 0.8);        // 0.9797958971
const double kAlphaG1s1 = std::sqrt(10 * 0.5);         // 20 -> 10: 2.2360679775
const double kAlphaG2s0 = std::cbrt(0.1 * 1.0 * 1.6);  // 0.05 -> 0.1: 0.5428835233
const double kAlphaA1s1 = 1.5;
const double kBetaG1s1 = std::sqrt(0.3 * 0.4);  // 0.3464101615
const double kBetaA1s0 = std::sqrt(0.9 * 1.1);  // 0.9949874371

void expect_rate(const Rate& r, int64_t k, int64_t n, const char* what) {
  EXPECT_EQ(r.k, k) << what;
  EXPECT_EQ(r.n, n) << what;
}

void expect_turns(const GroupMetrics& g, std::vector<int64_t> k) {
  ASSERT_EQ(g.success_by_turn.size(), k.size()) << g.family;
  for (size_t t = 0; t < k.size(); ++t) {
    EXPECT_EQ(g.success_by_turn[t].k, k[t]) << g.family << " turn " << t + 1;
    EXPECT_EQ(g.success_by_turn[t].n, g.samples) << g.family << " turn " << t + 1;
  }
}

void expect_fast(const GroupMetrics& g, std::vector<int64_t> k) {
  ASSERT_EQ(g.fast_p.size(), 3u);
  const double p[] = {0.5, 0.8, 1.0};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(g.fast_p[i].p, p[i]);
    expect_rate(g.fast_p[i].rate, k[i], g.samples, g.family.c_str());
  }
}

class ReportMetrics : public ::testing::Test {
 protected:
  Dataset data_ = make_dataset();
  Report report_ = build_report(data_.rows);
  const EntryReport& alpha() const { return report_.entries.at(0); }
  const EntryReport& beta() const { return report_.entries.at(1); }
};

TEST_F(ReportMetrics, EntriesRunsAndTurns) {
  // alpha succeeds on 4/5 samples, beta on 2/4: alpha ranks first.
  ASSERT_EQ(report_.entries.size(), 2u);
  EXPECT_EQ(alpha().name, "alpha");
  EXPECT_EQ(beta().name, "beta");
  EXPECT_EQ(alpha().runs, std::vector<std::string>{"alpha-run"});
  // T = max(alpha's settings 3, beta's 2, the largest turn seen 3).
  EXPECT_EQ(report_.turns, 3);
  ASSERT_EQ(report_.runs.size(), 2u);
  EXPECT_EQ(report_.runs[0].name, "alpha-run");
  EXPECT_EQ(report_.runs[0].price_prompt_per_mtok, 2.0);
  EXPECT_EQ(report_.runs[0].price_completion_per_mtok, 8.0);
  EXPECT_FALSE(report_.runs[1].price_prompt_per_mtok.has_value());
  // Families: gemm before attention_fwd.
  ASSERT_EQ(alpha().families.size(), 2u);
  EXPECT_EQ(alpha().families[0].family, "gemm");
  EXPECT_EQ(alpha().families[1].family, "attention_fwd");
  EXPECT_EQ(alpha().families[0].arch, "sm_90a");
  EXPECT_EQ(alpha().all.family, "all");
}

TEST_F(ReportMetrics, SamplesTakeTheirBestTurn) {
  // Sorted by run, task, sample: A1 s0, A1 s1, G1 s0, G1 s1, G2 s0.
  const auto& s = alpha().samples;
  ASSERT_EQ(s.size(), 5u);
  EXPECT_EQ(s[0].task_id, kA1);  // instruction_missing (correct) beats incorrect and failed
  EXPECT_EQ(s[0].best_turn, 1);
  EXPECT_EQ(s[0].outcome, "instruction_missing");
  EXPECT_TRUE(s[0].correct);
  EXPECT_FALSE(s[0].targets_executed);
  EXPECT_FALSE(s[0].first_success_turn.has_value());
  EXPECT_FALSE(s[0].speedup.has_value());
  EXPECT_EQ(s[0].attempts, 3);
  EXPECT_EQ(s[3].task_id, kG1);  // compile_error, incorrect, passed
  EXPECT_EQ(s[3].sample, 1);
  EXPECT_EQ(s[3].best_turn, 3);
  EXPECT_EQ(s[3].first_success_turn, 3);
  EXPECT_NEAR(*s[3].speedup, kAlphaG1s1, 1e-12);
  EXPECT_EQ(s[4].task_id, kG2);  // no_code, passed
  EXPECT_EQ(s[4].first_success_turn, 2);
  EXPECT_NEAR(*s[4].speedup, kAlphaG2s0, 1e-12);

  // beta G1 s0: two compile errors -> the earlier turn keeps the tie.
  const auto& b = beta().samples;
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[1].task_id, kG1);
  EXPECT_EQ(b[1].outcome, "compile_error");
  EXPECT_EQ(b[1].best_turn, 1);
  EXPECT_FALSE(b[1].compiled);
  // beta G2 s0: incorrect (compiled) beats a later compile_error.
  EXPECT_EQ(b[3].task_id, kG2);
  EXPECT_EQ(b[3].outcome, "incorrect");
  EXPECT_TRUE(b[3].compiled);
  EXPECT_FALSE(b[3].correct);
}

TEST_F(ReportMetrics, AlphaGemm) {
  const GroupMetrics& g = alpha().families[0];
  EXPECT_EQ(g.tasks, 2);     // G1, G2
  EXPECT_EQ(g.samples, 3);   // G1 s0, G1 s1, G2 s0
  EXPECT_EQ(g.attempts, 6);  // 1 + 3 + 2
  expect_rate(g.compiled, 3, 3, "compiled");
  expect_rate(g.correct, 3, 3, "correct");
  expect_rate(g.targets_executed, 3, 3, "targets");
  expect_rate(g.success, 3, 3, "success");
  // Speedups 0.5429, 0.9798, 2.2361: geomean (sqrt(0.96) sqrt(5) cbrt(0.16))^(1/3) = 1.0595198.
  EXPECT_EQ(g.speedup.count, 3);
  EXPECT_NEAR(*g.speedup.geomean, std::cbrt(kAlphaG1s0 * kAlphaG1s1 * kAlphaG2s0), 1e-12);
  EXPECT_NEAR(*g.speedup.geomean, 1.0595198393, 1e-9);
  EXPECT_NEAR(*g.speedup.median, kAlphaG1s0, 1e-12);
  EXPECT_NEAR(*g.speedup.min, kAlphaG2s0, 1e-12);
  EXPECT_NEAR(*g.speedup.max, kAlphaG1s1, 1e-12);
  expect_fast(g, {3, 2, 1});   // >= 0.5: all; >= 0.8: 0.98 and 2.24; >= 1.0: 2.24
  expect_turns(g, {1, 2, 3});  // first successes at turns 1 (G1 s0), 3 (G1 s1), 2 (G2 s0)
  EXPECT_EQ(g.no_code_attempts, 1);
  EXPECT_EQ(g.failed_attempts, 0);
  EXPECT_EQ(g.unjudged_attempts, 0);
  EXPECT_EQ(g.prompt_tokens, 7700);         // 1000 + 1000 + 1500 + 2000 + 1000 + 1200
  EXPECT_EQ(g.completion_tokens, 2000);     // 400 + 300 + 300 + 500 + 100 + 400
  EXPECT_NEAR(*g.cost_usd, 0.0314, 1e-12);  // (7700 * 2 + 2000 * 8) / 1e6
  EXPECT_DOUBLE_EQ(g.model_seconds, 53);    // 10 + 8 + 9 + 12 + 4 + 10
  EXPECT_DOUBLE_EQ(g.judge_seconds, 87);    // 20 + 5 + 15 + 25 + 22
}

TEST_F(ReportMetrics, AlphaAttentionAndAll) {
  const GroupMetrics& a = alpha().families[1];
  EXPECT_EQ(a.tasks, 1);
  EXPECT_EQ(a.samples, 2);
  EXPECT_EQ(a.attempts, 4);
  expect_rate(a.compiled, 2, 2, "compiled");
  expect_rate(a.correct, 2, 2, "correct");  // A1 s0's best turn is instruction_missing
  expect_rate(a.targets_executed, 1, 2, "targets");
  expect_rate(a.success, 1, 2, "success");
  EXPECT_EQ(a.speedup.count, 1);
  EXPECT_DOUBLE_EQ(*a.speedup.geomean, 1.5);
  EXPECT_DOUBLE_EQ(*a.speedup.median, 1.5);
  expect_fast(a, {1, 1, 1});
  expect_turns(a, {1, 1, 1});
  EXPECT_EQ(a.no_code_attempts, 0);
  EXPECT_EQ(a.failed_attempts, 1);
  EXPECT_EQ(a.prompt_tokens, 9500);         // 3000 + 0 + 3500 + 3000
  EXPECT_EQ(a.completion_tokens, 2100);     // 600 + 0 + 700 + 800
  EXPECT_NEAR(*a.cost_usd, 0.0358, 1e-12);  // (9500 * 2 + 2100 * 8) / 1e6
  EXPECT_DOUBLE_EQ(a.model_seconds, 45);    // 15 + 0 + 16 + 14
  EXPECT_DOUBLE_EQ(a.judge_seconds, 70);    // 30 + 12 + 28

  const GroupMetrics& all = alpha().all;
  EXPECT_EQ(all.tasks, 3);
  EXPECT_EQ(all.samples, 5);
  EXPECT_EQ(all.attempts, 10);
  expect_rate(all.compiled, 5, 5, "compiled");
  expect_rate(all.correct, 5, 5, "correct");
  expect_rate(all.targets_executed, 4, 5, "targets");
  expect_rate(all.success, 4, 5, "success");
  // Speedups 0.5429, 0.9798, 1.5, 2.2361: geomean 1.1557253, median (0.9798 + 1.5) / 2.
  EXPECT_EQ(all.speedup.count, 4);
  EXPECT_NEAR(*all.speedup.geomean,
              std::pow(kAlphaG1s0 * kAlphaG1s1 * kAlphaG2s0 * kAlphaA1s1, 0.25), 1e-12);
  EXPECT_NEAR(*all.speedup.geomean, 1.1557253376, 1e-9);
  EXPECT_NEAR(*all.speedup.median, 1.2398979486, 1e-9);
  expect_fast(all, {4, 3, 2});
  expect_turns(all, {2, 3, 4});
  EXPECT_EQ(all.no_code_attempts, 1);
  EXPECT_EQ(all.failed_attempts, 1);
  EXPECT_EQ(all.prompt_tokens, 17200);
  EXPECT_EQ(all.completion_tokens, 4100);
  EXPECT_NEAR(*all.cost_usd, 0.0672, 1e-12);
  EXPECT_DOUBLE_EQ(all.model_seconds, 98);
  EXPECT_DOUBLE_EQ(all.judge_seconds, 157);
}

TEST_F(ReportMetrics, Beta) {
  const GroupMetrics& g = beta().families[0];  // G1 s0 (nothing), G1 s1 (passed), G2 s0
  EXPECT_EQ(g.tasks, 2);
  EXPECT_EQ(g.samples, 3);
  EXPECT_EQ(g.attempts, 5);
  expect_rate(g.compiled, 2, 3, "compiled");
  expect_rate(g.correct, 1, 3, "correct");
  expect_rate(g.targets_executed, 1, 3, "targets");
  expect_rate(g.success, 1, 3, "success");
  EXPECT_NEAR(*g.speedup.geomean, kBetaG1s1, 1e-12);  // one sample: 0.3464
  expect_fast(g, {0, 0, 0});                          // 0.35 < 0.5
  expect_turns(g, {1, 1, 1});        // the curve runs to the report's T = 3, flat after beta's 2
  EXPECT_EQ(g.prompt_tokens, 3950);  // 800 + 900 + 800 + 700 + 750
  EXPECT_EQ(g.completion_tokens, 1050);  // 200 + 250 + 300 + 150 + 150
  EXPECT_FALSE(g.cost_usd.has_value());  // beta's run states no prices
  EXPECT_DOUBLE_EQ(g.model_seconds, 26);
  EXPECT_DOUBLE_EQ(g.judge_seconds, 37);

  const GroupMetrics& a = beta().families[1];  // A1 s0: incorrect, then passed
  expect_rate(a.success, 1, 1, "success");
  expect_fast(a, {1, 1, 0});  // 0.995: >= 0.5 and >= 0.8, not >= 1.0
  expect_turns(a, {0, 1, 1});

  const GroupMetrics& all = beta().all;
  EXPECT_EQ(all.tasks, 3);
  EXPECT_EQ(all.samples, 4);
  EXPECT_EQ(all.attempts, 7);
  expect_rate(all.compiled, 3, 4, "compiled");
  expect_rate(all.correct, 2, 4, "correct");
  expect_rate(all.targets_executed, 2, 4, "targets");
  expect_rate(all.success, 2, 4, "success");
  // (sqrt(0.12) sqrt(0.99))^(1/2) = 0.1188^(1/4) = 0.5870892; median (0.3464 + 0.9950) / 2.
  EXPECT_NEAR(*all.speedup.geomean, std::pow(0.12 * 0.99, 0.25), 1e-12);
  EXPECT_NEAR(*all.speedup.median, (kBetaG1s1 + kBetaA1s0) / 2, 1e-12);
  EXPECT_NEAR(*all.speedup.median, 0.6706987993, 1e-9);
  expect_fast(all, {1, 1, 0});
  expect_turns(all, {1, 2, 2});
  EXPECT_EQ(all.prompt_tokens, 6050);
  EXPECT_EQ(all.completion_tokens, 1800);
  EXPECT_DOUBLE_EQ(all.model_seconds, 45);
  EXPECT_DOUBLE_EQ(all.judge_seconds, 84);
}

TEST_F(ReportMetrics, AuditCellsWithReasons) {
  ASSERT_EQ(report_.audit.size(), 2u);
  const AuditCell& a = report_.audit[0];
  EXPECT_EQ(a.entry, "alpha");
  EXPECT_EQ(a.run, "alpha-run");
  EXPECT_EQ(a.task_id, kG1);
  EXPECT_EQ(a.sample, 1);
  EXPECT_EQ(a.turn, 3);
  EXPECT_EQ(a.outcome, "passed");
  EXPECT_EQ(a.reason, "speedup 20.00x above 1.15x the library; second flag");
  const AuditCell& b = report_.audit[1];
  EXPECT_EQ(b.entry, "beta");
  EXPECT_EQ(b.task_id, kA1);
  EXPECT_EQ(b.turn, 1);
  EXPECT_EQ(b.reason, "output O mismatched at (3, 7)");  // no flags in the verdict
}

TEST(ReportSpeedup, ClampsEachShapeAndSkipsNaN) {
  auto shapes = [](std::vector<double> v) {
    std::vector<ShapeSpeedup> s;
    for (double x : v) s.push_back(ShapeSpeedup{"s", false, x, 0, 0});
    return s;
  };
  // 1000 -> 10 and 0 -> 0.1: geomean sqrt(10 * 0.1) = 1; without clamping 1000 would dominate.
  EXPECT_NEAR(*sample_speedup(shapes({1000, 0}), 0.1, 10), 1.0, 1e-15);
  EXPECT_NEAR(*sample_speedup(shapes({4, NAN, 1}), 0.1, 10), 2.0, 1e-15);
  EXPECT_FALSE(sample_speedup(shapes({}), 0.1, 10).has_value());
  EXPECT_FALSE(sample_speedup(shapes({NAN}), 0.1, 10).has_value());
  EXPECT_NEAR(*sample_speedup(shapes({20, 0.5}), 0.1, 100), std::sqrt(10.0), 1e-12);
}

TEST(ReportSpeedup, OptionsChangeClampAndThresholds) {
  Dataset d = make_dataset();
  ReportOptions o;
  o.speedup_cap = 100;
  o.fast_p = {2.0};
  const Report r = build_report(d.rows, o);
  // alpha G1 s1 is now sqrt(20 * 0.5) = 3.1623; alpha samples >= 2: only it (1 of 5).
  const EntryReport& alpha = r.entries.at(0);
  EXPECT_NEAR(*alpha.all.speedup.max, std::sqrt(10.0), 1e-12);
  ASSERT_EQ(alpha.all.fast_p.size(), 1u);
  expect_rate(alpha.all.fast_p[0].rate, 1, 5, "fast_2");
}

TEST(ReportSpeedup, SustainedSpeedupNeedsEveryTimedShape) {
  auto shapes = [](std::vector<double> cold, std::vector<std::optional<double>> sustained) {
    std::vector<ShapeSpeedup> s;
    for (size_t i = 0; i < cold.size(); ++i)
      s.push_back(ShapeSpeedup{"s", false, cold[i], 0, 0, sustained[i]});
    return s;
  };
  EXPECT_NEAR(*sample_sustained_speedup(shapes({1, 1}, {4.0, 1.0}), 0.1, 10), 2.0, 1e-15);
  EXPECT_NEAR(*sample_sustained_speedup(shapes({1, NAN}, {0.01, std::nullopt}), 0.1, 10), 0.1,
              1e-15)
      << "clamped like the cold speedup; a shape without a cold speedup is skipped";
  EXPECT_FALSE(sample_sustained_speedup(shapes({1, 1}, {2.0, std::nullopt}), 0.1, 10))
      << "one timed shape without it: not comparable, absent";

  Dataset d;
  const RunRecord* run = d.run("r", "m", nlohmann::json::object());
  EvaluationRecord e = evaluation("passed", 1, {0.5, 2.0});
  e.speedups[0].sustained_speedup = 0.25;
  e.speedups[1].sustained_speedup = 1.0;
  d.add(run, kG1, 0, 1, 10, 10, 1, e);
  d.add(run, kG1, 1, 1, 10, 10, 1, evaluation("passed", 1, {1.0}));  // not measured
  const Report r = build_report(d.rows);
  const EntryReport& entry = r.entries.at(0);
  EXPECT_NEAR(*entry.samples.at(0).sustained_speedup, 0.5, 1e-15);
  EXPECT_FALSE(entry.samples.at(1).sustained_speedup.has_value());
  EXPECT_EQ(entry.all.sustained_speedup.count, 1);
  EXPECT_NEAR(*entry.all.sustained_speedup.geomean, 0.5, 1e-15);
  EXPECT_EQ(entry.all.speedup.count, 2) << "the cold statistics are unchanged";
}

TEST(ReportSpeedup, RegimesGetTheirOwnClampedGeomeans) {
  auto shape = [](const char* regime, double speedup) {
    ShapeSpeedup s{"s", false, speedup, 0, 0};
    s.regime = regime;
    return s;
  };
  const auto per_regime = sample_regime_speedups(
      {shape("decode", 0.5), shape("prefill", 1.2), shape("decode", 0.02), shape("", 3.0)}, 0.1,
      10);
  ASSERT_EQ(per_regime.size(), 2u) << "a shape without a regime counts in none";
  EXPECT_EQ(per_regime[0].first, "decode");
  EXPECT_NEAR(per_regime[0].second, std::sqrt(0.5 * 0.1), 1e-15) << "clamped";
  EXPECT_EQ(per_regime[1].first, "prefill");

  Dataset d;
  const RunRecord* run = d.run("r", "m", nlohmann::json::object());
  EvaluationRecord a = evaluation("passed", 1, {0.5, 2.0});
  a.speedups[0].regime = "decode";
  a.speedups[1].regime = "prefill";
  EvaluationRecord b = evaluation("passed", 1, {2.0});
  b.speedups[0].regime = "decode";
  EvaluationRecord failed = evaluation("incorrect", 1, {});
  d.add(run, kG1, 0, 1, 10, 10, 1, a);
  d.add(run, kG1, 1, 1, 10, 10, 1, b);
  d.add(run, kG1, 2, 1, 10, 10, 1, failed);
  const Report r = build_report(d.rows);
  const std::vector<RegimeStats>& regimes = r.entries.at(0).regimes;
  ASSERT_EQ(regimes.size(), 2u);
  EXPECT_EQ(regimes[0].regime, "decode");
  EXPECT_EQ(regimes[0].speedup.count, 2);
  EXPECT_NEAR(*regimes[0].speedup.geomean, 1.0, 1e-15);
  EXPECT_EQ(regimes[1].regime, "prefill");
  EXPECT_EQ(regimes[1].speedup.count, 1);
  const std::string markdown = render_markdown(r);
  EXPECT_NE(markdown.find("## By regime"), std::string::npos);
  EXPECT_NE(markdown.find("| m | decode | 2 | 1.00x | 1.25x | 0.50x |"), std::string::npos)
      << markdown;
  const nlohmann::json j = report_to_json(r);
  EXPECT_EQ(j["entries"][0]["regimes"][1]["regime"], "prefill");
  EXPECT_EQ(j["entries"][0]["samples"][0]["regime_speedups"]["prefill"], 2.0);
}

TEST(ReportSpeedup, KeepOptimizingTakesTheFastestSuccess) {
  Dataset d;
  const RunRecord* run = d.run("r", "m", nlohmann::json::object());
  d.add(run, kG1, 0, 1, 10, 10, 1, evaluation("passed", 1, {0.8}));
  d.add(run, kG1, 0, 2, 10, 10, 1, evaluation("passed", 1, {1.3}));
  d.add(run, kG1, 0, 3, 10, 10, 1, evaluation("passed", 1, {1.1}));
  const Report r = build_report(d.rows);
  const SampleResult& s = r.entries.at(0).samples.at(0);
  EXPECT_EQ(s.best_turn, 2);
  EXPECT_EQ(s.first_success_turn, 1);
  EXPECT_DOUBLE_EQ(*s.speedup, 1.3);
  EXPECT_EQ(r.turns, 3);  // no "turns" in the settings: the largest turn seen
  EXPECT_FALSE(r.entries[0].all.cost_usd.has_value());
}

TEST(ReportTaskIdentity, TwoDefinitionsOfOneTaskAreKeptApart) {
  Dataset d;
  const RunRecord* old_run = d.run("old", "m", nlohmann::json::object());
  const RunRecord* new_run = d.run("new", "m", nlohmann::json::object());
  d.add(old_run, kG1, 0, 1, 10, 10, 1, evaluation("passed", 1, {0.5}));
  d.rows.back().task_hash = std::string(64, 'a');
  d.add(new_run, kG1, 0, 1, 10, 10, 1, evaluation("passed", 1, {2.0}));
  d.rows.back().task_hash = std::string(64, 'b');
  const Report r = build_report(d.rows);
  ASSERT_EQ(r.entries.size(), 1u);
  const EntryReport& e = r.entries[0];
  ASSERT_EQ(e.samples.size(), 2u) << "one sample per definition, not one pooled sample";
  // Samples sort by run: "new" (definition b) before "old" (definition a).
  EXPECT_EQ(e.samples[0].task_id, std::string(kG1) + "@" + std::string(12, 'b'));
  EXPECT_EQ(e.samples[1].task_id, std::string(kG1) + "@" + std::string(12, 'a'));
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("2 task definitions"), std::string::npos) << r.notes[0];
  EXPECT_NE(render_markdown(r).find("## Notes"), std::string::npos);

  d.rows.back().task_hash = std::string(64, 'a');  // the same definition: pooled again
  const Report same = build_report(d.rows);
  EXPECT_TRUE(same.notes.empty());
  EXPECT_EQ(same.entries[0].samples[0].task_id, kG1);
}

TEST(ReportSpeedup, FastPDoesNotHingeOnRounding) {
  Dataset d;
  const RunRecord* run = d.run("r", "m", nlohmann::json::object());
  // The product is 1, but exp(mean(log)) gives 0.9999999999999999 for these three shapes.
  const std::vector<double> shapes = {3.87, 1.42, 1 / (3.87 * 1.42)};
  d.add(run, kG1, 0, 1, 10, 10, 1, evaluation("passed", 1, shapes));
  const Report r = build_report(d.rows);
  EXPECT_LT(*r.entries[0].all.speedup.geomean, 1.0);  // the rounding this test is about
  EXPECT_EQ(r.entries[0].all.fast_p[2].rate.k, 1);    // still counted as >= 1.0
}

TEST(ReportGroupingTest, ByRunKeepsRunsApartByModelPoolsThem) {
  Dataset d;
  const RunRecord* a = d.run("m-t0", "m", {{"temperature", 0}});
  const RunRecord* b = d.run("m-t1", "m", {{"temperature", 1}});
  d.add(a, kG1, 0, 1, 10, 10, 1, evaluation("passed", 1, {1.0}));
  d.add(b, kG1, 0, 1, 10, 10, 1, evaluation("incorrect", 1));
  const Report pooled = build_report(d.rows);
  ASSERT_EQ(pooled.entries.size(), 1u);
  EXPECT_EQ(pooled.entries[0].runs, (std::vector<std::string>{"m-t0", "m-t1"}));
  EXPECT_EQ(pooled.entries[0].all.tasks, 1);
  expect_rate(pooled.entries[0].all.success, 1, 2, "pooled");  // same task+sample, two runs
  ReportOptions o;
  o.grouping = ReportGrouping::kRun;
  const Report split = build_report(d.rows, o);
  ASSERT_EQ(split.entries.size(), 2u);
  EXPECT_EQ(split.entries[0].name, "m-t0");
  expect_rate(split.entries[1].all.success, 0, 1, "m-t1");
}

TEST(ReportInput, UnjudgedAttemptsAreCountedAndOutcomeNamed) {
  Dataset d;
  const RunRecord* run = d.run("r", "m", {{"turns", 1}});
  d.add(run, kG1, 0, 1, 10, 10, 1, std::nullopt);  // generated, not yet evaluated
  const Report r = build_report(d.rows);
  EXPECT_EQ(r.entries[0].all.unjudged_attempts, 1);
  EXPECT_EQ(r.entries[0].samples[0].outcome, "unjudged");
  expect_rate(r.entries[0].all.compiled, 0, 1, "compiled");
}

TEST(ReportInput, EmptyRowsGiveAnEmptyReport) {
  const Report r = build_report({});
  EXPECT_TRUE(r.entries.empty());
  EXPECT_TRUE(r.runs.empty());
  EXPECT_TRUE(r.audit.empty());
  EXPECT_EQ(r.turns, 0);
}

TEST(ReportInput, BadOptionsAndBrokenRowsThrow) {
  ReportOptions o;
  o.speedup_floor = 0;
  EXPECT_THROW(build_report({}, o), InputError);
  o = {};
  o.speedup_cap = 0.05;
  EXPECT_THROW(build_report({}, o), InputError);
  o = {};
  o.fast_p = {1.0, 0.5};
  EXPECT_THROW(build_report({}, o), InputError);

  Dataset d = make_dataset();
  d.rows.push_back(d.rows.front());  // a second row for one turn
  EXPECT_THROW(build_report(d.rows), InternalError);
  Dataset f = make_dataset();
  f.rows.front().family = "attention_bwd";  // G1 given two families
  EXPECT_THROW(build_report(f.rows), InternalError);
  Dataset p = make_dataset();
  p.runs.front().settings["price_prompt_per_mtok"] = "two dollars";
  EXPECT_THROW(build_report(p.rows), InputError);
  EXPECT_THROW(build_report({ReportRow{}}), InternalError);
}

}  // namespace
}  // namespace ptxb
