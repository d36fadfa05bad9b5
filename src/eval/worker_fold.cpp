#include "eval/worker_fold.hpp"

#include <cstdio>
#include <optional>

#include "core/error.hpp"
#include "protocol/protocol.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

// Why a timing message's calls were not verified: the first wrong round (docs/timing.md).
std::string timed_round_failure(const ShapeTiming& t) {
  const json failure = t.details.value("rounds", json::object()).value("failure", json());
  std::string what = "the output of a timed call on fresh inputs was wrong";
  if (failure.is_object())
    what = "timed round " + failure.value("round", json(0)).dump() + ": " +
           failure.value("what", std::string("wrong output"));
  return what + " at " + (t.label.empty() ? t.shape.dump() : t.label) +
         " (correct in the correctness stage: a skipped, cached or replayed call)";
}

// The reason for a wrong output in the sustained regime's back-to-back batches.
std::string sustained_failure(const ShapeTiming& t) {
  const json failure =
      t.sustained->details.value("rounds", json::object()).value("failure", json());
  std::string what = "the output of a back-to-back call on fresh inputs was wrong";
  if (failure.is_object())
    what = "sustained round " + failure.value("round", json(0)).dump() + ", call " +
           failure.value("call", json(0)).dump() +
           " of the batch: " + failure.value("what", std::string("wrong output"));
  return what + " at " + (t.label.empty() ? t.shape.dump() : t.label) +
         " (correct in the correctness stage and the cold rounds: a skipped, cached or replayed "
         "call)";
}

// A timed shape whose timing failed: the candidate's own failure (its ptxb_plan or ptxb_run
// returned non-zero in the cold or the sustained regime) ends the verdict as `crashed`, so that a
// submission cannot drop the shapes where it is slow from its speedup by failing there; the
// library's failure is PTXBench's (`unavailable`). Which side failed is in the row's details
// (`failed_call`, or the plan statuses); an error of neither side (the sustained regime without
// memory for its input sets) is no failure. nullopt when nothing failed.
std::optional<WorkerOutcome> timing_failure(const ShapeTiming& t) {
  const std::string where = " at " + (t.label.empty() ? t.shape.dump() : t.label);
  auto judge = [&](const std::string& error, const json& details,
                   const char* regime) -> std::optional<WorkerOutcome> {
    const std::string side = details.value("failed_call", std::string());
    if (side == "candidate" || details.value("candidate_plan_status", 0) != 0)
      return WorkerOutcome{Outcome::kCrashed, std::string("the submission failed in ") + regime +
                                                  " timing" + where + ": " + error};
    if (side == "baseline" || details.value("baseline_plan_status", 0) != 0)
      return WorkerOutcome{Outcome::kUnavailable, std::string("the library baseline failed in ") +
                                                      regime + " timing" + where + ": " + error};
    return std::nullopt;
  };
  if (auto cold = judge(t.error, t.details, "the cold")) return cold;
  if (t.sustained) return judge(t.sustained->error, t.sustained->details, "the sustained");
  return std::nullopt;
}

// The one-line reason for the first failing correctness case.
std::string case_failure(const json& f) {
  std::string why = "at " + f["shape"].dump() + (f.value("hidden", false) ? " (hidden)" : "");
  if (f.contains("seed")) why += " seed " + f["seed"].dump() + " " + f.value("distribution", "");
  if (f.value("run_status", 0) != 0) why += ": ptxb_run returned " + f["run_status"].dump();
  if (f.value("modified_input_bytes", 0) != 0)
    why += ": inputs modified (" + f["modified_input_bytes"].dump() + " bytes)";
  if (f.value("modified_guard_bytes", 0) != 0)
    why +=
        ": wrote " + f["modified_guard_bytes"].dump() + " bytes outside the buffers it was given";
  for (const json& o : f.value("outputs", json::array()))
    if (!o["passed"].get<bool>()) {
      why += ": " + o["name"].get<std::string>() + " " +
             std::to_string(o["mismatches"].get<int64_t>()) + " mismatches";
      if (o.contains("first_mismatch"))
        why += ", first at row " + o["first_mismatch"]["row"].dump() + " col " +
               o["first_mismatch"]["col"].dump() + " got " + o["first_mismatch"]["got"].dump() +
               " want " + o["first_mismatch"]["want"].dump();
      break;
    }
  if (f.contains("reason")) why += ": " + f["reason"].get<std::string>();
  return why;
}

}  // namespace

