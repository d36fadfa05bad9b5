// The typed verdict: its one serializer writes the names docs/result-schema.md lists, reads back
// what it wrote, derives the TFLOP/s, keeps the worker's other timing fields, reads schema-2
// records, and refuses parts of the wrong shape with an InputError.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "verdict/verdict.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

TargetEvidence mma_target() {
  TargetEvidence t;
  t.instruction = "wgmma.mma_async";
  t.required = "R2";
  t.s0 = t.s1 = t.r1 = LevelResult::kYes;
  t.r2 = LevelResult::kNo;
  t.functions = {"gemm"};
  t.opcodes = {{"HGMMA.64x128x16.F32.BF16", 8}};
  t.floor = EvidenceFloor{EvidenceFloor::Kind::kFlopShare, 0.9};
  t.min_executed = 4096;
  t.measured_min_flop_share = 0.5;
  t.max_nontarget_flop_share = 0.001;
  return t;
}

ShapeTiming timed_shape() {
  ShapeTiming t;
  t.shape = {{"M", 4096}, {"N", 4096}, {"K", 4096}};
  t.label = "M=4096 N=4096 K=4096";
  t.flops = 2.0 * 4096 * 4096 * 4096;
  t.candidate = {200, 199, 201, 30};
  t.baseline = {220, 219, 221, 30};
  t.speedup = {1.1, 1.09, 1.11, 30};
  t.verified = true;
  t.details = {{"shape_index", 2}, {"warmup", 5}, {"candidate_us", {200.0, 201.0}}};
  return t;
}

Verdict full_verdict() {
  Verdict v;
  v.outcome = Outcome::kLowInstructionShare;
  v.reason = "wgmma.mma_async: FLOP share 0.500 below the floor 0.90";
  v.targets = {mma_target()};
  v.correctness = CorrectnessSummary{json::array({{{"passed", true}}}), 1, 1};
  v.timing = {timed_shape()};
  v.record = {{"task", "sm90/gemm/bf16-wgmma-tma"}, {"audit", json::array()}};
  return v;
}

TEST(VerdictParts, TheSerializerWritesTheDocumentedNames) {
  const json t = mma_target();
  EXPECT_EQ(t["S0"], true);
  EXPECT_EQ(t["R2"], false);
  EXPECT_EQ(t["floor"], json({{"kind", "flop_share"}, {"value", 0.9}}));
  EXPECT_EQ(t["measured_min_flop_share"], 0.5);
  EXPECT_FALSE(t.contains("min_flop_share")) << "the task's floor keeps that name";

  TargetEvidence unmeasured;
  unmeasured.instruction = "mbarrier.try_wait";
  unmeasured.required = "R1";
  const json u = unmeasured;
  EXPECT_EQ(u["S1"], "unavailable");
  EXPECT_FALSE(u.contains("floor"));
  EXPECT_FALSE(u.contains("measured_min_flop_share"));
}

TEST(VerdictParts, TimingDerivesTflopsAndKeepsTheWorkersOtherFields) {
  const json j = timed_shape();
  EXPECT_NEAR(j["candidate_tflops"].get<double>(), 2.0 * 4096 * 4096 * 4096 / 200e-6 / 1e12, 1e-9);
  EXPECT_NEAR(j["fraction_of_library"].get<double>(), 1.1, 1e-12);
  EXPECT_EQ(j["speedup"], json({{"median", 1.1}, {"low", 1.09}, {"high", 1.11}, {"count", 30}}));
  EXPECT_EQ(j["shape_index"], 2);
  EXPECT_EQ(j["candidate_us"].size(), 2u);

  EXPECT_FALSE(j.contains("fraction_of_peak")) << "no peak recorded, no fraction";
  const ShapeTiming back = j.get<ShapeTiming>();
  EXPECT_FALSE(back.details.contains("candidate_tflops")) << "derived, not carried";
  EXPECT_EQ(json(back), j);

  ShapeTiming with_peak = timed_shape();
  with_peak.peak_tflops = 1000.0;
  const json p = with_peak;
  EXPECT_NEAR(p["fraction_of_peak"].get<double>(), j["candidate_tflops"].get<double>() / 1000.0,
              1e-12);
  EXPECT_EQ(p.get<ShapeTiming>().peak_tflops, 1000.0);

  // The roofline: 4096^3 is far above the ridge point; a skinny decode-sized GEMM is below it.
  with_peak.bytes = 3.0 * 4096 * 4096 * 2;
  with_peak.peak_gbs = 4800.0;  // ridge 1000e12 / 4800e9 = 208 FLOPs per byte
  EXPECT_FALSE(with_peak.memory_bound()) << "intensity 1365 FLOPs per byte";
  EXPECT_FALSE(json(with_peak).contains("fraction_of_bandwidth"));
  ShapeTiming skinny = with_peak;
  skinny.shape = {{"M", 16}, {"N", 8192}, {"K", 8192}};
  skinny.flops = 2.0 * 16 * 8192 * 8192;
  skinny.bytes = (16.0 * 8192 + 8192.0 * 8192 + 16.0 * 8192) * 2;
  skinny.candidate = {30, 29, 31, 30};  // 134 MB in 30 us
  ASSERT_TRUE(skinny.memory_bound()) << "intensity about 16 FLOPs per byte";
  const json s = skinny;
  EXPECT_EQ(s["memory_bound"], true);
  EXPECT_NEAR(s["fraction_of_bandwidth"].get<double>(), skinny.bytes / 30e-6 / 1e9 / 4800.0, 1e-9);
  EXPECT_NEAR(s["arithmetic_intensity"].get<double>(), skinny.flops / skinny.bytes, 1e-9);
  EXPECT_EQ(s.get<ShapeTiming>().bytes, skinny.bytes);

  ShapeTiming failed;
  failed.shape = {{"M", 1}};
  failed.error = "ptxb_run returned 3";
  const json f = failed;
  EXPECT_EQ(f["error"], "ptxb_run returned 3");
  EXPECT_FALSE(f.contains("speedup"));
  EXPECT_EQ(f.get<ShapeTiming>().error, "ptxb_run returned 3");
}

