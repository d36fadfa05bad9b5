// The parent <-> worker protocol, versioned. The parent writes a job file; the worker answers
// with JSON lines on file descriptor 3 (never stdout, which belongs to the candidate's prints).
// Every line is an object with "type"; the first is "hello" carrying "protocol".
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sys/sandbox.hpp"

namespace ptxb {

constexpr int kWorkerProtocolVersion = 10;
constexpr int kWorkerResultFd = 3;

/// Worker exit statuses; anything else (or a signal) means the worker died.
enum class WorkerExit : int {
  kOk = 0,              ///< finished; the messages say what happened
  kHarnessError = 2,    ///< PTXBench failed (bad job, API error outside candidate code)
  kCandidateFault = 3,  ///< a CUDA error after candidate code ran (illegal address, trap, ...)
  kNoGpu = 4,           ///< no usable CUDA device
};

struct WorkerJob {
  /// The resolved task (task_detail_json with hidden shapes; tasks/task_wire.hpp) and the hardware
  /// counters of its architecture: the worker parses no task file and no catalog.
  nlohmann::json task = nlohmann::json::object();
  nlohmann::json counters = nlohmann::json::array();
  std::filesystem::path shared_object;
  bool run_correctness = true;
  bool run_timing = true;
  /// Correctness on the smallest visible and the smallest hidden shape, first seed and first
  /// distribution only (runs under compute-sanitizer, which is slow).
  bool quick_correctness = false;
  /// The evidence stage (worker/stages.hpp run_evidence): under Nsight Compute, or with
  /// evidence_in_process its own CUPTI SASS-metrics collection.
  bool run_evidence = false;
  /// The evidence stage collects per-instruction counts itself (worker/sass_metrics.hpp) and sends
  /// them with each control and call, instead of running under Nsight Compute (docs/evidence.md,
  /// "In-process evidence"). Needs a CUPTI of API 13.2 or later on the library path.
  bool evidence_in_process = false;
  /// The hardware metrics the in-process evidence reads per kernel launch (the catalog's counters
  /// and the other-read metrics the task caps; eval/ncu_evidence.hpp evidence_hardware_metrics).
  std::vector<std::string> evidence_metrics;
  /// Whether the monitor requires every module loaded while candidate code runs to be one of the
  /// ELF images of the candidate's .nv_fatbin (worker/monitor.hpp set_own_device_code). Off under
  /// compute-sanitizer, whose instrumentation stands between the program and the driver's loads
  /// (those runs judge memory errors; the timing and correctness workers keep the rule).
  bool own_device_code_rule = true;
  /// Where to write the messages instead of fd 3 (a profiler between parent and worker need not
  /// pass fd 3 on). Empty: fd 3.
  std::filesystem::path result_file;
  /// Per-job key (hex) that signs every message; the worker deletes the job file after reading
  /// it. Empty: messages are not signed.
  std::string message_key;
  /// Applied by the worker to itself before it loads the candidate; null: no sandbox.
  std::optional<SandboxPolicy> sandbox;
  /// A candidate call (plan or run, and the wait for its work) that takes longer ends the worker
  /// with a "candidate_timeout" message.
  int call_deadline_s = 20;
  /// Mangled names of the functions in the candidate's cubin (static stage): a kernel launched
  /// during candidate code that is not among them is someone else's (a library's). nullopt when
  /// the static stage had no SASS listing; an empty list means the candidate defines no kernel.
  std::optional<std::vector<std::string>> candidate_functions;
  int timing_warmup = 10;       ///< calls
  int timing_samples = 50;      ///< timed calls at least
  int timing_min_ms = 0;        ///< more rounds until the timed calls add up to this
  int timing_max_samples = 50;  ///< timed calls at most
  /// More rounds while the paired speedup's 95% interval reaches further than this many tenths of
  /// a percent from its median (0: off), until the timed calls add up to timing_noisy_cap_ms.
  int timing_ci_permille = 0;
  int timing_noisy_cap_ms = 0;
  /// Candidate calls per cold round and counter range, each on its own input set (docs/timing.md).
  int timing_block = 1;
  /// The sustained regime (docs/timing.md): calls per back-to-back batch (0: not measured), timed
  /// batch rounds at most, and the timed time (both sides) after which fewer rounds will do
  /// (0: always sustained_rounds).
  int sustained_calls = 0;
  int sustained_rounds = 10;
  int sustained_min_ms = 0;
  /// timing_ci_permille for the sustained regime's order-balanced pairs (0: off).
  int sustained_ci_permille = 0;
  int device = 0;
  /// "library": the task's baseline (cuBLASLt); "self": the candidate timed against itself, the
  /// timing self-check (speedup must come out 1.00).
  std::string baseline = "library";
  /// The library's plan choices of earlier evaluations of the task on this device (the parent's
  /// cache, eval/library_choices.hpp): the baseline takes them instead of timing every plan its
  /// library offers (Implementation::prefer). Choices of another device are left out by the worker.
  nlohmann::json library_choices = nlohmann::json::array();
  /// The environment candidate code sees, "NAME=value" each. The worker replaces its own with
  /// exactly this once CUDA (and a profiler's injection) has initialised, so the timing and the
  /// evidence process look the same to getenv. Empty: left as inherited.
  std::vector<std::string> environment;
};

nlohmann::json to_json(const WorkerJob& job);
/// Throws InputError naming the field when the job is malformed or its version differs.
WorkerJob worker_job_from_json(const nlohmann::json& j);

/// The line the worker writes for `message` as its `seq`-th message: the message plus "seq" and,
/// under a non-empty `key`, "mac" = HMAC-SHA256(key, the line without "mac"), newline-terminated.
std::string signed_message_line(nlohmann::json message, uint64_t seq, const std::string& key);

/// Index of the first message whose "seq" is out of order or whose "mac" does not verify under
/// `key`: a line the worker did not write. nullopt when all are genuine (or `key` is empty).
std::optional<size_t> first_forged_message(const std::vector<nlohmann::json>& messages,
                                           const std::string& key);

nlohmann::json to_json(const SandboxPolicy& policy);
SandboxPolicy sandbox_policy_from_json(const nlohmann::json& j);

/// Splits the bytes the worker wrote into messages. A trailing partial line (the worker died
/// mid-write) is dropped and reported through `truncated`.
std::vector<nlohmann::json> parse_worker_messages(const std::string& bytes, bool* truncated);

}  // namespace ptxb
