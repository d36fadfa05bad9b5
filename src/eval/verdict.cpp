#include "eval/verdict.hpp"

#include <cstdio>
#include <sstream>

namespace ptxb {

using nlohmann::json;

json Verdict::to_json() const {
  json j = record;
  j["schema"] = kVerdictSchemaVersion;
  j["outcome"] = std::string(to_string(outcome));
  j["reason"] = reason;
  return j;
}

namespace {

std::string fmt(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

std::string level_text(const json& v) {
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "NO";
  return v.is_string() ? v.get<std::string>() : v.dump();
}

void render_targets(std::ostringstream& os, const json& targets) {
  for (const json& t : targets) {
    os << "  " << t["instruction"].get<std::string>() << ": S0 " << level_text(t["S0"]) << ", S1 "
       << level_text(t["S1"]) << ", R1 " << level_text(t["R1"]) << ", R2 " << level_text(t["R2"])
       << " (required " << t["required"].get<std::string>() << ": "
       << (t["met"].get<bool>() ? "met" : "NOT met") << ")";
    if (!t["opcodes"].empty()) {
      os << " [";
      bool first = true;
      for (const auto& [op, n] : t["opcodes"].items()) {
        os << (first ? "" : ", ") << op << " x" << n.dump();
        first = false;
      }
      os << "]";
    }
    os << "\n";
  }
}

// "<unnamed>::gemm(const bf16 *, int)" -> "gemm": enough to tell kernels apart in a table.
std::string short_kernel_name(const std::string& name) {
  std::string s = name.substr(0, name.find('('));
  const size_t colons = s.rfind("::");
  return colons == std::string::npos ? s : s.substr(colons + 2);
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

void render_timing(std::ostringstream& os, const json& timing) {
  os << "timing (median of samples, 95% CI; speedup = library time / candidate time):\n";
  for (const json& t : timing) {
    std::string shape;
    for (const auto& [k, v] : t["shape"].items()) shape += k + "=" + v.dump() + " ";
    if (t.contains("error")) {
      os << "  " << shape << ": " << t["error"].dump() << "\n";
      continue;
    }
    if (t.value("hidden", false)) {  // the redaction rule: a hidden shape's speedup only
      os << "  " << t.value("label", std::string("a hidden shape")) << ": speedup "
         << fmt("%.3f", t["speedup"]["median"]) << " [" << fmt("%.3f", t["speedup"]["low"]) << ", "
         << fmt("%.3f", t["speedup"]["high"]) << "]\n";
      continue;
    }
    os << "  " << shape << " candidate " << fmt("%.1f", t["candidate"]["median"]) << " us ("
       << fmt("%.0f", t["candidate_tflops"]) << " TFLOP/s)  library "
       << fmt("%.1f", t["baseline"]["median"]) << " us (" << fmt("%.0f", t["baseline_tflops"])
       << " TFLOP/s)  speedup " << fmt("%.3f", t["speedup"]["median"]) << " ["
       << fmt("%.3f", t["speedup"]["low"]) << ", " << fmt("%.3f", t["speedup"]["high"]) << "]";
    const json& cb = t["clocks_before"];
    const json& ca = t["clocks_after"];
    if (cb.contains("sm_mhz") && ca.contains("sm_mhz"))
      os << "  SM " << cb["sm_mhz"].dump() << "->" << ca["sm_mhz"].dump() << " MHz";
    os << "\n";
  }
}

}  // namespace

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
  if (r.contains("targets")) {
    os << "targets:\n";
    render_targets(os, r["targets"]);
  }
  if (r.contains("evidence")) render_evidence(os, r["evidence"]);
  if (r.contains("correctness") && r["correctness"].contains("total"))
    os << "correctness: " << r["correctness"]["passed"].dump() << "/"
       << r["correctness"]["total"].dump() << " cases passed\n";
  if (r.contains("counter_check") && r["counter_check"].contains("match")) {
    const json& m = r["counter_check"]["match"];
    os << "counted calls: " << m["calls_compared"].dump() << " at the timed shapes, "
       << m["calls_mismatched"].dump() << " with hardware counters unlike the profiled call's\n";
  }
  if (r.contains("timing") && !r["timing"].empty()) render_timing(os, r["timing"]);
  for (const json& v : r.value("violations", json::array()))
    os << "violation: " << v.value("finding", "") << " (during " << v.value("during", "") << ")\n";
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
  if (r.contains("environment")) {
    const json& e = r["environment"];
    os << "device:  " << e.value("gpu", "?") << ", driver " << e.value("driver", "?")
       << ", cuBLASLt " << e.value("cublaslt", 0) << "\n";
  }
  return os.str();
}

std::string validate_verdict_json(const json& j) {
  std::string problems;
  auto need = [&](const char* field, json::value_t type) {
    if (!j.contains(field)) {
      problems += std::string("missing ") + field + "; ";
    } else if (j[field].type() != type && !(type == json::value_t::number_integer &&
                                            j[field].type() == json::value_t::number_unsigned)) {
      problems += std::string("wrong type for ") + field + "; ";
    }
  };
  need("schema", json::value_t::number_integer);
  need("outcome", json::value_t::string);
  need("reason", json::value_t::string);
  need("task", json::value_t::string);
  need("source", json::value_t::object);
  need("compile", json::value_t::object);
  if (j.contains("outcome") && j["outcome"].is_string() &&
      !outcome_from_string(j["outcome"].get<std::string>()))
    problems += "unknown outcome; ";
  if (j.contains("schema") && j["schema"].is_number() && j["schema"] != kVerdictSchemaVersion)
    problems += "schema version differs; ";
  return problems;
}

}  // namespace ptxb