TEST(VerdictParts, SustainedRegimeRoundTripsBesideTheColdOne) {
  ShapeTiming t = timed_shape();
  SustainedTiming s;
  s.calls = 20;
  s.candidate = {180, 179, 181, 10};
  s.baseline = {150, 149, 151, 10};
  s.speedup = {0.83, 0.82, 0.84, 10};
  s.verified = true;
  s.details = {{"candidate_us", {180.0, 181.0}}, {"rounds", {{"outputs_checked", 200}}}};
  t.sustained = s;
  const json j = t;
  EXPECT_EQ(j["sustained"]["calls"], 20);
  EXPECT_EQ(j["sustained"]["speedup"]["median"], 0.83);
  EXPECT_NEAR(j["sustained"]["candidate_tflops"].get<double>(), t.flops / 180e-6 / 1e12, 1e-9);
  EXPECT_EQ(j["sustained"]["rounds"]["outputs_checked"], 200);
  EXPECT_FALSE(j.contains("calls")) << "the cold fields stay where they were";
  const ShapeTiming back = j.get<ShapeTiming>();
  ASSERT_TRUE(back.sustained);
  EXPECT_EQ(back.sustained->calls, 20);
  EXPECT_EQ(back.sustained->candidate.median, 180);
  EXPECT_EQ(back.sustained->verified, true);
  EXPECT_EQ(back.sustained->details, s.details);
  EXPECT_FALSE(back.details.contains("sustained"));
  EXPECT_EQ(json(back), j);

  t.sustained = SustainedTiming{
      20, "not enough device memory for 40 input sets", {}, {}, {}, std::nullopt, json::object()};
  const json failed = t;
  EXPECT_FALSE(failed["sustained"].contains("speedup"));
  EXPECT_EQ(failed.get<ShapeTiming>().sustained->error, t.sustained->error);
  EXPECT_FALSE(json(timed_shape()).contains("sustained")) << "absent when not run";
}

