// The leaderboard of one or more model runs (docs/report.md): per model x task family,
// compile/correct/target-executed/success rates over samples, clamped speedups over successes,
// fast_p, success by turn, tokens, cost and wall time, and the cells flagged for audit. Pure
// computation over rows the caller loads from the store: no database, no files, no clock.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "store/records.hpp"

namespace ptxb {

/// Version of the report's JSON (`schema`); bumped on any incompatible change.
inline constexpr int kReportSchemaVersion = 1;

/// One attempt as the report sees it. The pointers are borrowed: they must outlive the call of
/// build_report (not the Report it returns, which holds copies). `run` and `attempt` are
/// required; `evaluation` is null for an attempt that was never judged (no code, failed
/// generation, or generated but not yet evaluated). `family` and `arch` come from the task spec.
struct ReportRow {
  const RunRecord* run = nullptr;
  const AttemptRecord* attempt = nullptr;
  const EvaluationRecord* evaluation = nullptr;
  std::string family;  ///< a family of families/family.hpp
  std::string arch;    ///< an architecture of core/arch.hpp
  /// The task definition the attempt was made for (tasks/task_identity.hpp); "" when unknown
  /// (runs recorded before task hashes).
  std::string task_hash;
};

/// What a leaderboard entry is: a model (the runs of one model pooled) or a single run.
enum class ReportGrouping {
  kModel,  ///< entry = RunRecord::model; samples of different runs stay different samples
  kRun,    ///< entry = RunRecord::name, to compare runs of one model (settings, prompts)
};

struct ReportOptions {
  double speedup_floor = 0.1;  ///< each timed shape's speedup is clamped into [floor, cap]
  double speedup_cap = 10.0;
  std::vector<double> fast_p = {0.5, 0.8, 1.0};  ///< thresholds of fast_p, ascending
  ReportGrouping grouping = ReportGrouping::kModel;
};

/// k of n; the fraction is absent when n is 0 (nothing to count, shown as "n/a").
struct Rate {
  int64_t k = 0;
  int64_t n = 0;
  std::optional<double> fraction() const;
};

/// Statistics of the sample speedups (each already a geomean of clamped shape speedups).
struct SpeedupStats {
  int64_t count = 0;  ///< successful samples with at least one timed shape
  std::optional<double> geomean;
  std::optional<double> median;  ///< mean of the two middle values for an even count
  std::optional<double> min;
  std::optional<double> max;
};

struct FastP {
  double p = 0;
  Rate rate;  ///< k: samples that succeeded with speedup >= p; n: all samples
};

/// The outcome of one sample (one task x sample index of one run, over its turns).
struct SampleResult {
  std::string entry;  ///< the leaderboard entry (model or run name)
  std::string run;    ///< RunRecord::name
  std::string task_id;
  std::string family;
  std::string arch;
  int sample = 0;
  int attempts = 0;
  int best_turn = 0;    ///< 1-based turn whose result is the sample's (see docs/report.md)
  std::string outcome;  ///< best turn's outcome, or "no_code", "generation_failed", "unjudged"
  bool compiled = false;
  bool correct = false;
  bool targets_executed = false;
  bool success = false;
  std::optional<int> first_success_turn;  ///< 1-based
  std::optional<double> speedup;          ///< best turn's, when it succeeded and was timed
  /// The best turn's sustained-regime speedup (docs/timing.md), when every timed shape has one.
  std::optional<double> sustained_speedup;
  /// The best turn's speedup per regime of its task (docs/report.md), when it succeeded: the
  /// clamped geomean of that regime's timed shapes, regimes in the order their shapes came.
  std::vector<std::pair<std::string, double>> regime_speedups;
};

/// The speedups of one regime ("decode", "prefill") over an entry's successful samples.
struct RegimeStats {
  std::string regime;
  SpeedupStats speedup;
};

/// The numbers of one (entry, arch, family) cell, or of an entry's "all" summary.
struct GroupMetrics {
  std::string family;  ///< "all" for the summary
  std::string arch;    ///< "all" for the summary
  int64_t tasks = 0;
  int64_t samples = 0;
  int64_t attempts = 0;
  Rate compiled;
  Rate correct;
  Rate targets_executed;
  Rate success;
  SpeedupStats speedup;
  SpeedupStats sustained_speedup;     ///< the same over the samples' sustained speedups
  std::vector<FastP> fast_p;          ///< one per ReportOptions::fast_p, same order
  std::vector<Rate> success_by_turn;  ///< [t - 1]: samples succeeded at or before turn t
  int64_t no_code_attempts = 0;       ///< the server answered without code
  int64_t failed_attempts = 0;        ///< generation failed after every retry
  int64_t unjudged_attempts = 0;      ///< code but no evaluation (generated, not yet judged)
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  std::optional<double> cost_usd;  ///< absent unless every run involved states both prices
  double model_seconds = 0;        ///< sum of AttemptRecord::latency_s
  double judge_seconds = 0;        ///< sum of EvaluationRecord::judge_seconds
};

/// A judged attempt whose evaluation asks a person to look (EvaluationRecord::audit).
struct AuditCell {
  std::string entry;
  std::string run;
  std::string task_id;
  int sample = 0;
  int turn = 0;  ///< 1-based
  std::string outcome;
  std::string reason;  ///< the verdict's audit flags joined by "; ", else the evaluation's reason
};

/// One leaderboard entry.
struct EntryReport {
  std::string name;               ///< model (or run) name
  std::vector<std::string> runs;  ///< names of the runs pooled here, sorted
  GroupMetrics all;
  std::vector<GroupMetrics> families;  ///< by arch, then family (gemm, attention_fwd, _bwd, rest)
  std::vector<SampleResult> samples;   ///< sorted by run, task, sample
  /// Per regime of the entry's tasks (empty when no task has regimes), sorted by name.
  std::vector<RegimeStats> regimes;
};

/// Run metadata the report lists (one per distinct run in the rows).
struct RunSummary {
  std::string name;
  std::string model;
  std::string created_at;
  std::string prompt_version;
  std::string ptxbench_version;
  std::optional<double> price_prompt_per_mtok;
  std::optional<double> price_completion_per_mtok;
};

struct Report {
  ReportOptions options;
  int turns = 0;  ///< T: the largest of every run's settings "turns" and every turn seen
  std::vector<RunSummary> runs;      ///< sorted by name
  std::vector<EntryReport> entries;  ///< ranked: success rate, then speedup geomean, then name
  std::vector<AuditCell> audit;      ///< in entry order, then run, task, sample, turn
  /// Why some results were kept apart: a task id judged under several task definitions is
  /// reported as one task per definition ("ID@HASH12").
  std::vector<std::string> notes;
};

/// Computes every metric of docs/report.md. Throws InputError for options that make no sense
/// (floor <= 0, cap < floor, fast_p not ascending); InternalError (PTXB_ASSERT) for rows that
/// break the store's invariants (null run/attempt, two rows for one turn, a task with two
/// families). Empty rows give an empty report.
Report build_report(const std::vector<ReportRow>& rows, const ReportOptions& options = {});

/// A sample's speedup: the geometric mean of its timed shapes' speedups, each clamped into
/// [floor, cap] (shapes with a NaN speedup are skipped). Absent when no shape is left.
std::optional<double> sample_speedup(const std::vector<ShapeSpeedup>& shapes, double floor,
                                     double cap);

/// Per regime of the shapes (those with one): the clamped geomean of its shapes' speedups, in the
/// order the regimes first appear.
std::vector<std::pair<std::string, double>> sample_regime_speedups(
    const std::vector<ShapeSpeedup>& shapes, double floor, double cap);

/// The same over the shapes' sustained speedups; absent unless every timed shape has one.
std::optional<double> sample_sustained_speedup(const std::vector<ShapeSpeedup>& shapes,
                                               double floor, double cap);

}  // namespace ptxb
