#include "llm/feedback.hpp"

#include <cctype>
#include <cstdio>
#include <regex>
#include <sstream>

#include "compile/ptxas_log.hpp"
#include "llm/compiler_notes.hpp"
#include "tasks/task_json.hpp"
#include "verdict/verdict_parts.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string number(const json& v) {
  if (v.is_number()) return fmt("%.4g", v.get<double>());
  if (v.is_string()) return v.get<std::string>();  // "NaN", "Infinity"
  return v.dump();
}

std::string shape_text(const TaskSpec& task, const json& shape) {
  const ShapeCase* sc = find_shape(task, shape);
  return sc != nullptr ? shape_label(task, *sc) : "an unknown shape";
}

// NOTE: the one redaction rule (docs/model-runs.md): of a hidden shape a model learns its label,
// pass/fail and speedup only: no sizes, times, TFLOP/s, element, byte or instruction counts,
// coordinates or shares, which all give its sizes away.
bool is_hidden(const TaskSpec& task, const json& shape) {
  const ShapeCase* sc = find_shape(task, shape);
  return sc == nullptr || sc->hidden;
}

// The outcome in words, for a reason that concerns a hidden shape.
std::string outcome_in_words(const std::string& outcome) {
  if (outcome == "incorrect") return "a wrong output or a failed call";
  if (outcome == "rejected_cheat") return "behaviour the rules forbid";
  if (outcome == "low_instruction_share") return "a target instruction below its required share";
  if (outcome == "instruction_missing") return "a target instruction that never executed";
  if (outcome == "crashed") return "a crash";
  if (outcome == "timeout") return "a call that did not finish in time";
  return "the verdict " + outcome;
}

// The verdict's reason, or, when it concerns a hidden shape, only what and where.
std::string visible_reason(const TaskSpec& task, const std::string& outcome,
                           const std::string& reason) {
  const std::string redacted = redact_hidden_shapes(task, reason);
  const size_t at = redacted.find("hidden shape #");
  if (at == std::string::npos && reason.find("(hidden)") == std::string::npos) return redacted;
  std::string label = "a hidden shape";
  if (at != std::string::npos) {
    size_t end = at + std::string("hidden shape #").size();
    while (end < redacted.size() && std::isdigit(static_cast<unsigned char>(redacted[end]))) ++end;
    label = redacted.substr(at, end - at);
  }
  return outcome_in_words(outcome) + " at " + label;
}

// Compiler diagnostics without the judge's temporary folders: "cand.cu(12): error: ...".
void render_compile(std::ostringstream& os, const json& verdict, const FeedbackOptions& o) {
  const std::string log = verdict.value("compile", json::object()).value("log", "");
  static const std::regex kFolder(R"((/[^\s:()]+/)+)");
  std::istringstream lines(log);
  std::string line;
  size_t kept = 0, errors = 0;
  os << "Compiler output (errors first lines):\n";
  while (std::getline(lines, line)) {
    if (!is_error_line(line) && line.find("warning") == std::string::npos) continue;
    ++errors;
    if (kept == o.max_compile_lines) continue;
    os << "  " << std::regex_replace(line, kFolder, "") << "\n";
    ++kept;
  }
  if (errors > kept) os << "  (" << errors - kept << " more diagnostic lines not shown)\n";
  if (errors == 0) os << "  (no diagnostic lines; the compile step failed: see the reason)\n";
}

void render_output(std::ostringstream& os, const json& out, bool hidden) {
  if (hidden) {
    os << "    " << out.value("name", "?") << ": wrong\n";
    return;
  }
  os << "    " << out.value("name", "?") << ": " << out.value("mismatches", 0) << " of "
     << out.value("count", 0) << " elements off tolerance, " << out.value("nan_count", 0)
     << " NaN/Inf, max abs error " << number(out.value("max_abs_error", json()))
     << ", relative Frobenius error " << number(out.value("rel_frobenius", json()));
  if (out.contains("first_mismatch")) {
    const json& m = out["first_mismatch"];
    os << "; first bad element at row " << m.value("row", 0) << ", column " << m.value("col", 0)
       << " (flat index " << m.value("index", 0) << "): got " << number(m["got"]) << ", expected "
       << number(m["want"]);
  }
  os << "\n";
}