WorkerOutcome fold_worker(const ProcessResult& proc, const std::string& message_key,
                          Verdict& verdict) {
  json& record = verdict.record;
  bool truncated = false;
  std::vector<json> messages = parse_worker_messages(proc.result_bytes, &truncated);
  WorkerOutcome cheat;  // set by the first sign of cheating; decides over everything else
  if (const auto forged = first_forged_message(messages, message_key)) {
    cheat = {Outcome::kRejectedCheat,
             "line " + std::to_string(*forged + 1) +
                 " on the result channel was not written by the worker (forged protocol message)"};
    messages.resize(*forged);  // only the genuine prefix counts
  }
  if (proc.result_overflow && cheat.reason.empty())
    cheat = {Outcome::kRejectedCheat, "flooded the result channel (more than the worker writes)"};

  json cases = json::array(), violations = json::array();
  std::vector<ShapeTiming> timing;
  json audit = json::array();
  bool done = false, hello = false;
  WorkerOutcome out;
  json first_failure;      // the first failing case message, null while none
  bool sandboxed = false;  // the "sandbox" message came: candidate code may have run since
  for (const json& m : messages) {
    const std::string type = m["type"];
    if (type == "hello") {
      hello = m.value("protocol", 0) == kWorkerProtocolVersion;
    } else if (type == "environment") {
      record["environment"] = m["device"];
    } else if (type == "library_choices") {
      // The worker reports its library's plan choices before the sandbox closes and the
      // candidate loads; one after that was written by candidate code, to make later
      // evaluations time the library with a slow plan.
      if (sandboxed) {
        if (cheat.reason.empty())
          cheat = {Outcome::kRejectedCheat,
                   "library plan choices after the worker loaded the candidate (forged protocol "
                   "message)"};
        continue;
      }
      record["library_choices"] = m.value("choices", json::array());
    } else if (type == "sandbox") {
      sandboxed = true;
      record["isolation"]["sandbox"] = m["report"];
    } else if (type == "monitor") {
      record["isolation"]["monitor"] = {{"available", m["available"]}, {"reason", m["reason"]}};
    } else if (type == "candidate_violation") {
      violations.push_back(m);
      if (cheat.reason.empty())
        cheat = {Outcome::kRejectedCheat,
                 m.value("finding", "") + " (during " + m.value("during", "") + ")"};
    } else if (type == "case") {
      if (!m["passed"].get<bool>() && first_failure.is_null()) first_failure = m;
      cases.push_back(m);
    } else if (type == "timing") {
      json body = m;
      body.erase("type");
      try {
        timing.push_back(body.get<ShapeTiming>());
      } catch (const json::exception& e) {
        throw ApiError(std::string("ptxbench-worker sent a malformed timing message: ") + e.what());
      }
      const ShapeTiming& t = timing.back();
      if (t.verified == false && cheat.reason.empty())
        cheat = {Outcome::kRejectedCheat, timed_round_failure(t)};
      if (t.sustained && t.sustained->verified == false && cheat.reason.empty())
        cheat = {Outcome::kRejectedCheat, sustained_failure(t)};
      if (t.error.empty() && t.speedup.median > kAuditSpeedup) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "speedup %.2fx over the library at %s (above %.2fx)",
                      t.speedup.median, t.shape.dump().c_str(), kAuditSpeedup);
        audit.push_back(buf);
      }
    } else if (type == "counters_setup") {
      record["counters"]["setup"] = m["setup"];
    } else if (type == "counters") {
      record["counters"]["shapes"].push_back(m);
    } else if (type == "phases") {
      record["stage_seconds"]["worker_phases"] = m.value("seconds", json::object());
    } else if (type == "done") {
      done = true;
    } else if (type == "no_gpu") {
      // "cuda": no CUDA device at all; "arch": a device of another architecture. The worker
      // finds the first before it reports its device, and before any candidate code runs: one
      // after that was written by candidate code, to make the judge retire a working GPU.
      if (m.value("cause", "") == "cuda" && record.contains("environment")) {
        if (cheat.reason.empty())
          cheat = {Outcome::kRejectedCheat,
                   "a no-GPU message after the worker reported its GPU (forged protocol message)"};
        continue;
      }
      record["worker"]["no_gpu"] = {{"cause", m.value("cause", "")},
                                    {"message", m.value("message", "")}};
      out = {Outcome::kUnavailable,
             "no suitable GPU: static stage only (" + m.value("message", "") + ")"};
    } else if (type == "load_error") {
      out = {Outcome::kLoadError, m.value("message", "")};
    } else if (type == "candidate_fault") {
      out = {Outcome::kCrashed, "CUDA fault after candidate code: " + m.value("message", "")};
      record["worker"]["fault"] = m.value("message", "");  // kept when a cheat decides
    } else if (type == "stopped") {
      record["worker"]["stopped"] = m.value("reason", "") + " during " + m.value("during", "");
    } else if (type == "candidate_timeout") {
      out = {Outcome::kTimeout,
             m.value("what", "") + " did not finish within " + m["seconds"].dump() + " s"};
    } else if (type == "harness_error") {
      throw ApiError("ptxbench-worker failed: " + m.value("message", ""));
    }
  }
  verdict.correctness = CorrectnessSummary{cases, std::nullopt, std::nullopt};
  verdict.timing = std::move(timing);
  record["violations"] = violations;
  record["audit"] = audit;
  record["worker"]["end"] = proc.describe();
  record["worker"]["messages"] = messages.size();
  record["worker"]["truncated_output"] = truncated;

  if (!cheat.reason.empty()) return cheat;
  if (out.outcome != Outcome::kPassed) return out;
  if (proc.timed_out) return {Outcome::kTimeout, "worker " + proc.describe()};
  if (!hello) throw ApiError("ptxbench-worker did not start: " + proc.describe());
  if (!done)
    return {Outcome::kCrashed, "worker ended before finishing (" + proc.describe() + ") after " +
                                   std::to_string(cases.size()) + " correctness cases"};
  int passed = 0;
  for (const json& c : cases) passed += c["passed"].get<bool>() ? 1 : 0;
  verdict.correctness->passed = passed;
  verdict.correctness->total = static_cast<int64_t>(cases.size());
  if (!first_failure.is_null()) return {Outcome::kIncorrect, case_failure(first_failure)};
  for (const ShapeTiming& t : verdict.timing)
    if (const auto failed = timing_failure(t)) return *failed;
  return out;
}

}  // namespace ptxb
