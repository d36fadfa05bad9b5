// render_markdown: the report as GitHub-flavoured Markdown tables (docs/report.md, "Markdown").
#include <sstream>

#include "report/format.hpp"
#include "report/render.hpp"

namespace ptxb {
namespace {

// A cell's text made safe for a table: pipes escaped, line breaks folded into spaces.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

// One Markdown table; columns whose header starts with '>' are right-aligned (the '>' is
// dropped), the others left-aligned.
class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }

  std::string render() const {
    std::ostringstream os;
    os << "|";
    for (const std::string& h : header_) os << " " << cell(right(h) ? h.substr(1) : h) << " |";
    os << "\n|";
    for (const std::string& h : header_) os << (right(h) ? "---:|" : "---|");
    os << "\n";
    for (const auto& row : rows_) {
      os << "|";
      for (const std::string& c : row) os << " " << cell(c) << " |";
      os << "\n";
    }
    return os.str();
  }

 private:
  static bool right(const std::string& h) { return !h.empty() && h[0] == '>'; }
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

std::string speedup_text(const std::optional<double>& v) {
  return v ? format_fixed(*v, 2) + "x" : "n/a";
}

std::string price_text(const RunSummary& r) {
  if (!r.price_prompt_per_mtok && !r.price_completion_per_mtok) return "n/a";
  auto one = [](const std::optional<double>& p) { return p ? format_label(*p) : "n/a"; };
  return one(r.price_prompt_per_mtok) + " / " + one(r.price_completion_per_mtok);
}

std::vector<std::string> fast_headers(const ReportOptions& o) {
  std::vector<std::string> h;
  for (double p : o.fast_p) h.push_back(">fast_" + format_threshold(p));
  return h;
}

// The rate and speed columns shared by the leaderboard and the family table.
std::vector<std::string> quality_cells(const GroupMetrics& g) {
  std::vector<std::string> c = {
      format_rate(g.compiled),         format_rate(g.correct),
      format_rate(g.targets_executed), format_rate(g.success),
      speedup_text(g.speedup.geomean), speedup_text(g.speedup.median),
      std::to_string(g.speedup.count), speedup_text(g.sustained_speedup.geomean)};
  for (const FastP& f : g.fast_p) c.push_back(format_rate(f.rate));
  return c;
}

std::vector<std::string> quality_headers(const ReportOptions& o) {
  std::vector<std::string> h = {">compiled",  ">correct",          ">targets executed",
                                ">success",   ">speedup geomean",  ">speedup median",
                                ">n speedup", ">sustained geomean"};
  for (std::string& f : fast_headers(o)) h.push_back(std::move(f));
  return h;
}

template <typename T>
std::vector<T> concat(std::vector<T> a, const std::vector<T>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Each entry's family rows followed by its "all" row.
template <typename F>
void for_each_group(const Report& r, F&& f) {
  for (const EntryReport& e : r.entries) {
    for (const GroupMetrics& g : e.families) f(e, g);
    f(e, e.all);
  }
}

std::string runs_table(const Report& r) {
  Table t({"run", "model", "created", "prompt", "ptxbench", "price in / out (USD per Mtok)"});
  for (const RunSummary& run : r.runs)
    t.add({run.name, run.model, run.created_at, run.prompt_version, run.ptxbench_version,
           price_text(run)});
  return t.render();
}

std::string leaderboard_table(const Report& r) {
  Table t(concat<std::string>({">#", "model", ">tasks", ">samples"}, quality_headers(r.options)));
  int rank = 0;
  for (const EntryReport& e : r.entries)
    t.add(concat<std::string>({std::to_string(++rank), e.name, std::to_string(e.all.tasks),
                               std::to_string(e.all.samples)},
                              quality_cells(e.all)));
  return t.render();
}

std::string family_table(const Report& r) {
  Table t(concat<std::string>({"model", "arch", "family", ">tasks", ">samples", ">attempts"},
                              quality_headers(r.options)));
  for_each_group(r, [&](const EntryReport& e, const GroupMetrics& g) {
    t.add(concat<std::string>({e.name, g.arch, g.family, std::to_string(g.tasks),
                               std::to_string(g.samples), std::to_string(g.attempts)},
                              quality_cells(g)));
  });
  return t.render();
}

// Nothing when no entry has a regime.
std::string regime_table(const Report& r) {
  Table t({"model", "regime", ">n speedup", ">speedup geomean", ">speedup median", ">min"});
  bool any = false;
  for (const EntryReport& e : r.entries)
    for (const RegimeStats& g : e.regimes) {
      any = true;
      t.add({e.name, g.regime, std::to_string(g.speedup.count), speedup_text(g.speedup.geomean),
             speedup_text(g.speedup.median), speedup_text(g.speedup.min)});
    }
  return any ? t.render() : std::string();
}

std::string turn_table(const Report& r) {
  std::vector<std::string> h = {"model", "arch", "family"};
  for (int turn = 1; turn <= r.turns; ++turn) h.push_back(">turn " + std::to_string(turn));
  Table t(h);
  for_each_group(r, [&](const EntryReport& e, const GroupMetrics& g) {
    std::vector<std::string> row = {e.name, g.arch, g.family};
    for (const Rate& rate : g.success_by_turn) row.push_back(format_rate(rate));
    t.add(row);
  });
  return t.render();
}

std::string cost_table(const Report& r) {
  Table t({"model", "arch", "family", ">prompt tokens", ">completion tokens", ">cost (USD)",
           ">model time (s)", ">judge time (s)", ">no_code", ">generation failed", ">unjudged"});
  for_each_group(r, [&](const EntryReport& e, const GroupMetrics& g) {
    t.add({e.name, g.arch, g.family, std::to_string(g.prompt_tokens),
           std::to_string(g.completion_tokens), g.cost_usd ? format_fixed(*g.cost_usd, 4) : "n/a",
           format_fixed(g.model_seconds, 1), format_fixed(g.judge_seconds, 1),
           std::to_string(g.no_code_attempts), std::to_string(g.failed_attempts),
           std::to_string(g.unjudged_attempts)});
  });
  return t.render();
}

std::string audit_table(const Report& r) {
  if (r.audit.empty()) return "No cell is flagged for audit.\n";
  Table t({"model", "run", "task", ">sample", ">turn", "outcome", "reason"});
  for (const AuditCell& a : r.audit)
    t.add({a.entry, a.run, a.task_id, std::to_string(a.sample), std::to_string(a.turn), a.outcome,
           a.reason});
  return t.render();
}

}  // namespace

std::string render_markdown(const Report& r) {
  std::ostringstream os;
  os << "# PTXBench leaderboard\n\n";
  if (r.entries.empty()) {
    os << "No attempts to report.\n";
    return os.str();
  }
  const ReportOptions& o = r.options;
  os << "Rates are over samples (one task x sample index, its result the best of its turns). "
     << "A sample's speedup (library time / candidate time) is the geometric mean over its timed "
     << "shapes, each clamped into [" << format_label(o.speedup_floor) << ", "
     << format_label(o.speedup_cap) << "]; fast_p counts samples that succeeded with speedup >= "
     << "p, over all samples. Turns: up to " << r.turns << ". Definitions: docs/report.md.\n\n";
  os << "## Runs\n\n" << runs_table(r) << "\n";
  os << "## Leaderboard\n\n" << leaderboard_table(r) << "\n";
  os << "## By task family\n\n" << family_table(r) << "\n";
  if (const std::string regimes = regime_table(r); !regimes.empty())
    os << "## By regime\n\n"
       << "Tasks with regimes (decode, prefill...): a successful sample's speedup over the timed "
       << "shapes of each regime, clamped like the above.\n\n"
       << regimes << "\n";
  os << "## Success by turn\n\n"
     << "Samples that succeeded at or before each turn.\n\n"
     << turn_table(r) << "\n";
  os << "## Tokens, cost and time\n\n" << cost_table(r) << "\n";
  os << "## Audit\n\n" << audit_table(r);
  if (!r.notes.empty()) {
    os << "\n## Notes\n\n";
    for (const std::string& n : r.notes) os << "- " << n << "\n";
  }
  return os.str();
}

}  // namespace ptxb