void render_correctness(std::ostringstream& os, const TaskSpec& task,
                        const std::optional<CorrectnessSummary>& c, const FeedbackOptions& o) {
  if (!c) return;
  os << "Correctness: " << c->passed.value_or(0) << " of " << c->total.value_or(0)
     << " cases passed.\n";
  size_t shown = 0;
  for (const json& k : c->cases) {
    if (k.value("passed", true) || shown == o.max_failing_cases) continue;
    ++shown;
    const bool hidden = is_hidden(task, k.value("shape", json()));
    os << "  " << shape_text(task, k.value("shape", json())) << ", seed " << k.value("seed", 0)
       << ", inputs " << k.value("distribution", "?") << ":";
    if (k.contains("plan_status")) os << " ptxb_plan returned " << k["plan_status"];
    if (k.value("run_status", 0) != 0) os << " ptxb_run returned " << k["run_status"];
    if (k.value("modified_input_bytes", 0) != 0)
      os << " the inputs changed"
         << (hidden ? "" : " (" + k["modified_input_bytes"].dump() + " bytes)");
    if (k.value("modified_guard_bytes", 0) != 0)
      os << " writes outside the output buffers"
         << (hidden ? "" : " (" + k["modified_guard_bytes"].dump() + " bytes)");
    os << "\n";
    for (const json& out : k.value("outputs", json::array()))
      if (!out.value("passed", true)) render_output(os, out, hidden);
  }
}

// Whether a feedback row meets its floor: the FLOP share for MMA targets, else the count.
bool row_meets_floor(const json& f) {
  const double floor = f.value("floor", 0.0);
  if (f.contains("call_flop_share") && f["call_flop_share"].is_number())
    return f["call_flop_share"].get<double>() >= floor;
  return f.value("executed", 0.0) >= floor;
}

void render_targets(std::ostringstream& os, const std::vector<TargetEvidence>& targets,
                    const json& verdict) {
  if (targets.empty()) return;
  os << "Target instructions (S0 in PTX, S1 in SASS, R1 executed, R2 enough of the work):\n";
  for (const TargetEvidence& t : targets) {
    os << "  " << t.instruction << ": S0 " << level_json(t.s0).dump() << ", S1 "
       << level_json(t.s1).dump() << ", R1 " << level_json(t.r1).dump() << ", R2 "
       << level_json(t.r2).dump() << " (needs " << t.required << (t.met ? ", met" : ", NOT met")
       << ")\n";
  }
  const json evidence = verdict.value("evidence", json::object());
  if (!evidence.contains("feedback") || evidence["feedback"].empty()) return;
  os << "  executed per kernel (warp-level counts; floor = minimum needed):\n";
  for (const json& f : evidence["feedback"]) {
    const std::string shape = f.value("shape", "?");
    os << "    " << shape << ", " << f.value("kernel", "?") << ", " << f.value("target", "?");
    if (shape.rfind("hidden shape #", 0) == 0) {  // the judge labels hidden shapes so
      os << (row_meets_floor(f) ? ": meets its floor" : ": below its floor") << "\n";
      continue;
    }
    os << ": executed " << f.value("executed", 0) << ", floor " << number(f.value("floor", json()));
    if (f.contains("call_flop_share") && f["call_flop_share"].is_number())
      os << ", share of the FLOPs " << number(f["call_flop_share"]);
    if (f.contains("kernel_nontarget_share") && f["kernel_nontarget_share"].is_number())
      os << ", done by other arithmetic " << number(f["kernel_nontarget_share"]);
    os << "\n";
  }
}

