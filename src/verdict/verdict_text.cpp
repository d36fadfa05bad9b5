// The text rendering of a verdict (ptxbench eval without --json).
#include "verdict/verdict.hpp"

#include <cstdio>
#include <sstream>

namespace ptxb {

using nlohmann::json;

namespace {

std::string fmt(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

const char* level_text(LevelResult level) {
  switch (level) {
    case LevelResult::kYes:
      return "yes";
    case LevelResult::kNo:
      return "NO";
    case LevelResult::kUnavailable:
      break;
  }
  return "unavailable";
}

void render_targets(std::ostringstream& os, const std::vector<TargetEvidence>& targets) {
  for (const TargetEvidence& t : targets) {
    os << "  " << t.instruction << ": S0 " << level_text(t.s0) << ", S1 " << level_text(t.s1)
       << ", R1 " << level_text(t.r1) << ", R2 " << level_text(t.r2) << " (required " << t.required
       << ": " << (t.met ? "met" : "NOT met") << ")";
    if (!t.opcodes.empty()) {
      os << " [";
      bool first = true;
      for (const auto& [op, n] : t.opcodes) {
        os << (first ? "" : ", ") << op << " x" << n;
        first = false;
      }
      os << "]";
    }
    os << "\n";
  }
}

void render_evidence(std::ostringstream& os, const json& e) {
  if (e.contains("unavailable")) {
    os << "runtime evidence: unavailable (" << e["unavailable"].get<std::string>() << ")\n";
    return;
  }
  if (!e.contains("feedback")) return;
  os << "runtime evidence (" << e.value("mechanism", "") << "; controls "
     << (e["controls"]["ok"].get<bool>() ? "ok" : "FAILED") << "; warp-level executions):\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %-22s %-26s %-22s %12s %10s %10s %10s\n", "shape", "kernel",
                "target", "executed", "floor", "FLOP share", "other");
  os << line;
  for (const json& f : e["feedback"]) {
    const std::string share =
        f["kernel_flop_share"].is_number() ? fmt("%.3f", f["kernel_flop_share"]) : "-";
    const std::string floor =
        f["call_flop_share"].is_number() ? fmt("%.2f", f["floor"]) : fmt("%.0f", f["floor"]);
    const std::string other =
        f.contains("kernel_nontarget_share") && f["kernel_nontarget_share"].is_number()
            ? fmt("%.3f", f["kernel_nontarget_share"])
            : "-";
    std::snprintf(line, sizeof line, "  %-22s %-26s %-22s %12lld %10s %10s %10s\n",
                  f["shape"].get<std::string>().c_str(),
                  short_kernel_name(f["kernel"].get<std::string>()).c_str(),
                  f["target"].get<std::string>().c_str(),
                  static_cast<long long>(f["executed"].get<int64_t>()), floor.c_str(),
                  share.c_str(), other.c_str());
    os << line;
  }
}

std::string interval_text(const Interval& i) {
  return fmt("%.3f", i.median) + " [" + fmt("%.3f", i.low) + ", " + fmt("%.3f", i.high) + "]";
}

// "    sustained (20 back to back): candidate 12.3 us  library 10.1 us  speedup 0.82 [..]".
void render_sustained(std::ostringstream& os, const ShapeTiming& t) {
  const SustainedTiming& s = *t.sustained;
  os << "    sustained (" << s.calls << " back to back): ";
  if (!s.error.empty()) {
    os << s.error << "\n";
    return;
  }
  if (!t.hidden)
    os << "candidate " << fmt("%.1f", s.candidate.median) << " us  library "
       << fmt("%.1f", s.baseline.median) << " us  ";
  os << "speedup " << interval_text(s.speedup);
  const json cb = s.details.value("clocks_before", json::object());
  const json ca = s.details.value("clocks_after", json::object());
  if (!t.hidden && cb.contains("sm_mhz") && ca.contains("sm_mhz"))
    os << "  SM " << cb["sm_mhz"].dump() << "->" << ca["sm_mhz"].dump() << " MHz";
  os << "\n";
}

// "  by regime, visible shapes (geomean of speedups): decode 0.812 (2 shapes; sustained 0.790)".
// NOTE: the redaction rule: a regime's number over a hidden shape would tell its M range; the
// JSON's speedup_by_regime counts every shape.
void render_regimes(std::ostringstream& os, const std::vector<ShapeTiming>& timing) {
  std::vector<ShapeTiming> visible;
  for (const ShapeTiming& t : timing)
    if (!t.hidden) visible.push_back(t);
  const std::vector<RegimeSpeedup> regimes = regime_speedups(visible);
  if (regimes.empty()) return;
  os << "  by regime, visible shapes (geomean of speedups):";
  for (size_t i = 0; i < regimes.size(); ++i) {
    const RegimeSpeedup& r = regimes[i];
    os << (i == 0 ? " " : ", ") << r.regime << " " << fmt("%.3f", r.geomean) << " (" << r.shapes
       << (r.shapes == 1 ? " shape" : " shapes")
       << (r.sustained_geomean ? "; sustained " + fmt("%.3f", *r.sustained_geomean) : "") << ")";
  }
  os << "\n";
}

void render_timing(std::ostringstream& os, const std::vector<ShapeTiming>& timing) {
  os << "timing (median of samples, 95% CI; speedup = library time / candidate time):\n";
  for (const ShapeTiming& t : timing) {
    std::string shape;
    for (const auto& [k, v] : t.shape.items()) shape += k + "=" + v.dump() + " ";
    if (!t.error.empty()) {
      os << "  " << shape << ": " << t.error << "\n";
      continue;
    }
    if (t.hidden) {  // the redaction rule: a hidden shape's speedup only
      os << "  " << (t.label.empty() ? std::string("a hidden shape") : t.label) << ": speedup "
         << interval_text(t.speedup) << "\n";
      if (t.sustained) render_sustained(os, t);
      continue;
    }
    os << "  " << shape << " candidate " << fmt("%.1f", t.candidate.median) << " us ("
       << fmt("%.0f", t.candidate_tflops()) << " TFLOP/s"
       << (t.fraction_of_peak() ? ", " + fmt("%.0f", 100 * *t.fraction_of_peak()) + "% of peak"
                                : std::string())
       << (t.fraction_of_bandwidth()
               ? ", memory-bound: " + fmt("%.0f", 100 * *t.fraction_of_bandwidth()) +
                     "% of DRAM bandwidth"
               : std::string())
       << ")  library " << fmt("%.1f", t.baseline.median) << " us ("
       << fmt("%.0f", t.baseline_tflops()) << " TFLOP/s)  speedup " << interval_text(t.speedup)
       << (t.details.value("coarse", false) ? " (coarse: a slow candidate's few rounds)" : "");
    const json cb = t.details.value("clocks_before", json::object());
    const json ca = t.details.value("clocks_after", json::object());
    if (cb.contains("sm_mhz") && ca.contains("sm_mhz"))
      os << "  SM " << cb["sm_mhz"].dump() << "->" << ca["sm_mhz"].dump() << " MHz";
    os << "\n";
    if (t.sustained) render_sustained(os, t);
  }
  render_regimes(os, timing);
}

// "time:    compile 2.8 s, evidence 4.3 s, worker 8.5 s (setup 1.2, correctness 3.1, ...)": the
// stages, then the worker's phases without their parts (docs/result-schema.md).
void render_stage_times(std::ostringstream& os, const json& stages) {
  os << "time:   ";
  const char* sep = " ";
  for (const char* stage : {"compile", "evidence", "worker"})
    if (stages.contains(stage) && stages[stage].is_number()) {
      os << sep << stage << fmt(" %.1f s", stages[stage].get<double>());
      sep = ", ";
    }
  if (stages.contains("worker_phases") && stages["worker_phases"].is_object()) {
    sep = " (";
    for (const auto& [phase, seconds] : stages["worker_phases"].items())
      if (phase.find('.') == std::string::npos && seconds.is_number()) {
        os << sep << phase << fmt(" %.1f", seconds.get<double>());
        sep = ", ";
      }
    if (std::string(sep) == ", ") os << ")";
  }
  os << "\n";
}

}  // namespace

std::string short_kernel_name(const std::string& name) {
  std::string s = name.substr(0, name.find('('));
  const size_t colons = s.rfind("::");
  return colons == std::string::npos ? s : s.substr(colons + 2);
}

std::string render_text(const Verdict& v) {
  const json& r = v.record;
  std::ostringstream os;
  os << "outcome: " << to_string(v.outcome) << "\n";
  if (!v.reason.empty()) os << "reason:  " << v.reason << "\n";
  if (r.contains("task")) os << "task:    " << r["task"].get<std::string>() << "\n";
  if (r.contains("compile")) {
    const json& c = r["compile"];
    os << "compile: " << (c["ok"].get<bool>() ? "ok" : "FAILED")
       << (c["cached"].get<bool>() ? " (cached)" : "") << " in " << fmt("%.1f", c["seconds"])
       << " s";
    for (const json& res : c["resources"])
      os << "; " << res["registers"].dump() << " registers, " << res["spill_store_bytes"].dump()
         << " B spilled";
    for (const json& f : c["quality_flags"]) os << "; flag " << f["code"].get<std::string>();
    os << "\n";
    if (!c["ok"].get<bool>()) os << c["log"].get<std::string>() << "\n";
  }
  if (!v.targets.empty()) {
    os << "targets:\n";
    render_targets(os, v.targets);
  }
  if (r.contains("evidence")) render_evidence(os, r["evidence"]);
  if (v.correctness && v.correctness->total)
    os << "correctness: " << v.correctness->passed.value_or(0) << "/" << *v.correctness->total
       << " cases passed\n";
  if (r.contains("counter_check") && r["counter_check"].contains("match")) {
    const json& m = r["counter_check"]["match"];
    os << "counted calls: " << m["calls_compared"].dump() << " at the timed shapes, "
       << m["calls_mismatched"].dump() << " with hardware counters unlike the profiled call's\n";
  }
  if (!v.timing.empty()) render_timing(os, v.timing);
  for (const json& found : r.value("violations", json::array()))
    os << "violation: " << found.value("finding", "") << " (during " << found.value("during", "")
       << ")\n";
  for (const json& a : r.value("audit", json::array()))
    os << "audit:   " << a.get<std::string>() << "\n";
  for (const json& s : r.value("sanitizer", json::array()))
    if (s.contains("tool"))
      os << "sanitizer " << s["tool"].get<std::string>() << ": " << s["errors"].dump()
         << " errors\n";
  if (r.contains("isolation") && r["isolation"].contains("sandbox")) {
    const json& s = r["isolation"]["sandbox"];
    os << "isolation: ";
    if (s.is_object())
      os << "user " << s.value("user", "?") << "; Landlock "
         << (s.contains("landlock") ? s["landlock"].value("status", "?") : "?") << "; network "
         << s.value("network", "?");
    else
      os << s.dump();
    os << "; CUPTI monitor "
       << (r["isolation"].contains("monitor") && r["isolation"]["monitor"]["available"] == true
               ? "on"
               : "unavailable")
       << "\n";
  }
  if (r.contains("stage_seconds") && r["stage_seconds"].is_object() && !r["stage_seconds"].empty())
    render_stage_times(os, r["stage_seconds"]);
  if (r.contains("environment")) {
    const json& e = r["environment"];
    os << "device:  " << e.value("gpu", "?") << ", driver " << e.value("driver", "?")
       << ", cuBLASLt " << e.value("cublaslt", 0) << "\n";
  }
  return os.str();
}

}  // namespace ptxb
