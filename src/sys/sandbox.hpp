// The sandbox a process puts itself in before running untrusted code (docs/threat-model.md):
// resource limits, Landlock write restrictions and signal scoping, a private network namespace,
// and, when started as root, a switch to an unprivileged user id. The worker applies it to
// itself after the CUDA context exists and before it loads a candidate; run_process can apply it
// in a child before exec (tests use that with hostile host programs).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace ptxb {

struct SandboxPolicy {
  /// When the process is root: drop to this user and group id (supplementary groups cleared,
  /// capabilities gone). Files of other users, the parent's processes and the results store are
  /// then out of reach, and the process limit counts only this user's processes.
  std::optional<uint32_t> run_as_uid;
  uint64_t cpu_seconds = 0;          ///< RLIMIT_CPU; 0 leaves the limit as it is
  uint64_t file_size_bytes = 0;      ///< RLIMIT_FSIZE: caps every file written, stdout included
  uint64_t open_files = 0;           ///< RLIMIT_NOFILE
  uint64_t processes = 0;            ///< RLIMIT_NPROC: processes and threads of the (new) user
  uint64_t address_space_bytes = 0;  ///< RLIMIT_AS (CUDA reserves large ranges: keep it generous)
  /// /proc/self/oom_score_adj (-1000..1000; raising it needs no privilege); nullopt: unchanged.
  std::optional<int> oom_score_adj;
  /// Landlock: writing, creating and removing files is allowed only beneath these folders (and
  /// on device files under /dev, which CUDA opens read-write). Reading stays allowed.
  std::vector<std::filesystem::path> writable;
  /// A new, empty network namespace (needs root); otherwise Landlock's TCP bind/connect denial.
  bool isolate_network = false;
};

/// Applies `policy` to the calling process, irreversibly; later children inherit it. Never throws
/// for a mechanism the system lacks: the result says, per mechanism, "applied" or
/// "unavailable: <why>", and is recorded in the verdict. Throws InternalError only when a
/// mechanism reported as available fails half-way.
nlohmann::json apply_sandbox(const SandboxPolicy& policy);

/// The highest Landlock ABI version the kernel offers, 0 when none.
int landlock_abi_version();

/// Kills every process running as `uid` (SIGKILL from a short-lived child that takes that uid):
/// what a sandboxed worker left behind, daemons and fork bombs included. Needs root; a no-op
/// otherwise. Never pass a uid that real users or system services run as.
void kill_all_processes_of(uint32_t uid);

}  // namespace ptxb
