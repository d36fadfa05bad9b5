#include "protocol/protocol.hpp"

#include "core/error.hpp"
#include "sys/hmac.hpp"

namespace ptxb {

nlohmann::json to_json(const WorkerJob& job) {
  return {{"protocol", kWorkerProtocolVersion},
          {"task", job.task},
          {"counters", job.counters},
          {"shared_object", job.shared_object.string()},
          {"run_correctness", job.run_correctness},
          {"run_timing", job.run_timing},
          {"run_evidence", job.run_evidence},
          {"evidence_in_process", job.evidence_in_process},
          {"evidence_metrics", job.evidence_metrics},
          {"quick_correctness", job.quick_correctness},
          {"own_device_code_rule", job.own_device_code_rule},
          {"result_file", job.result_file.string()},
          {"message_key", job.message_key},
          {"sandbox", job.sandbox ? to_json(*job.sandbox) : nlohmann::json(nullptr)},
          {"call_deadline_s", job.call_deadline_s},
          {"candidate_functions", job.candidate_functions ? nlohmann::json(*job.candidate_functions)
                                                          : nlohmann::json(nullptr)},
          {"timing_warmup", job.timing_warmup},
          {"timing_samples", job.timing_samples},
          {"timing_min_ms", job.timing_min_ms},
          {"timing_max_samples", job.timing_max_samples},
          {"timing_ci_permille", job.timing_ci_permille},
          {"timing_noisy_cap_ms", job.timing_noisy_cap_ms},
          {"timing_block", job.timing_block},
          {"sustained_calls", job.sustained_calls},
          {"sustained_rounds", job.sustained_rounds},
          {"sustained_min_ms", job.sustained_min_ms},
          {"sustained_ci_permille", job.sustained_ci_permille},
          {"device", job.device},
          {"baseline", job.baseline},
          {"library_choices", job.library_choices},
          {"environment", job.environment}};
}

WorkerJob worker_job_from_json(const nlohmann::json& j) {
  auto field = [&](const char* name) -> const nlohmann::json& {
    if (!j.contains(name)) throw InputError(std::string("worker job: ") + name + ": missing");
    return j.at(name);
  };
  if (field("protocol").get<int>() != kWorkerProtocolVersion)
    throw InputError("worker job: protocol: expected " + std::to_string(kWorkerProtocolVersion));
  WorkerJob job;
  job.task = field("task");
  if (!job.task.is_object()) throw InputError("worker job: task: expected an object");
  job.counters = field("counters");
  job.shared_object = field("shared_object").get<std::string>();
  job.run_correctness = field("run_correctness").get<bool>();
  job.run_timing = field("run_timing").get<bool>();
  job.run_evidence = field("run_evidence").get<bool>();
  job.evidence_in_process = field("evidence_in_process").get<bool>();
  job.evidence_metrics = field("evidence_metrics").get<std::vector<std::string>>();
  job.quick_correctness = field("quick_correctness").get<bool>();
  job.own_device_code_rule = field("own_device_code_rule").get<bool>();
  job.result_file = field("result_file").get<std::string>();
  job.message_key = field("message_key").get<std::string>();
  if (!field("sandbox").is_null()) job.sandbox = sandbox_policy_from_json(field("sandbox"));
  job.call_deadline_s = field("call_deadline_s").get<int>();
  if (job.call_deadline_s < 1) throw InputError("worker job: call_deadline_s: must be >= 1");
  if (!field("candidate_functions").is_null())
    job.candidate_functions = field("candidate_functions").get<std::vector<std::string>>();
  job.timing_warmup = field("timing_warmup").get<int>();
  job.timing_samples = field("timing_samples").get<int>();
  job.timing_min_ms = field("timing_min_ms").get<int>();
  job.timing_max_samples = field("timing_max_samples").get<int>();
  job.timing_ci_permille = field("timing_ci_permille").get<int>();
  job.timing_noisy_cap_ms = field("timing_noisy_cap_ms").get<int>();
  job.timing_block = field("timing_block").get<int>();
  if (job.timing_block < 1) throw InputError("worker job: timing_block: must be >= 1");
  job.sustained_calls = field("sustained_calls").get<int>();
  job.sustained_rounds = field("sustained_rounds").get<int>();
  job.sustained_min_ms = field("sustained_min_ms").get<int>();
  job.sustained_ci_permille = field("sustained_ci_permille").get<int>();
  job.device = field("device").get<int>();
  job.baseline = field("baseline").get<std::string>();
  job.library_choices = field("library_choices");
  if (!job.library_choices.is_array())
    throw InputError("worker job: library_choices: expected an array");
  job.environment = field("environment").get<std::vector<std::string>>();
  if (job.baseline != "library" && job.baseline != "self")
    throw InputError("worker job: baseline: expected \"library\" or \"self\"");
  if (job.timing_samples < 1) throw InputError("worker job: timing_samples: must be >= 1");
  return job;
}

std::string signed_message_line(nlohmann::json message, uint64_t seq, const std::string& key) {
  message["seq"] = seq;
  message.erase("mac");
  if (!key.empty()) message["mac"] = hmac_sha256_hex(key, message.dump());
  return message.dump() + "\n";
}

std::optional<size_t> first_forged_message(const std::vector<nlohmann::json>& messages,
                                           const std::string& key) {
  if (key.empty()) return std::nullopt;
  for (size_t i = 0; i < messages.size(); ++i) {
    nlohmann::json body = messages[i];
    const auto mac = body.find("mac");
    if (mac == body.end() || !mac->is_string() || body.value("seq", uint64_t{0}) != i) return i;
    const std::string claimed = *mac;
    body.erase("mac");
    if (hmac_sha256_hex(key, body.dump()) != claimed) return i;
  }
  return std::nullopt;
}

nlohmann::json to_json(const SandboxPolicy& p) {
  nlohmann::json writable = nlohmann::json::array();
  for (const auto& w : p.writable) writable.push_back(w.string());
  return {{"run_as_uid", p.run_as_uid ? nlohmann::json(*p.run_as_uid) : nlohmann::json(nullptr)},
          {"cpu_seconds", p.cpu_seconds},
          {"file_size_bytes", p.file_size_bytes},
          {"open_files", p.open_files},
          {"processes", p.processes},
          {"address_space_bytes", p.address_space_bytes},
          {"oom_score_adj", p.oom_score_adj ? nlohmann::json(*p.oom_score_adj) : nlohmann::json()},
          {"writable", writable},
          {"isolate_network", p.isolate_network}};
}

SandboxPolicy sandbox_policy_from_json(const nlohmann::json& j) {
  SandboxPolicy p;
  if (!j.at("run_as_uid").is_null()) p.run_as_uid = j.at("run_as_uid").get<uint32_t>();
  p.cpu_seconds = j.at("cpu_seconds").get<uint64_t>();
  p.file_size_bytes = j.at("file_size_bytes").get<uint64_t>();
  p.open_files = j.at("open_files").get<uint64_t>();
  p.processes = j.at("processes").get<uint64_t>();
  p.address_space_bytes = j.at("address_space_bytes").get<uint64_t>();
  if (j.contains("oom_score_adj") && !j["oom_score_adj"].is_null())
    p.oom_score_adj = j["oom_score_adj"].get<int>();
  for (const auto& w : j.at("writable")) p.writable.emplace_back(w.get<std::string>());
  p.isolate_network = j.at("isolate_network").get<bool>();
  return p;
}

std::vector<nlohmann::json> parse_worker_messages(const std::string& bytes, bool* truncated) {
  std::vector<nlohmann::json> out;
  *truncated = false;
  size_t begin = 0;
  while (begin < bytes.size()) {
    const size_t end = bytes.find('\n', begin);
    if (end == std::string::npos) {
      *truncated = true;
      break;
    }
    auto msg = nlohmann::json::parse(bytes.begin() + static_cast<long>(begin),
                                     bytes.begin() + static_cast<long>(end), nullptr, false);
    if (msg.is_discarded() || !msg.is_object() || !msg.contains("type")) {
      *truncated = true;  // a corrupt line ends what can be trusted
      break;
    }
    out.push_back(std::move(msg));
    begin = end + 1;
  }
  return out;
}

}  // namespace ptxb
