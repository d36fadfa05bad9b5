// The typed parts of a verdict that several stages write and several readers read: per-target
// instruction evidence, the correctness summary and the timing of each shape. The to_json /
// from_json pairs below are their one serializer: every key name of these parts is spelled only
// in verdict_parts.cpp (docs/result-schema.md lists them).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ptxb {

/// An evidence level as measured: yes, no, or could not be measured. JSON: true, false or
/// "unavailable".
enum class LevelResult { kNo, kYes, kUnavailable };

inline LevelResult level_result(std::optional<bool> measured) {
  if (!measured) return LevelResult::kUnavailable;
  return *measured ? LevelResult::kYes : LevelResult::kNo;
}

/// true, false or "unavailable".
nlohmann::json level_json(LevelResult level);

/// The least a profiled call must do through a target for R2: a share of the problem's FLOPs
/// (MMA targets) or a number of warp-level executions (every other target).
struct EvidenceFloor {
  enum class Kind { kFlopShare, kExecutions };
  Kind kind = Kind::kExecutions;
  double value = 0;
};

/// One task target's evidence: the static levels (S0 PTX, S1 SASS), the runtime levels (R1
/// executed, R2 enough of the work, over every profiled call) and whether the level the task
/// requires is met.
struct TargetEvidence {
  std::string instruction;
  std::string required;  ///< the level the task requires: "S0", "S1", "R1" or "R2"
  LevelResult s0 = LevelResult::kNo;
  LevelResult s1 = LevelResult::kUnavailable;
  LevelResult r1 = LevelResult::kUnavailable;
  LevelResult r2 = LevelResult::kUnavailable;
  std::vector<std::string> functions;      ///< kernels whose SASS holds a primary opcode
  std::map<std::string, int64_t> opcodes;  ///< primary SASS opcode -> static count
  // Set once the evidence stage measured the target:
  std::optional<EvidenceFloor> floor;
  std::optional<int64_t> min_executed;  ///< fewest warp-level executions in one profiled call
  /// MMA targets: the lowest share of the problem's FLOPs done through the target in one call
  /// (compared with floor), and the highest share done by other arithmetic.
  std::optional<double> measured_min_flop_share;
  std::optional<double> max_nontarget_flop_share;
  /// MMA targets: the highest integer multiply-add share and instructions per multiply-add of the
  /// problem in one call (docs/evidence.md).
  std::optional<double> max_integer_share;
  std::optional<double> max_instructions_per_mac;
  bool met = false;  ///< every level up to `required` holds
};

/// The correctness stage: the worker's case records in order, and the tally once the worker
/// finished every case (unset when it ended early).
struct CorrectnessSummary {
  nlohmann::json cases = nlohmann::json::array();  ///< docs/result-schema.md, correctness.cases[]
  std::optional<int64_t> passed, total;
};

/// A median with its 95% confidence interval and the number of samples behind it.
struct Interval {
  double median = 0, low = 0, high = 0;
  int64_t count = 0;
};

/// One timed shape: candidate and library times in microseconds, interleaved per round, and the
/// speedup (library time / candidate time, median of the paired ratios).
/// The sustained regime at one timed shape (docs/timing.md): batches of `calls` back-to-back
/// calls on distinct fresh inputs, no L2 flush inside a batch, interleaved batch by batch with the
/// library's; times per call (batch time / calls).
struct SustainedTiming {
  int calls = 0;
  std::string error;  ///< why it was not measured; only `calls` and `details` are set then
  Interval candidate, baseline, speedup;
  std::optional<bool> verified;  ///< every output of every timed batch checked right
  /// Raw per-call samples of each round, clocks, round checks; written and read unchanged.
  nlohmann::json details = nlohmann::json::object();
};

