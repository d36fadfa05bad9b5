#include "eval/config.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "compile/tools.hpp"
#include "core/error.hpp"
#include "eval/tier.hpp"
#include "sys/home.hpp"
#include "tasks/spec.hpp"

namespace ptxb {
namespace {

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

int env_int(const char* name, int fallback, int min_value) {
  auto v = env(name);
  if (!v) return fallback;
  try {
    size_t used = 0;
    const int value = std::stoi(*v, &used);
    if (used != v->size() || value < min_value) throw std::invalid_argument("range");
    return value;
  } catch (const std::exception&) {
    throw InputError(std::string("environment variable ") + name + "=" + *v +
                     ": expected an integer >= " + std::to_string(min_value));
  }
}

std::filesystem::path self_dir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::current_path() : exe.parent_path();
}

}  // namespace

EvalConfig EvalConfig::from_environment() {
  EvalConfig c;
  c.tasks_root = default_tasks_root();
  c.worker = env("PTXBENCH_WORKER").value_or((self_dir() / "ptxbench-worker").string());
  c.compile.nvcc = default_nvcc();
  c.compile.cuobjdump = default_cuobjdump();
  c.compile.cache_dir = default_cache_dir();
  c.compile.abi_include_dir = default_abi_include_dir();
  c.compile.deadline = std::chrono::seconds(env_int("PTXBENCH_COMPILE_DEADLINE_S", 180, 1));
  c.worker_deadline = std::chrono::seconds(env_int("PTXBENCH_WORKER_DEADLINE_S", 300, 1));
  c.timing_warmup = env_int("PTXBENCH_TIMING_WARMUP", 10, 0);
  c.timing_samples = env_int("PTXBENCH_TIMING_SAMPLES", 50, 1);
  c.timing_min_ms = env_int("PTXBENCH_TIMING_MIN_MS", 100, 0);
  c.timing_max_samples = env_int("PTXBENCH_TIMING_MAX_SAMPLES", 1000, 1);
  c.timing_ci_permille = env_int("PTXBENCH_TIMING_CI_PERMILLE", 10, 0);
  c.timing_noisy_cap_ms = env_int("PTXBENCH_TIMING_NOISY_CAP_MS", 1500, 0);
  c.timing_block = env_int("PTXBENCH_TIMING_BLOCK", 8, 1);
  c.sustained_calls = env_int("PTXBENCH_SUSTAINED_CALLS", 20, 0);
  c.sustained_rounds = env_int("PTXBENCH_SUSTAINED_ROUNDS", 10, 1);
  c.sustained_min_ms = env_int("PTXBENCH_SUSTAINED_MIN_MS", 500, 0);
  c.sustained_ci_permille = env_int("PTXBENCH_SUSTAINED_CI_PERMILLE", 20, 0);
  c.keep_temp = env_int("PTXBENCH_KEEP_TEMP", 0, 0) != 0;
  c.library_choices = env_int("PTXBENCH_LIBRARY_CHOICES", 1, 0) != 0;
  c.device = env_int("PTXBENCH_DEVICE", 0, 0);
  c.sandbox = env_int("PTXBENCH_SANDBOX", 1, 0) != 0;
  c.sandbox_uid = static_cast<uint32_t>(env_int("PTXBENCH_SANDBOX_UID", 61000 + c.device, 1));
  // nvcc reads what a candidate's source names (#include, .incbin): as root, it runs as a user of
  // its own, not a worker's (the clean-up after a worker kills every process of the worker's).
  if (c.drops_user())
    c.compile.run_as_uid = static_cast<uint32_t>(env_int("PTXBENCH_COMPILE_UID", 60999, 1));
  c.call_deadline_s = env_int("PTXBENCH_CALL_DEADLINE_S", 20, 1);
  c.sanitize_deadline_s = env_int("PTXBENCH_SANITIZE_DEADLINE_S", 900, 1);
  c.evidence.ncu = default_ncu();
  c.evidence.deadline = std::chrono::seconds(env_int("PTXBENCH_EVIDENCE_DEADLINE_S", 300, 1));
  const std::string mechanism = env("PTXBENCH_EVIDENCE").value_or("ncu");
  if (mechanism == "ncu")
    c.evidence_mechanism = EvidenceMechanism::kNcu;
  else if (mechanism == "in_process")
    c.evidence_mechanism = EvidenceMechanism::kInProcess;
  else if (mechanism == "compare")
    c.evidence_mechanism = EvidenceMechanism::kCompare;
  else
    throw InputError("environment variable PTXBENCH_EVIDENCE=" + mechanism +
                     ": expected ncu, in_process or compare");
  const std::filesystem::path bundled = ptxbench_home() / ".tools" / "cupti";
  std::error_code ec;
  c.in_process_evidence.cupti_dir =
      env("PTXBENCH_CUPTI_DIR")
          .value_or(std::filesystem::is_directory(bundled, ec) ? bundled.string() : "");
  c.in_process_evidence.cuobjdump = c.compile.cuobjdump;
  c.in_process_evidence.deadline = c.evidence.deadline;
  return c;
}

bool EvalConfig::drops_user() const { return sandbox && ::geteuid() == 0; }

nlohmann::json EvalConfig::to_json() const {
  const nlohmann::json compile_uid =
      compile.run_as_uid ? nlohmann::json(*compile.run_as_uid) : nlohmann::json();
  return {
      {"tasks_root", tasks_root.string()},
      {"worker", worker.string()},
      {"nvcc", compile.nvcc.string()},
      {"cuobjdump", compile.cuobjdump.string()},
      {"cache_dir", compile.cache_dir.string()},
      {"library_choices", library_choices},
      {"compile_deadline_s", std::chrono::duration<double>(compile.deadline).count()},
      {"compile_uid", compile_uid},
      {"worker_deadline_s", worker_deadline.count()},
      {"timing_warmup", timing_warmup},
      {"timing_samples", timing_samples},
      {"timing_min_ms", timing_min_ms},
      {"timing_max_samples", timing_max_samples},
      {"timing_ci_permille", timing_ci_permille},
      {"timing_noisy_cap_ms", timing_noisy_cap_ms},
      {"timing_block", timing_block},
      {"sustained_calls", sustained_calls},
      {"sustained_rounds", sustained_rounds},
      {"sustained_min_ms", sustained_min_ms},
      {"sustained_ci_permille", sustained_ci_permille},
      {"tier", tier_name(tier)},
      {"run_timing", run_timing},
      {"self_baseline", self_baseline},
      {"device", device},
      {"run_evidence", run_evidence},
      {"sanitize", sanitize},
      {"sandbox", sandbox},
      {"sandbox_uid", sandbox_uid},
      {"call_deadline_s", call_deadline_s},
      {"ncu", evidence.ncu.string()},
      {"evidence_deadline_s", evidence.deadline.count()},
      {"evidence_mechanism", evidence_mechanism == EvidenceMechanism::kNcu         ? "ncu"
                             : evidence_mechanism == EvidenceMechanism::kInProcess ? "in_process"
                                                                                   : "compare"},
      {"cupti_dir", in_process_evidence.cupti_dir.string()}};
}

}  // namespace ptxb
