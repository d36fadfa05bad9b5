// build_report: rows -> samples (best turn, first success) -> per-group metrics. The definitions
// live in docs/report.md; this file follows them line by line.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "core/error.hpp"
#include "families/family.hpp"
#include "report/report.hpp"
#include "tasks/task_identity.hpp"

namespace ptxb {

using nlohmann::json;

std::optional<double> Rate::fraction() const {
  if (n == 0) return std::nullopt;
  return static_cast<double>(k) / static_cast<double>(n);
}

namespace {

// The geometric mean of `values`, each clamped into [floor, cap], NaN skipped; nullopt when none
// is left.
std::optional<double> clamped_geomean(const std::vector<double>& values, double floor, double cap) {
  double log_sum = 0;
  int count = 0;
  for (double v : values) {
    if (std::isnan(v)) continue;
    log_sum += std::log(std::clamp(v, floor, cap));
    ++count;
  }
  if (count == 0) return std::nullopt;
  return std::exp(log_sum / count);
}

}  // namespace

std::optional<double> sample_speedup(const std::vector<ShapeSpeedup>& shapes, double floor,
                                     double cap) {
  std::vector<double> values;
  for (const ShapeSpeedup& s : shapes) values.push_back(s.speedup);
  return clamped_geomean(values, floor, cap);
}

std::vector<std::pair<std::string, double>> sample_regime_speedups(
    const std::vector<ShapeSpeedup>& shapes, double floor, double cap) {
  std::vector<std::pair<std::string, std::vector<double>>> by_regime;
  for (const ShapeSpeedup& s : shapes) {
    if (s.regime.empty()) continue;
    auto it = std::find_if(by_regime.begin(), by_regime.end(),
                           [&](const auto& r) { return r.first == s.regime; });
    if (it == by_regime.end()) it = by_regime.insert(by_regime.end(), {s.regime, {}});
    it->second.push_back(s.speedup);
  }
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [regime, values] : by_regime)
    if (const auto g = clamped_geomean(values, floor, cap)) out.emplace_back(regime, *g);
  return out;
}

std::optional<double> sample_sustained_speedup(const std::vector<ShapeSpeedup>& shapes,
                                               double floor, double cap) {
  std::vector<double> values;
  for (const ShapeSpeedup& s : shapes) {
    if (std::isnan(s.speedup)) continue;
    if (!s.sustained_speedup) return std::nullopt;  // all timed shapes or none
    values.push_back(*s.sustained_speedup);
  }
  return clamped_geomean(values, floor, cap);
}

