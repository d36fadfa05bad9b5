#include "worker/protocol.hpp"

#include "core/error.hpp"

namespace ptxb {

nlohmann::json to_json(const WorkerJob& job) {
  return {{"protocol", kWorkerProtocolVersion},
          {"task_toml", job.task_toml.string()},
          {"catalog_dir", job.catalog_dir.string()},
          {"shared_object", job.shared_object.string()},
          {"run_correctness", job.run_correctness},
          {"run_timing", job.run_timing},
          {"run_evidence", job.run_evidence},
          {"result_file", job.result_file.string()},
          {"timing_warmup", job.timing_warmup},
          {"timing_samples", job.timing_samples},
          {"device", job.device},
          {"baseline", job.baseline}};
}

WorkerJob worker_job_from_json(const nlohmann::json& j) {
  auto field = [&](const char* name) -> const nlohmann::json& {
    if (!j.contains(name)) throw InputError(std::string("worker job: ") + name + ": missing");
    return j.at(name);
  };
  if (field("protocol").get<int>() != kWorkerProtocolVersion)
    throw InputError("worker job: protocol: expected " + std::to_string(kWorkerProtocolVersion));
  WorkerJob job;
  job.task_toml = field("task_toml").get<std::string>();
  job.catalog_dir = field("catalog_dir").get<std::string>();
  job.shared_object = field("shared_object").get<std::string>();
  job.run_correctness = field("run_correctness").get<bool>();
  job.run_timing = field("run_timing").get<bool>();
  job.run_evidence = field("run_evidence").get<bool>();
  job.result_file = field("result_file").get<std::string>();
  job.timing_warmup = field("timing_warmup").get<int>();
  job.timing_samples = field("timing_samples").get<int>();
  job.device = field("device").get<int>();
  job.baseline = field("baseline").get<std::string>();
  if (job.baseline != "library" && job.baseline != "self")
    throw InputError("worker job: baseline: expected \"library\" or \"self\"");
  if (job.timing_samples < 1) throw InputError("worker job: timing_samples: must be >= 1");
  return job;
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
