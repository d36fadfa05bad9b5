#include "eval/sanitize.hpp"

#include <cstdlib>

#include "compile/tools.hpp"
#include "eval/worker_launch.hpp"
#include "sys/files.hpp"
#include "sys/hmac.hpp"
#include "sys/process.hpp"

namespace ptxb {
namespace fs = std::filesystem;

namespace {

constexpr size_t kFirstFindings = 5;

bool failing_tool(const std::string& tool) { return tool == "memcheck" || tool == "initcheck"; }

}  // namespace

SanitizerFindings parse_sanitizer_log(const std::string& log) {
  SanitizerFindings out;
  const std::string prefix = "========= ";
  size_t begin = 0;
  while (begin < log.size()) {
    size_t end = log.find('\n', begin);
    if (end == std::string::npos) end = log.size();
    const std::string line = log.substr(begin, end - begin);
    begin = end + 1;
    if (line.rfind(prefix, 0) != 0) continue;
    const std::string text = line.substr(prefix.size());
    if (text.rfind("ERROR SUMMARY: ", 0) == 0) {
      out.errors = std::atoi(text.c_str() + 15);
      continue;
    }
    // racecheck: "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
    if (text.rfind("RACECHECK SUMMARY: ", 0) == 0) {
      const size_t open = text.find('(');
      out.errors = open == std::string::npos ? -1 : std::atoi(text.c_str() + open + 1);
      continue;
    }
    // A finding starts at column 0 after the prefix; details are indented.
    if (!text.empty() && text[0] != ' ' && out.first.size() < kFirstFindings &&
        text.rfind("COMPUTE-SANITIZER", 0) != 0 && text.rfind("Target application", 0) != 0)
      out.first.push_back(text);
  }
  return out;
}

fs::path default_compute_sanitizer() {
  return find_cuda_tool("PTXBENCH_COMPUTE_SANITIZER", "compute-sanitizer");
}

SanitizeResult run_sanitizers(WorkerJob job, const EvalConfig& config) {
  SanitizeResult out;
  const fs::path tool_path = default_compute_sanitizer();
  if (tool_path.empty()) {
    out.record.push_back({{"unavailable", "compute-sanitizer not found"}});
    return out;
  }
  job.run_correctness = true;
  job.quick_correctness = true;
  job.run_timing = false;
  job.run_evidence = false;
  job.own_device_code_rule = false;
  job.call_deadline_s = 600;  // instrumented kernels run tens of times slower
  for (const std::string tool : {"memcheck", "initcheck", "racecheck", "synccheck"}) {
    TempDir folder("ptxbench-sanitize");
    TempDir private_dir("ptxbench-sanitizer-log");  // 0700, this process's: what it reads back
    if (config.keep_temp) {
      folder.keep();
      private_dir.keep();
    }
    const fs::path& work_dir = folder.path();
    job = job_in_folder(job, config, work_dir, /*under_profiler=*/true);
    // NOTE: compute-sanitizer's instrumentation needs more address space than the worker's limit
    // (every tool failed to start under 64 GiB on the H200); its runs go without that one limit.
    if (job.sandbox) job.sandbox->address_space_bytes = 0;
    // NOTE: the messages too (opened by the worker before it drops its privileges): candidate
    // code could otherwise unlink them and leave its own, or a link, in their place.
    job.result_file = private_dir.path() / ("sanitizer-" + tool + "-messages.jsonl");
    const fs::path job_file = work_dir / ("sanitizer-" + tool + "-job.json");
    write_file_atomic(job_file, to_json(job).dump(2));
    const fs::path log = private_dir.path() / ("sanitizer-" + tool + ".txt");
    ProcessSpec spec;
    spec.argv = {tool_path.string(),
                 "--tool",
                 tool,
                 "--print-limit",
                 "20",
                 "--log-file",
                 log.string(),
                 "--target-processes",
                 "application-only",
                 config.worker.string(),
                 job_file.string()};
    spec.cwd = work_dir;
    spec.env = scrubbed_environment(work_dir);
    spec.stdout_path = private_dir.path() / ("sanitizer-" + tool + "-stdout.txt");
    spec.deadline = std::chrono::seconds(config.sanitize_deadline_s);
    const ProcessResult proc = run_process(spec);
    clean_up_after_worker(config);
    SanitizerFindings f = parse_sanitizer_log(read_text_file(log, 4 << 20));
    // The worker's own account: a run that judged no case proves nothing.
    bool truncated = false;
    const auto messages =
        parse_worker_messages(read_text_file(job.result_file, 16 << 20), &truncated);
    int cases = 0;
    bool done = false;
    if (!first_forged_message(messages, job.message_key))
      for (const auto& m : messages) {
        cases += m.value("type", "") == "case" ? 1 : 0;
        done = done || m.value("type", "") == "done";
      }
    if (!done || cases == 0) f.errors = -1;
    out.record.push_back({{"tool", tool},
                          {"errors", f.errors},
                          {"first", f.first},
                          {"cases", cases},
                          {"worker_finished", done},
                          {"seconds", proc.wall_seconds},
                          {"end", proc.describe()}});
    if (f.errors > 0) {
      const std::string what = "compute-sanitizer " + tool + ": " + std::to_string(f.errors) +
                               " errors" + (f.first.empty() ? "" : " (" + f.first[0] + ")");
      if (failing_tool(tool) && out.failure.empty()) out.failure = what;
      if (!failing_tool(tool)) out.audit.push_back(what);
    }
  }
  return out;
}

}  // namespace ptxb
