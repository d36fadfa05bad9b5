// The redaction rule for hidden shapes (docs/model-runs.md, "Feedback"): the feedback of a verdict
// and of the same verdict for a task whose hidden shapes have other sizes must be identical, for
// verdicts of every outcome. The verdicts are built the way the judge builds them, every number
// that depends on a shape's sizes computed from those sizes.
#include <gtest/gtest.h>

#include "core/outcome.hpp"
#include "llm/feedback.hpp"
#include "tasks/catalog.hpp"
#include "tasks/task_json.hpp"
#include "verdict/verdict_parts.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

const std::filesystem::path kTasksRoot = std::filesystem::path(PTXB_SOURCE_DIR) / "tasks";

TaskSpec load(const std::string& id) {
  return find_task(kTasksRoot, load_catalog(kTasksRoot / "catalog"), id);
}

// The same task with every hidden size changed (by +7, keeping the multiple_of rules) and every
// hidden shape's regime renamed.
TaskSpec with_other_hidden_sizes(TaskSpec task) {
  for (ShapeCase& sc : task.shapes) {
    if (!sc.hidden) continue;
    if (!sc.regime.empty()) sc.regime += "-elsewhere";
    for (auto& [dim, size] : sc.shape.dims) {
      if (dim == "causal") continue;
      const int64_t step = task.multiple_of.find(dim).value_or(1);
      size += 7 * step;
    }
  }
  return task;
}

double volume(const ShapeCase& sc) {
  double v = 1;
  for (const auto& [dim, size] : sc.shape.dims)
    v *= dim == "causal" ? 1 : static_cast<double>(size);
  return v;
}

// A verdict of `outcome` whose first failure is at the first hidden shape.
json verdict_of(const TaskSpec& task, const std::string& outcome) {
  const ShapeCase& hidden = *task.hidden_shapes().front();
  const json hidden_json = shape_json(hidden.shape);
  json cases = json::array(), timing = json::array(), feedback = json::array();
  for (const ShapeCase& sc : task.shapes) {
    const bool failing = &sc == &hidden && outcome == "incorrect";
    json c = {{"shape", shape_json(sc.shape)},
              {"hidden", sc.hidden},
              {"seed", 1},
              {"distribution", "normal"},
              {"passed", !failing},
              {"run_status", 0},
              {"modified_input_bytes", failing ? volume(sc) : 0}};
    if (failing)
      c["outputs"] = {{{"name", task.outputs().front()->name},
                       {"passed", false},
                       {"count", volume(sc)},
                       {"mismatches", volume(sc) / 3},
                       {"nan_count", 1},
                       {"max_abs_error", volume(sc) / 1e6},
                       {"rel_frobenius", 0.5},
                       {"first_mismatch",
                        {{"row", sc.shape.dims[0].second - 1},
                         {"col", 3},
                         {"index", volume(sc) - 1},
                         {"got", 1.5},
                         {"want", 0.25}}}}};
    cases.push_back(c);
    if (!sc.timed) continue;
    const double us = volume(sc) / 1e6;
    ShapeTiming t;
    t.shape = shape_json(sc.shape);
    t.hidden = sc.hidden;
    t.label = shape_label(task, sc);
    t.regime = sc.regime;
    t.flops = 2 * volume(sc);
    t.candidate = {us, 0.99 * us, 1.01 * us, 10};
    t.baseline = {0.9 * us, 0.89 * us, 0.91 * us, 10};
    t.speedup = {0.9, 0.89, 0.91, 10};
    t.verified = true;
    t.details = {{"candidate_us", std::vector<double>(10, us)}};
    timing.push_back(t);
    feedback.push_back({{"shape", shape_label(task, sc)},
                        {"kernel", "gemm(int)"},
                        {"target", "wgmma.mma_async"},
                        {"executed", volume(sc) / 64},
                        {"floor", 0.9},
                        {"call_flop_share", sc.hidden ? 1.07 : 1.0},
                        {"kernel_flop_share", 1.0},
                        {"kernel_nontarget_share", 0.001}});
  }
  std::vector<TargetEvidence> targets(1);
  targets[0].instruction = "wgmma.mma_async";
  targets[0].required = "R2";
  targets[0].s0 = targets[0].s1 = targets[0].r1 = targets[0].r2 = LevelResult::kYes;
  targets[0].floor = EvidenceFloor{EvidenceFloor::Kind::kFlopShare, 0.9};
  targets[0].measured_min_flop_share = 1.0;
  targets[0].met = true;
  const std::string where = hidden_json.dump();
  std::map<std::string, std::string> reasons = {
      {"incorrect", "at " + where + " (hidden) seed 1 normal: O " +
                        std::to_string(volume(hidden) / 3) + " mismatches, first at row 5"},
      {"rejected_cheat",
       "the profiled calls are not the timed calls (hardware counters differ): at " +
           shape_label(task, hidden) + ": gmma 0 in 6 timed call(s), " +
           std::to_string(volume(hidden) / 64) + " in the profiled call"},
      {"low_instruction_share", "cp.async.bulk.tensor: executed 3 times, below the floor " +
                                    std::to_string(volume(hidden) / 1e5) + " at " +
                                    shape_label(task, hidden)},
      {"instruction_missing", "wgmma.mma_async: never executed at " + shape_label(task, hidden)},
      {"crashed", "CUDA fault in the evidence run: the run ended during candidate code at " +
                      shape_label(task, hidden)},
      {"timeout", "ptxb_run at " + hidden.shape.to_string() + " did not finish within 20 s"},
      {"passed", "correct on 54 cases; every target at its required evidence level"}};
  json v = {{"outcome", outcome},
            {"reason", reasons.count(outcome) ? reasons[outcome] : "static stage only"},
            {"correctness", {{"passed", 1}, {"total", cases.size()}, {"cases", cases}}},
            {"timing", timing},
            {"targets", targets},
            {"evidence", {{"feedback", feedback}}},
            {"violations",
             {{{"during", "ptxb_run at " + hidden.shape.to_string()}, {"finding", "forbidden"}}}}};
  return v;
}

