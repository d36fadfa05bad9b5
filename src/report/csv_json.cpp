// render_csv and report_to_json: the report for programs (docs/report.md, "CSV" and "JSON").
// Numbers are written in full (shortest round-trip text); absent values are empty (CSV) or null.
#include <sstream>

#include "report/format.hpp"
#include "report/render.hpp"

namespace ptxb {

using nlohmann::json;

namespace {

// RFC 4180 quoting (LF line ends): a field with a comma, quote or line break is quoted, quotes
// doubled.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) line += ',';
    line += csv_field(fields[i]);
  }
  line += '\n';
  return line;
}

std::vector<std::string> csv_header(const Report& r) {
  std::vector<std::string> h = {"model", "arch", "family", "tasks", "samples", "attempts"};
  for (const char* name : {"compiled", "correct", "targets_executed", "success"})
    for (const char* suffix : {"_k", "_n", "_rate"}) h.push_back(std::string(name) + suffix);
  for (const char* name : {"speedup_count", "speedup_geomean", "speedup_median", "speedup_min",
                           "speedup_max", "sustained_count", "sustained_geomean"})
    h.push_back(name);
  for (double p : r.options.fast_p) {
    h.push_back("fast_" + format_threshold(p) + "_k");
    h.push_back("fast_" + format_threshold(p));
  }
  for (int t = 1; t <= r.turns; ++t) h.push_back("success_by_turn_" + std::to_string(t));
  for (const char* name :
       {"prompt_tokens", "completion_tokens", "cost_usd", "model_seconds", "judge_seconds",
        "no_code_attempts", "failed_attempts", "unjudged_attempts"})
    h.push_back(name);
  return h;
}

std::vector<std::string> csv_row(const std::string& entry, const GroupMetrics& g) {
  std::vector<std::string> row = {entry,
                                  g.arch,
                                  g.family,
                                  std::to_string(g.tasks),
                                  std::to_string(g.samples),
                                  std::to_string(g.attempts)};
  for (const Rate* rate : {&g.compiled, &g.correct, &g.targets_executed, &g.success}) {
    row.push_back(std::to_string(rate->k));
    row.push_back(std::to_string(rate->n));
    row.push_back(format_shortest(rate->fraction()));
  }
  row.push_back(std::to_string(g.speedup.count));
  for (const auto& v : {g.speedup.geomean, g.speedup.median, g.speedup.min, g.speedup.max})
    row.push_back(format_shortest(v));
  row.push_back(std::to_string(g.sustained_speedup.count));
  row.push_back(format_shortest(g.sustained_speedup.geomean));
  for (const FastP& f : g.fast_p) {
    row.push_back(std::to_string(f.rate.k));
    row.push_back(format_shortest(f.rate.fraction()));
  }
  for (const Rate& rate : g.success_by_turn) row.push_back(format_shortest(rate.fraction()));
  row.push_back(std::to_string(g.prompt_tokens));
  row.push_back(std::to_string(g.completion_tokens));
  row.push_back(format_shortest(g.cost_usd));
  row.push_back(format_shortest(g.model_seconds));
  row.push_back(format_shortest(g.judge_seconds));
  row.push_back(std::to_string(g.no_code_attempts));
  row.push_back(std::to_string(g.failed_attempts));
  row.push_back(std::to_string(g.unjudged_attempts));
  return row;
}

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json rate_json(const Rate& r) {
  return {{"k", r.k}, {"n", r.n}, {"rate", optional_number(r.fraction())}};
}

json stats_json(const SpeedupStats& st) {
  return {{"count", st.count},
          {"geomean", optional_number(st.geomean)},
          {"median", optional_number(st.median)},
          {"min", optional_number(st.min)},
          {"max", optional_number(st.max)}};
}