namespace {

// NOTE: a geomean of shapes whose product is exactly p can round to just below p (exp/log);
// fast_p compares with this relative slack so that rounding never decides a threshold.
constexpr double kThresholdSlack = 1e-12;

void validate(const ReportOptions& o) {
  if (!(o.speedup_floor > 0) || !(o.speedup_cap >= o.speedup_floor) ||
      !std::isfinite(o.speedup_cap))
    throw InputError("report: speedup floor and cap must satisfy 0 < floor <= cap < inf (got " +
                     std::to_string(o.speedup_floor) + ", " + std::to_string(o.speedup_cap) + ")");
  for (size_t i = 0; i < o.fast_p.size(); ++i)
    if (!(o.fast_p[i] > 0) || (i > 0 && !(o.fast_p[i] > o.fast_p[i - 1])))
      throw InputError("report: fast_p thresholds must be positive and strictly ascending");
}

std::optional<double> price(const RunRecord& run, const char* key) {
  if (!run.settings.is_object() || !run.settings.contains(key)) return std::nullopt;
  const json& v = run.settings.at(key);
  if (!v.is_number() || !(v.get<double>() >= 0))
    throw InputError("report: run '" + run.name + "': settings." + key +
                     " must be a non-negative number, got " + v.dump());
  return v.get<double>();
}

int settings_turns(const RunRecord& run) {
  if (!run.settings.is_object()) return 0;
  const auto it = run.settings.find("turns");
  return it != run.settings.end() && it->is_number_integer() ? it->get<int>() : 0;
}

std::string entry_name(const RunRecord& run, ReportGrouping g) {
  return g == ReportGrouping::kModel ? run.model : run.name;
}

// The rank of a turn's result: success > correct > compiled > nothing; within a rank a turn
// whose targets executed wins, and among successes the faster one (an untimed success last).
using TurnKey = std::tuple<int, bool, double>;

TurnKey turn_key(const EvaluationRecord* e, const std::optional<double>& speedup) {
  if (e == nullptr) return {0, false, 0};
  const int tier = e->success ? 3 : e->correct ? 2 : e->compiled ? 1 : 0;
  const double speed = e->success ? speedup.value_or(-std::numeric_limits<double>::infinity()) : 0;
  return {tier, e->targets_executed, speed};
}

std::string unjudged_outcome(const AttemptRecord& a) {
  switch (a.status) {
    case GenerationStatus::kNoCode:
      return "no_code";
    case GenerationStatus::kFailed:
      return "generation_failed";
    case GenerationStatus::kOk:
      break;
  }
  return "unjudged";
}

// `turns` holds one sample's rows sorted by turn.
SampleResult summarize_sample(const std::vector<const ReportRow*>& turns, const std::string& entry,
                              const std::string& task_key, const ReportOptions& o) {
  const ReportRow& first = *turns.front();
  SampleResult s;
  s.entry = entry;
  s.run = first.run->name;
  s.task_id = task_key;
  s.family = first.family;
  s.arch = first.arch;
  s.sample = first.attempt->sample;
  s.attempts = static_cast<int>(turns.size());
  const ReportRow* best = nullptr;
  TurnKey best_key;
  std::optional<double> best_speedup, best_sustained;
  for (const ReportRow* r : turns) {
    const EvaluationRecord* e = r->evaluation;
    std::optional<double> speedup;
    if (e != nullptr && e->success)
      speedup = sample_speedup(e->speedups, o.speedup_floor, o.speedup_cap);
    if (e != nullptr && e->success && !s.first_success_turn)
      s.first_success_turn = r->attempt->turn + 1;
    const TurnKey key = turn_key(e, speedup);
    if (best == nullptr || key > best_key) {  // strict: the earlier turn keeps a tie
      best = r;
      best_key = key;
      best_speedup = speedup;
      best_sustained = e != nullptr && e->success
                           ? sample_sustained_speedup(e->speedups, o.speedup_floor, o.speedup_cap)
                           : std::nullopt;
    }
  }
  s.best_turn = best->attempt->turn + 1;
  if (const EvaluationRecord* e = best->evaluation) {
    s.outcome = e->outcome;
    s.compiled = e->compiled;
    s.correct = e->correct;
    s.targets_executed = e->targets_executed;
    s.success = e->success;
    s.speedup = best_speedup;
    s.sustained_speedup = best_sustained;
    if (e->success)
      s.regime_speedups = sample_regime_speedups(e->speedups, o.speedup_floor, o.speedup_cap);
  } else {
    s.outcome = unjudged_outcome(*best->attempt);
  }
  return s;
}

std::optional<double> median_of(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// Count, geomean, median, min and max of `v` (speedups, all positive).
SpeedupStats stats_of(std::vector<double> v) {
  SpeedupStats st;
  st.count = static_cast<int64_t>(v.size());
  if (v.empty()) return st;
  double log_sum = 0;
  for (double x : v) log_sum += std::log(x);
  st.geomean = std::exp(log_sum / static_cast<double>(v.size()));
  st.median = median_of(v);
  st.min = *std::min_element(v.begin(), v.end());
  st.max = *std::max_element(v.begin(), v.end());
  return st;
}

SpeedupStats speedup_stats(const std::vector<const SampleResult*>& samples,
                           std::optional<double> SampleResult::*which = &SampleResult::speedup) {
  std::vector<double> v;
  for (const SampleResult* s : samples)
    if (s->success && s->*which) v.push_back(*(s->*which));
  return stats_of(std::move(v));
}

// Per regime (by name): the stats of the successful samples' speedups in that regime (a sample
// has regime speedups only when it succeeded).
std::vector<RegimeStats> regime_stats(const std::vector<SampleResult>& samples) {
  std::map<std::string, std::vector<double>> by_regime;
  for (const SampleResult& s : samples)
    for (const auto& [regime, speedup] : s.regime_speedups) by_regime[regime].push_back(speedup);
  std::vector<RegimeStats> out;
  for (auto& [regime, values] : by_regime) out.push_back({regime, stats_of(std::move(values))});
  return out;
}

// The rows and samples of one group, gathered before the numbers are taken.
struct Group {
  std::vector<const SampleResult*> samples;
  std::vector<const ReportRow*> rows;
};

GroupMetrics finalize(const Group& g, std::string family, std::string arch, const ReportOptions& o,
                      int turns) {
  GroupMetrics m;
  m.family = std::move(family);
  m.arch = std::move(arch);
  std::set<std::string> tasks;
  const auto n = static_cast<int64_t>(g.samples.size());
  m.samples = n;
  m.compiled.n = m.correct.n = m.targets_executed.n = m.success.n = n;
  m.success_by_turn.assign(static_cast<size_t>(turns), Rate{0, n});
  for (double p : o.fast_p) m.fast_p.push_back(FastP{p, Rate{0, n}});
  for (const SampleResult* s : g.samples) {
    tasks.insert(s->task_id);
    m.compiled.k += s->compiled;
    m.correct.k += s->correct;
    m.targets_executed.k += s->targets_executed;
    m.success.k += s->success;
    for (FastP& f : m.fast_p)
      f.rate.k += s->success && s->speedup && *s->speedup >= f.p * (1 - kThresholdSlack);
    if (s->first_success_turn)
      for (int t = *s->first_success_turn; t <= turns; ++t) ++m.success_by_turn[t - 1].k;
  }
  m.tasks = static_cast<int64_t>(tasks.size());
  m.speedup = speedup_stats(g.samples);
  m.sustained_speedup = speedup_stats(g.samples, &SampleResult::sustained_speedup);

  bool priced = true;
  double cost = 0;
  for (const ReportRow* r : g.rows) {
    const AttemptRecord& a = *r->attempt;
    const EvaluationRecord* e = r->evaluation;
    ++m.attempts;
    const bool no_code =
        a.status == GenerationStatus::kNoCode || (e != nullptr && e->outcome == "no_code");
    m.no_code_attempts += no_code;
    m.failed_attempts += a.status == GenerationStatus::kFailed;
    m.unjudged_attempts += a.status == GenerationStatus::kOk && e == nullptr;
    m.prompt_tokens += a.prompt_tokens;
    m.completion_tokens += a.completion_tokens;
    m.model_seconds += a.latency_s;
    if (e != nullptr) m.judge_seconds += e->judge_seconds;
    const auto pp = price(*r->run, "price_prompt_per_mtok");
    const auto pc = price(*r->run, "price_completion_per_mtok");
    priced = priced && pp && pc;
    if (pp && pc)
      cost += (static_cast<double>(a.prompt_tokens) * *pp +
               static_cast<double>(a.completion_tokens) * *pc) /
              1e6;
  }
  if (priced && !g.rows.empty()) m.cost_usd = cost;
  return m;
}

int family_rank(const std::string& family) {
  const Family* f = find_family(family);
  return f != nullptr ? f->report_rank() : 1000;  // unknown families (old records) last
}

std::string audit_reason(const EvaluationRecord& e) {
  std::string joined;
  if (e.verdict.is_object() && e.verdict.contains("audit") && e.verdict["audit"].is_array())
    for (const json& flag : e.verdict["audit"]) {
      if (!joined.empty()) joined += "; ";
      joined += flag.is_string() ? flag.get<std::string>() : flag.dump();
    }
  return joined.empty() ? e.reason : joined;
}

// Sorts entries by the leaderboard rank: success rate, speedup geomean, name.
bool ranks_before(const EntryReport& a, const EntryReport& b) {
  const double sa = a.all.success.fraction().value_or(-1);
  const double sb = b.all.success.fraction().value_or(-1);
  if (sa != sb) return sa > sb;
  const double ga = a.all.speedup.geomean.value_or(0);
  const double gb = b.all.speedup.geomean.value_or(0);
  if (ga != gb) return ga > gb;
  return a.name < b.name;
}

}  // namespace

// How the report names each row's task: its id, or "ID@HASH12" when that id was judged under
// more than one task definition (those results are never pooled). Notes say which.
std::map<const ReportRow*, std::string> task_keys(const std::vector<ReportRow>& rows,
                                                  std::vector<std::string>& notes) {
  std::map<std::string, std::set<std::string>> hashes;  // id -> definitions seen
  for (const ReportRow& r : rows) {
    PTXB_ASSERT(r.run != nullptr && r.attempt != nullptr, "report row without run or attempt");
    hashes[r.attempt->task_id].insert(r.task_hash);
  }
  std::map<const ReportRow*, std::string> keys;
  for (const ReportRow& r : rows) {
    const std::set<std::string>& seen = hashes[r.attempt->task_id];
    keys[&r] = seen.size() == 1 ? r.attempt->task_id
                                : r.attempt->task_id + "@" +
                                      (r.task_hash.empty() ? std::string("unknown")
                                                           : short_task_hash(r.task_hash));
  }
  for (const auto& [id, seen] : hashes) {
    if (seen.size() < 2) continue;
    std::string list;
    for (const std::string& h : seen)
      list +=
          (list.empty() ? "" : ", ") + (h.empty() ? std::string("unknown") : short_task_hash(h));
    notes.push_back("task " + id + " was judged under " + std::to_string(seen.size()) +
                    " task definitions (" + list + "): their results are kept apart as " + id +
                    "@<definition>, never pooled");
  }
  return keys;
}

Report build_report(const std::vector<ReportRow>& rows, const ReportOptions& options) {
  validate(options);
  Report report;
  report.options = options;
  const std::map<const ReportRow*, std::string> task_key = task_keys(rows, report.notes);

  // Runs, tasks, and the turns of every sample, keyed so that maps iterate in report order.
  std::map<std::string, RunSummary> runs;
  std::map<std::string, std::pair<std::string, std::string>> task_family;    // -> family, arch
  using SampleKey = std::tuple<std::string, std::string, std::string, int>;  // entry,run,task,#
  std::map<SampleKey, std::vector<const ReportRow*>> sample_rows;
  for (const ReportRow& r : rows) {
    PTXB_ASSERT(r.run != nullptr && r.attempt != nullptr, "report row without run or attempt");
    const RunRecord& run = *r.run;
    const AttemptRecord& a = *r.attempt;
    PTXB_ASSERT(a.turn >= 0 && a.sample >= 0, "negative turn or sample in " + a.task_id);
    PTXB_ASSERT(r.evaluation == nullptr || a.id == 0 || r.evaluation->attempt_id == a.id,
                "evaluation of another attempt in the row of attempt " + std::to_string(a.id));
    if (!runs.contains(run.name))
      runs[run.name] = RunSummary{run.name,
                                  run.model,
                                  run.created_at,
                                  run.prompt_version,
                                  run.ptxbench_version,
                                  price(run, "price_prompt_per_mtok"),
                                  price(run, "price_completion_per_mtok")};
    report.turns = std::max({report.turns, settings_turns(run), a.turn + 1});
    const std::string& task = task_key.at(&r);
    const auto [it, fresh] = task_family.try_emplace(task, r.family, r.arch);
    PTXB_ASSERT(fresh || it->second == std::make_pair(r.family, r.arch),
                "task " + task + " given two families or archs");
    sample_rows[{entry_name(run, options.grouping), run.name, task, a.sample}].push_back(&r);
  }
  for (auto& [name, summary] : runs) report.runs.push_back(summary);

  // Samples, grouped per entry in map order (run, task, sample).
  std::map<std::string, EntryReport> entries;
  for (auto& [key, turns] : sample_rows) {
    std::sort(turns.begin(), turns.end(), [](const ReportRow* x, const ReportRow* y) {
      return x->attempt->turn < y->attempt->turn;
    });
    for (size_t i = 1; i < turns.size(); ++i)
      PTXB_ASSERT(turns[i]->attempt->turn != turns[i - 1]->attempt->turn,
                  "two attempts for turn " + std::to_string(turns[i]->attempt->turn) + " of " +
                      std::get<2>(key) + " sample " + std::to_string(std::get<3>(key)));
    EntryReport& e = entries[std::get<0>(key)];
    e.name = std::get<0>(key);
    e.samples.push_back(summarize_sample(turns, e.name, std::get<2>(key), options));
  }

  // Numbers per entry: the families (arch, family), then the summary.
  for (auto& [name, e] : entries) {
    std::map<std::tuple<std::string, int, std::string>, Group> by_family;
    Group all;
    std::set<std::string> run_names;
    for (const SampleResult& s : e.samples) {
      Group& g = by_family[{s.arch, family_rank(s.family), s.family}];
      g.samples.push_back(&s);
      all.samples.push_back(&s);
      run_names.insert(s.run);
      for (const ReportRow* r : sample_rows.at({name, s.run, s.task_id, s.sample})) {
        g.rows.push_back(r);
        all.rows.push_back(r);
      }
    }
    for (const auto& [key, g] : by_family)
      e.families.push_back(finalize(g, std::get<2>(key), std::get<0>(key), options, report.turns));
    e.all = finalize(all, "all", "all", options, report.turns);
    e.regimes = regime_stats(e.samples);
    e.runs.assign(run_names.begin(), run_names.end());
    report.entries.push_back(std::move(e));
  }
  std::sort(report.entries.begin(), report.entries.end(), ranks_before);

  // Cells for a person: every judged attempt whose evaluation carries audit flags.
  for (const EntryReport& e : report.entries)
    for (const SampleResult& s : e.samples)
      for (const ReportRow* r : sample_rows.at({e.name, s.run, s.task_id, s.sample}))
        if (r->evaluation != nullptr && r->evaluation->audit)
          report.audit.push_back(AuditCell{e.name, s.run, s.task_id, s.sample, r->attempt->turn + 1,
                                           r->evaluation->outcome, audit_reason(*r->evaluation)});
  return report;
}

}  // namespace ptxb
