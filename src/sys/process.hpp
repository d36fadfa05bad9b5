// Child processes with a deadline: the only way PTXBench runs nvcc, cuobjdump and the worker.
// Each child gets its own process group, so a timeout kills everything it started.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sys/sandbox.hpp"

namespace ptxb {

struct ProcessSpec {
  std::vector<std::string> argv;             ///< argv[0] is the program (PATH is searched)
  std::optional<std::filesystem::path> cwd;  ///< working directory of the child
  std::vector<std::string> extra_env;        ///< "NAME=value" added to the inherited environment
  /// When set, the child's whole environment (extra_env still added): a scrubbed environment.
  std::optional<std::vector<std::string>> env;
  /// Applied in the child before exec. NOTE: allocates between fork and exec, so only for
  /// single-threaded callers (tests, tools); the worker sandboxes itself instead.
  std::optional<SandboxPolicy> sandbox;
  /// When set, the child runs as this user and group (no supplementary groups), dropped before
  /// exec by async-signal-safe calls only, so any caller may use it: an unprivileged user for a
  /// tool that reads untrusted input (nvcc on a candidate's source). A drop that fails ends the
  /// child (exit 126, a line on stderr) instead of running it as the parent's user.
  std::optional<uint32_t> run_as_uid;
  /// The result pipe is read up to this many bytes; beyond it the child is killed and
  /// ProcessResult::result_overflow is set.
  size_t max_result_bytes = 64u << 20;
  std::filesystem::path stdout_path;           ///< where the child's stdout goes (empty: /dev/null)
  std::filesystem::path stderr_path;           ///< where stderr goes (empty: same file as stdout)
  std::chrono::milliseconds deadline{60'000};  ///< wall-clock limit; the group is killed after it
  bool pass_result_pipe = false;               ///< give the child a pipe on fd 3 (see ChildProcess)
};

/// How a child ended. Exactly one of exit_code / term_signal is set unless timed_out.
struct ProcessResult {
  std::optional<int> exit_code;
  std::optional<int> term_signal;
  bool timed_out = false;
  double wall_seconds = 0;
  std::string result_bytes;      ///< everything the child wrote to fd 3 (pass_result_pipe only)
  bool result_overflow = false;  ///< it wrote more than max_result_bytes there and was killed

  bool ok() const { return !timed_out && exit_code == 0; }
  /// "exit 1", "signal 11 (Segmentation fault)", "timeout after 10.0 s".
  std::string describe() const;
};

/// Runs the child to completion or deadline and returns how it ended. Throws ApiError only when
/// the child could not be started (fork/pipe failure); a missing program shows as exit 127.
ProcessResult run_process(const ProcessSpec& spec);

/// Replaces this process's environment with exactly `env` ("NAME=value" each; entries without
/// '=' are skipped). Not thread-safe against concurrent getenv: call before starting threads that
/// read it.
void replace_environment(const std::vector<std::string>& env);

/// Reads a whole file (for logs); at most max_bytes, with a note when cut. "" when it cannot be
/// opened. NOTE: never through a symbolic link, and only a regular file (else a one-line note):
/// the parent, possibly root, reads files in worker folders, where candidate code could have put
/// a link to a file only root may read, whose text would then reach the verdict.
std::string read_text_file(const std::filesystem::path& path, size_t max_bytes = 1 << 20);

}  // namespace ptxb