json group_json(const GroupMetrics& g) {
  json fast = json::array();
  for (const FastP& f : g.fast_p)
    fast.push_back({{"p", f.p},
                    {"k", f.rate.k},
                    {"n", f.rate.n},
                    {"rate", optional_number(f.rate.fraction())}});
  json turns = json::array();
  for (size_t t = 0; t < g.success_by_turn.size(); ++t) {
    json j = rate_json(g.success_by_turn[t]);
    j["turn"] = t + 1;
    turns.push_back(std::move(j));
  }
  return {{"family", g.family},
          {"arch", g.arch},
          {"tasks", g.tasks},
          {"samples", g.samples},
          {"attempts", g.attempts},
          {"compiled", rate_json(g.compiled)},
          {"correct", rate_json(g.correct)},
          {"targets_executed", rate_json(g.targets_executed)},
          {"success", rate_json(g.success)},
          {"speedup", stats_json(g.speedup)},
          {"sustained_speedup", stats_json(g.sustained_speedup)},
          {"fast_p", std::move(fast)},
          {"success_by_turn", std::move(turns)},
          {"no_code_attempts", g.no_code_attempts},
          {"failed_attempts", g.failed_attempts},
          {"unjudged_attempts", g.unjudged_attempts},
          {"prompt_tokens", g.prompt_tokens},
          {"completion_tokens", g.completion_tokens},
          {"cost_usd", optional_number(g.cost_usd)},
          {"model_seconds", g.model_seconds},
          {"judge_seconds", g.judge_seconds}};
}

json regime_speedups_json(const SampleResult& s) {
  json out = json::object();
  for (const auto& [regime, speedup] : s.regime_speedups) out[regime] = speedup;
  return out;
}

json sample_json(const SampleResult& s) {
  return {{"run", s.run},
          {"task", s.task_id},
          {"family", s.family},
          {"arch", s.arch},
          {"sample", s.sample},
          {"attempts", s.attempts},
          {"best_turn", s.best_turn},
          {"outcome", s.outcome},
          {"compiled", s.compiled},
          {"correct", s.correct},
          {"targets_executed", s.targets_executed},
          {"success", s.success},
          {"first_success_turn", s.first_success_turn ? json(*s.first_success_turn) : json()},
          {"speedup", optional_number(s.speedup)},
          {"sustained_speedup", optional_number(s.sustained_speedup)},
          {"regime_speedups", regime_speedups_json(s)}};
}

json entry_json(const EntryReport& e, int rank) {
  json families = json::array();
  for (const GroupMetrics& g : e.families) families.push_back(group_json(g));
  json samples = json::array();
  for (const SampleResult& s : e.samples) samples.push_back(sample_json(s));
  json regimes = json::array();
  for (const RegimeStats& g : e.regimes)
    regimes.push_back({{"regime", g.regime}, {"speedup", stats_json(g.speedup)}});
  return {
      {"rank", rank},         {"name", e.name},     {"runs", e.runs},    {"all", group_json(e.all)},
      {"families", families}, {"regimes", regimes}, {"samples", samples}};
}

}  // namespace

std::string render_csv(const Report& r) {
  std::string out = csv_line(csv_header(r));
  for (const EntryReport& e : r.entries) {
    for (const GroupMetrics& g : e.families) out += csv_line(csv_row(e.name, g));
    out += csv_line(csv_row(e.name, e.all));
  }
  return out;
}

json report_to_json(const Report& r) {
  json runs = json::array();
  for (const RunSummary& run : r.runs)
    runs.push_back({{"name", run.name},
                    {"model", run.model},
                    {"created_at", run.created_at},
                    {"prompt_version", run.prompt_version},
                    {"ptxbench_version", run.ptxbench_version},
                    {"price_prompt_per_mtok", optional_number(run.price_prompt_per_mtok)},
                    {"price_completion_per_mtok", optional_number(run.price_completion_per_mtok)}});
  json entries = json::array();
  int rank = 0;
  for (const EntryReport& e : r.entries) entries.push_back(entry_json(e, ++rank));
  json audit = json::array();
  for (const AuditCell& a : r.audit)
    audit.push_back({{"model", a.entry},
                     {"run", a.run},
                     {"task", a.task_id},
                     {"sample", a.sample},
                     {"turn", a.turn},
                     {"outcome", a.outcome},
                     {"reason", a.reason}});
  const ReportOptions& o = r.options;
  return {{"schema", kReportSchemaVersion},
          {"kind", "ptxbench.report"},
          {"notes", r.notes},
          {"options",
           {{"speedup_floor", o.speedup_floor},
            {"speedup_cap", o.speedup_cap},
            {"fast_p", o.fast_p},
            {"grouping", o.grouping == ReportGrouping::kModel ? "model" : "run"}}},
          {"turns", r.turns},
          {"runs", std::move(runs)},
          {"entries", std::move(entries)},
          {"audit", std::move(audit)}};
}

std::string render_json(const Report& r) { return report_to_json(r).dump(2) + "\n"; }

}  // namespace ptxb