TEST(VerdictParts, SpeedupsByRegimeAreGeomeansAndTheTextShowsVisibleShapesOnly) {
  auto shape = [](std::string regime, double speedup, bool hidden,
                  std::optional<double> sustained) {
    ShapeTiming t = timed_shape();
    t.regime = std::move(regime);
    t.hidden = hidden;
    t.label = hidden ? "hidden shape #1" : t.label;
    t.speedup = {speedup, speedup, speedup, 30};
    if (sustained) {
      t.sustained = SustainedTiming{};
      t.sustained->calls = 20;
      t.sustained->speedup = {*sustained, *sustained, *sustained, 10};
    }
    return t;
  };
  ShapeTiming failed = shape("decode", 5.0, false, 5.0);
  failed.error = "candidate returned 3";
  Verdict v = full_verdict();
  v.timing = {shape("decode", 0.5, false, 0.4), shape("prefill", 1.0, false, std::nullopt),
              shape("decode", 2.0, true, 1.6), failed};
  const std::vector<RegimeSpeedup> regimes = regime_speedups(v.timing);
  ASSERT_EQ(regimes.size(), 2u);
  EXPECT_EQ(regimes[0].regime, "decode");
  EXPECT_EQ(regimes[0].shapes, 2) << "the failed shape is not counted";
  EXPECT_NEAR(regimes[0].geomean, 1.0, 1e-12);
  EXPECT_NEAR(*regimes[0].sustained_geomean, 0.8, 1e-12);
  EXPECT_EQ(regimes[1].regime, "prefill");
  EXPECT_FALSE(regimes[1].sustained_geomean.has_value()) << "a shape without it";
  const json j = v.to_json();
  ASSERT_TRUE(j.contains("speedup_by_regime"));
  EXPECT_EQ(j["speedup_by_regime"][0]["shapes"], 2);
  EXPECT_EQ(j["timing"][0]["regime"], "decode");
  EXPECT_EQ(Verdict::from_json(j).timing[2].regime, "decode");
  EXPECT_FALSE(Verdict::from_json(j).record.contains("speedup_by_regime")) << "derived";
  const std::string text = render_text(v);
  EXPECT_NE(text.find("by regime, visible shapes (geomean of speedups): decode 0.500 (1 shape; "
                      "sustained 0.400), prefill 1.000 (1 shape)"),
            std::string::npos)
      << text;
  EXPECT_FALSE(full_verdict().to_json().contains("speedup_by_regime")) << "no regimes, no key";
}

TEST(VerdictParts, AVerdictReadsBackWhatItWrote) {
  const json written = full_verdict().to_json();
  EXPECT_EQ(written["schema"], kVerdictSchemaVersion);
  EXPECT_EQ(written["correctness"]["total"], 1);
  const Verdict read = Verdict::from_json(written);
  EXPECT_EQ(read.outcome, Outcome::kLowInstructionShare);
  ASSERT_EQ(read.targets.size(), 1u);
  EXPECT_EQ(read.targets[0].floor->kind, EvidenceFloor::Kind::kFlopShare);
  EXPECT_FALSE(read.record.contains("targets")) << "a typed part lives in one place";
  EXPECT_EQ(read.to_json(), written);
  EXPECT_FALSE(all_targets_met(read.targets));
  EXPECT_FALSE(all_targets_met({})) << "nothing judged is not every target met";
}

TEST(VerdictParts, RecordsOfAnswersWithoutCodeHaveNoParts) {
  const VerdictParts parts = read_verdict_parts({{"outcome", "no_code"}, {"reason", "none"}});
  EXPECT_TRUE(parts.targets.empty());
  EXPECT_FALSE(parts.correctness.has_value());
  EXPECT_TRUE(parts.timing.empty());
}

TEST(VerdictParts, SchemaTwoTargetsAreReadWithoutTheirFloor) {
  const json old = {{"schema", 2},
                    {"targets",
                     {{{"instruction", "wgmma.mma_async"},
                       {"required", "R2"},
                       {"S0", true},
                       {"S1", true},
                       {"R1", true},
                       {"R2", true},
                       {"met", true},
                       {"floor", 0.9},
                       {"min_flop_share", 0.98}}}}};
  const VerdictParts parts = read_verdict_parts(old);
  ASSERT_EQ(parts.targets.size(), 1u);
  EXPECT_FALSE(parts.targets[0].floor.has_value()) << "a bare number: share or count?";
  EXPECT_EQ(parts.targets[0].measured_min_flop_share, 0.98);
  EXPECT_TRUE(parts.targets[0].met);
}

TEST(VerdictParts, PartsOfTheWrongShapeAreInputErrors) {
  json bad_level = full_verdict().to_json();
  bad_level["targets"][0]["R1"] = "maybe";
  EXPECT_THROW(Verdict::from_json(bad_level), InputError);

  json bad_floor = full_verdict().to_json();
  bad_floor["targets"][0]["floor"]["kind"] = "vibes";
  EXPECT_THROW(Verdict::from_json(bad_floor), InputError);

  json no_median = full_verdict().to_json();
  no_median["timing"][0]["speedup"].erase("median");
  EXPECT_THROW(Verdict::from_json(no_median), InputError);

  json bad_outcome = full_verdict().to_json();
  bad_outcome["outcome"] = "mostly_passed";
  EXPECT_THROW(Verdict::from_json(bad_outcome), InputError);

  json checked = full_verdict().to_json();
  checked["source"] = json::object();
  checked["compile"] = json::object();
  EXPECT_EQ(validate_verdict_json(checked), "");
  checked["targets"][0]["S0"] = 1;
  EXPECT_NE(validate_verdict_json(checked).find("evidence level"), std::string::npos)
      << validate_verdict_json(checked);
}

}  // namespace
}  // namespace ptxb