TEST(FeedbackRedaction, HiddenSizesChangeNothingAModelSees) {
  for (const char* id :
       {"sm90/gemm/bf16-wgmma-tma", "sm90/attention/fwd-bf16", "sm90/gemm/bf16-llm"}) {
    const TaskSpec a = load(id);
    const TaskSpec b = with_other_hidden_sizes(a);
    for (const Outcome o :
         {Outcome::kPassed, Outcome::kCompileError, Outcome::kLoadError, Outcome::kCrashed,
          Outcome::kTimeout, Outcome::kIncorrect, Outcome::kInstructionMissing,
          Outcome::kLowInstructionShare, Outcome::kRejectedCheat, Outcome::kUnavailable}) {
      const std::string outcome(to_string(o));
      const std::string text_a = render_feedback(a, verdict_of(a, outcome));
      const std::string text_b = render_feedback(b, verdict_of(b, outcome));
      EXPECT_EQ(text_a, text_b) << id << " " << outcome;
      EXPECT_NE(text_a.find("hidden shape #"), std::string::npos) << text_a;
      for (const ShapeCase* sc : a.hidden_shapes())
        EXPECT_EQ(text_a.find(sc->shape.to_string()), std::string::npos) << text_a;
    }
  }
}

TEST(FeedbackRedaction, VisibleShapesKeepTheirDetails) {
  const TaskSpec t = load("sm90/gemm/bf16-wgmma-tma");
  const std::string text = render_feedback(t, verdict_of(t, "incorrect"));
  EXPECT_NE(text.find("M=4096 N=4096 K=4096: yours"), std::string::npos) << text;
  EXPECT_NE(text.find("TFLOP/s"), std::string::npos) << text;
  EXPECT_NE(text.find("M=4096 N=4096 K=4096, gemm(int), wgmma.mma_async: executed"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("hidden shape #1, seed 1, inputs normal: the inputs changed\n    C: wrong"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("a wrong output or a failed call at hidden shape #1"), std::string::npos)
      << text;
  const TaskSpec llm = load("sm90/gemm/bf16-llm");
  const std::string by_regime = render_feedback(llm, verdict_of(llm, "passed"));
  EXPECT_NE(by_regime.find("By regime, over the visible timed shapes (geometric mean of the "
                           "speedups): prefill 0.900 over 2 shapes, decode 0.900 over 1 shape\n"),
            std::string::npos)
      << by_regime;
}

}  // namespace
}  // namespace ptxb
