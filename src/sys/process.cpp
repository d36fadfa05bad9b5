#include "sys/process.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "core/error.hpp"

extern char** environ;

namespace ptxb {
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void throw_errno(const char* call) {
  throw_api("POSIX", call, errno, "", std::strerror(errno), __FILE__, __LINE__);
}

// NOTE: O_NOFOLLOW: the parent may run as root and write into a folder that candidate code could
// write to; it never writes through a link planted there.
int open_output(const std::filesystem::path& path) {
  if (path.empty()) return ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
}

// Runs in the forked child: only async-signal-safe calls until execvp.
[[noreturn]] void exec_child(const ProcessSpec& spec, char* const* argv, int out_fd, int err_fd,
                             int result_fd, pid_t parent) {
  ::setpgid(0, 0);
  ::signal(SIGPIPE, SIG_DFL);
  int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull >= 0) ::dup2(devnull, 0);
  ::dup2(out_fd, 1);
  ::dup2(err_fd >= 0 ? err_fd : out_fd, 2);
  if (result_fd >= 0) {
    ::dup2(result_fd, 3);  // dup2 clears FD_CLOEXEC on the new descriptor
  }
  if (spec.cwd && ::chdir(spec.cwd->c_str()) != 0) ::_exit(126);
  if (spec.run_as_uid) {
    const uid_t id = *spec.run_as_uid;
    if (::setgroups(0, nullptr) != 0 || ::setresgid(id, id, id) != 0 ||
        ::setresuid(id, id, id) != 0) {
      static const char kMessage[] = "ptxbench: could not drop to the unprivileged user\n";
      if (::write(2, kMessage, sizeof kMessage - 1) < 0) ::_exit(126);
      ::_exit(126);
    }
  }
  if (spec.env) {
    ::clearenv();
    for (const auto& kv : *spec.env) ::putenv(const_cast<char*>(kv.c_str()));
  }
  for (const auto& kv : spec.extra_env) ::putenv(const_cast<char*>(kv.c_str()));
  if (spec.sandbox) {
    try {
      apply_sandbox(*spec.sandbox);
    } catch (...) {
      ::_exit(125);
    }
  }
  // The child dies with the thread that started it (run_process waits for it, so that thread
  // outlives it unless the parent is killed: a killed `ptxbench serve` or `eval` leaves no worker
  // running); if the parent is already gone, at once. Set last: a change of user clears it.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(128 + SIGKILL);
  ::execvp(argv[0], argv);
  ::_exit(127);
}

}  // namespace

std::string ProcessResult::describe() const {
  std::ostringstream os;
  if (timed_out) {
    os << "timeout after " << wall_seconds << " s";
  } else if (term_signal) {
    os << "signal " << *term_signal << " (" << ::strsignal(*term_signal) << ")";
  } else if (exit_code) {
    os << "exit " << *exit_code;
  } else {
    os << "unknown end";
  }
  return os.str();
}

ProcessResult run_process(const ProcessSpec& spec) {
  PTXB_ASSERT(!spec.argv.empty(), "run_process needs a program");
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  int out_fd = open_output(spec.stdout_path);
  if (out_fd < 0) throw_errno("open(stdout file)");
  int err_fd = spec.stderr_path.empty() ? -1 : open_output(spec.stderr_path);
  int pipe_fds[2] = {-1, -1};
  if (spec.pass_result_pipe && ::pipe2(pipe_fds, O_CLOEXEC) != 0) throw_errno("pipe2");

  const auto start = Clock::now();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw_errno("fork");
  if (pid == 0) exec_child(spec, argv.data(), out_fd, err_fd, pipe_fds[1], parent);

  ::setpgid(pid, pid);  // also done in the child; whichever runs first wins the race
  ::close(out_fd);
  if (err_fd >= 0) ::close(err_fd);
  if (pipe_fds[1] >= 0) ::close(pipe_fds[1]);

  ProcessResult result;
  const auto deadline = start + spec.deadline;
  int status = 0;
  bool reaped = false;
  int read_fd = pipe_fds[0];
  while (!reaped) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      reaped = true;
      break;
    }
    if (read_fd >= 0) {
      pollfd pfd{read_fd, POLLIN, 0};
      int n = ::poll(&pfd, 1, static_cast<int>(std::min<long long>(left.count(), 50)));
      if (n > 0) {
        char buf[65536];
        ssize_t got = ::read(read_fd, buf, sizeof buf);
        if (got > 0) {
          result.result_bytes.append(buf, static_cast<size_t>(got));
          if (result.result_bytes.size() > spec.max_result_bytes) {
            result.result_overflow = true;
            result.result_bytes.resize(spec.max_result_bytes);
            ::kill(-pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            reaped = true;
          }
        } else if (got == 0 || (got < 0 && errno != EINTR)) {
          ::close(read_fd);
          read_fd = -1;
        }
        continue;
      }
    } else {
      ::usleep(2000);
    }
    pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) reaped = true;
  }
  // Drain what the child wrote before it exited.
  if (read_fd >= 0) {
    char buf[65536];
    ssize_t got;
    ::fcntl(read_fd, F_SETFL, O_NONBLOCK);
    while (!result.result_overflow && (got = ::read(read_fd, buf, sizeof buf)) > 0) {
      result.result_bytes.append(buf, static_cast<size_t>(got));
      result.result_overflow = result.result_bytes.size() > spec.max_result_bytes;
    }
    if (result.result_overflow) result.result_bytes.resize(spec.max_result_bytes);
    ::close(read_fd);
  }
  ::kill(-pid, SIGKILL);  // anything the child left behind in its group
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!result.timed_out) {
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
  }
  return result;
}

std::string read_text_file(const std::filesystem::path& path, size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return {};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return "[not a regular file: " + path.filename().string() + "]\n";
  }
  std::string text(max_bytes + 1, '\0');
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  const bool cut = done > max_bytes;
  text.resize(cut ? max_bytes : done);
  if (cut) text += "\n[... cut at " + std::to_string(max_bytes) + " bytes]\n";
  return text;
}

void replace_environment(const std::vector<std::string>& env) {
  ::clearenv();
  for (const std::string& entry : env) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    ::setenv(entry.substr(0, eq).c_str(), entry.substr(eq + 1).c_str(), 1);
  }
}

}  // namespace ptxb