void render_timing(std::ostringstream& os, const TaskSpec& task,
                   const std::vector<ShapeTiming>& timing) {
  if (timing.empty()) return;
  os << "Speed against the library (speedup = library time / your time):\n";
  for (const ShapeTiming& t : timing) {
    os << "  " << shape_text(task, t.shape) << ": ";
    if (!t.error.empty()) {
      os << json(t.error).dump() << "\n";
      continue;
    }
    if (is_hidden(task, t.shape)) {
      os << "speedup " << fmt("%.3f", t.speedup.median) << "\n";
      continue;
    }
    os << "yours " << number(t.candidate.median) << " us (" << fmt("%.0f", t.candidate_tflops())
       << " TFLOP/s";
    if (const auto peak = t.fraction_of_peak())
      os << ", " << fmt("%.0f", 100 * *peak) << "% of the GPU's peak";
    if (const auto bandwidth = t.fraction_of_bandwidth())
      os << "; memory-bound: " << fmt("%.0f", 100 * *bandwidth) << "% of its DRAM bandwidth";
    os << "), library " << number(t.baseline.median) << " us (" << fmt("%.0f", t.baseline_tflops())
       << " TFLOP/s), speedup " << fmt("%.3f", t.speedup.median) << "\n";
  }
  // NOTE: over the visible shapes only: a regime holding a hidden shape would tell its M range
  // (the redaction rule, docs/model-runs.md). The verdict and the report count every shape.
  std::vector<ShapeTiming> visible;
  for (const ShapeTiming& t : timing)
    if (!is_hidden(task, t.shape)) visible.push_back(t);
  const std::vector<RegimeSpeedup> regimes = regime_speedups(visible);
  if (regimes.empty()) return;
  os << "  By regime, over the visible timed shapes (geometric mean of the speedups):";
  for (size_t i = 0; i < regimes.size(); ++i)
    os << (i == 0 ? " " : ", ") << regimes[i].regime << " " << fmt("%.3f", regimes[i].geomean)
       << " over " << regimes[i].shapes << (regimes[i].shapes == 1 ? " shape" : " shapes");
  os << "\n";
}

void render_violations(std::ostringstream& os, const json& verdict) {
  for (const json& v : verdict.value("violations", json::array()))
    os << "Rule violation during " << v.value("during", "?") << ": " << v.value("finding", "?")
       << "\n";
}

}  // namespace

std::string redact_hidden_shapes(const TaskSpec& task, std::string text) {
  for (const ShapeCase* sc : task.hidden_shapes()) {
    const std::string label = shape_label(task, *sc);
    for (const std::string& form : {sc->shape.to_string(), shape_json(sc->shape).dump()}) {
      for (size_t at = text.find(form); at != std::string::npos; at = text.find(form, at)) {
        text.replace(at, form.size(), label);
        at += label.size();
      }
    }
  }
  return text;
}

std::string render_feedback(const TaskSpec& task, const json& verdict,
                            const FeedbackOptions& options) {
  std::ostringstream os;
  const std::string outcome = verdict.value("outcome", "unknown");
  if (outcome == "no_code") {
    os << "Your answer had no code block. Reply with exactly one fenced ```cuda block holding "
          "the whole source file.\n";
    return os.str();
  }
  os << "Verdict: " << outcome;
  const std::string reason = visible_reason(task, outcome, verdict.value("reason", ""));
  if (!reason.empty()) os << ": " << reason;
  os << "\n";
  if (outcome == "compile_error") render_compile(os, verdict, options);
  const VerdictParts parts = read_verdict_parts(verdict);
  render_correctness(os, task, parts.correctness, options);
  render_violations(os, verdict);
  if (outcome != "compile_error") {
    render_targets(os, parts.targets, verdict);
    os << compiler_notes(verdict.value("compile", json::object()));
  }
  render_timing(os, task, parts.timing);
  std::string text = redact_hidden_shapes(task, os.str());
  if (text.size() > options.max_chars) {
    text.resize(options.max_chars);
    text += "\n(feedback cut at " + std::to_string(options.max_chars) + " characters)\n";
  }
  return text;
}

}  // namespace ptxb