struct ShapeTiming {
  nlohmann::json shape;  ///< {dim: value}
  bool hidden = false;
  std::string label;  ///< what a model is told in place of a hidden shape
  /// The task's regime of the shape ("decode"); "" when the task has none. Set by the parent
  /// from the task spec.
  std::string regime;
  std::string error;  ///< a timed call failed: only the fields above and `details` are set
  double flops = 0;   ///< the problem's FLOPs (the task's FLOP rule)
  Interval candidate, baseline, speedup;
  std::optional<bool> verified;  ///< every timed round's output checked right (docs/timing.md)
  /// The device's nominal dense peak for the task's MMA type (TFLOP/s), when the worker could
  /// read it; the serializer adds fraction_of_peak = candidate TFLOP/s / this.
  std::optional<double> peak_tflops;
  /// The shape's least DRAM traffic (bytes) and the device's DRAM bandwidth (GB/s): with both,
  /// the serializer adds arithmetic_intensity and, for a shape below the device's ridge point
  /// (peak_tflops / peak_gbs), memory_bound and fraction_of_bandwidth.
  double bytes = 0;
  std::optional<double> peak_gbs;
  /// flops / bytes below the ridge point of the device: time is bound by DRAM, not the MMA.
  bool memory_bound() const;
  /// Candidate TFLOP/s over peak_tflops; nullopt without a peak.
  std::optional<double> fraction_of_peak() const;
  /// Candidate DRAM throughput (bytes over the median time) over peak_gbs, for a memory-bound
  /// shape only; nullopt otherwise.
  std::optional<double> fraction_of_bandwidth() const;
  /// The rest of the worker's record (raw samples, clocks, round checks, the library's plan),
  /// written and read unchanged.
  nlohmann::json details = nlohmann::json::object();
  /// The sustained regime beside the cold one (the score); nullopt when it was not run.
  std::optional<SustainedTiming> sustained;

  double candidate_tflops() const { return flops / (candidate.median * 1e-6) / 1e12; }
  double baseline_tflops() const { return flops / (baseline.median * 1e-6) / 1e12; }
};

/// The speedups of one regime of the timed shapes: geometric means of the shapes' median
/// speedups (every timed shape of the regime without an error).
struct RegimeSpeedup {
  std::string regime;
  int shapes = 0;
  double geomean = 0;
  /// The same over the sustained speedups, when every one of those shapes has one.
  std::optional<double> sustained_geomean;
};
/// One entry per regime, in the order the regimes first appear in `timing`; empty when no shape
/// has a regime or no shape of any regime was timed without an error.
std::vector<RegimeSpeedup> regime_speedups(const std::vector<ShapeTiming>& timing);
void to_json(nlohmann::json& j, const RegimeSpeedup& r);

/// The typed parts of a stored verdict record, whatever its outcome: records of answers without
/// code ("no_code", "generation_failed") and verdicts that stopped early have fewer or none.
/// Schema-2 records (stored before the floor became typed) are read without their targets'
/// floors. Throws nlohmann::json::exception or InputError on a part of the wrong shape.
struct VerdictParts {
  std::vector<TargetEvidence> targets;
  std::optional<CorrectnessSummary> correctness;
  std::vector<ShapeTiming> timing;
};
VerdictParts read_verdict_parts(const nlohmann::json& record);

/// Every target at its required level (false when there is none: nothing was judged).
bool all_targets_met(const std::vector<TargetEvidence>& targets);

void to_json(nlohmann::json& j, const TargetEvidence& t);
void from_json(const nlohmann::json& j, TargetEvidence& t);
void to_json(nlohmann::json& j, const CorrectnessSummary& c);
void from_json(const nlohmann::json& j, CorrectnessSummary& c);
void to_json(nlohmann::json& j, const SustainedTiming& s);
void from_json(const nlohmann::json& j, SustainedTiming& s);
void to_json(nlohmann::json& j, const Interval& i);
void from_json(const nlohmann::json& j, Interval& i);
/// Adds the derived candidate_tflops, baseline_tflops, fraction_of_library and, with a peak,
/// fraction_of_peak (a verdict's reader need not divide); from_json ignores them.
void to_json(nlohmann::json& j, const ShapeTiming& t);
void from_json(const nlohmann::json& j, ShapeTiming& t);

}  // namespace ptxb
