// The sandbox against hostile host programs: fork bombs (escaping the process group), endless
// loops, endless output, odd exits and signals, writes to harness files, network use, and a
// scrubbed environment. Real programs (sh, python3), real limits; mechanisms this machine lacks are
// skipped with the reason.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>

#include "sys/files.hpp"
#include "sys/process.hpp"
#include "sys/sandbox.hpp"

namespace ptxb {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A uid no person or service uses, so killing all of its processes harms nothing else.
constexpr uint32_t kSandboxUid = 61999;

bool is_root() { return ::geteuid() == 0; }

struct Ran {
  ProcessResult result;
  std::string out;
};

Ran run(const std::vector<std::string>& argv, const SandboxPolicy& policy, const fs::path& dir,
        std::chrono::milliseconds deadline = 20s) {
  ProcessSpec spec;
  spec.argv = argv;
  spec.cwd = dir;
  spec.stdout_path = dir / "out.txt";
  spec.deadline = deadline;
  spec.sandbox = policy;
  Ran r;
  r.result = run_process(spec);
  r.out = read_text_file(spec.stdout_path);
  return r;
}

// A work folder that belongs to the sandbox user, who runs in it after dropping to that uid.
class WorkDir {
 public:
  WorkDir() {
    if (is_root()) EXPECT_EQ(::chown(dir_.path().c_str(), kSandboxUid, kSandboxUid), 0);
  }
  const fs::path& path() const { return dir_.path(); }

 private:
  TempDir dir_{"ptxb-sandbox-test"};
};

// Live (not zombie) processes of `uid`.
int processes_of(uint32_t uid) {
  int n = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    struct stat st {};
    if (::stat(entry.path().c_str(), &st) != 0 || st.st_uid != uid) continue;
    const std::string stat = read_text_file(entry.path() / "stat", 4096);
    const size_t paren = stat.rfind(')');
    if (paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z') continue;
    ++n;
  }
  return n;
}

TEST(Sandbox, ForkBombStopsAtTheProcessLimitAndIsCleanedUp) {
  if (!is_root()) GTEST_SKIP() << "needs root to drop to a dedicated uid (the limit counts a uid)";
  WorkDir dir;
  SandboxPolicy p;
  p.run_as_uid = kSandboxUid;
  p.processes = 24;
  const Ran r = run({"python3", "-c",
                     "import os, time\n"
                     "n = 0\n"
                     "for i in range(2000):\n"
                     "    try:\n"
                     "        pid = os.fork()\n"
                     "    except OSError:\n"
                     "        break\n"
                     "    if pid == 0:\n"
                     "        os.setsid()\n"
                     "        time.sleep(60)\n"
                     "        os._exit(0)\n"
                     "    n += 1\n"
                     "print(n, flush=True)\n"},
                    p, dir.path());
  ASSERT_TRUE(r.result.exit_code == 0) << r.result.describe() << r.out;
  EXPECT_LT(std::stoi(r.out), 24) << "forks beyond the limit succeeded";
  EXPECT_GT(processes_of(kSandboxUid), 0) << "children that left the process group live on";
  kill_all_processes_of(kSandboxUid);
  for (int i = 0; i < 250 && processes_of(kSandboxUid) > 0; ++i) ::usleep(20000);
  EXPECT_EQ(processes_of(kSandboxUid), 0);
}

TEST(Sandbox, EndlessLoopEndsAtTheCpuLimit) {
  WorkDir dir;
  SandboxPolicy p;
  p.cpu_seconds = 1;
  const Ran r = run({"sh", "-c", "while :; do :; done"}, p, dir.path(), 30s);
  EXPECT_FALSE(r.result.timed_out);
  ASSERT_TRUE(r.result.term_signal.has_value()) << r.result.describe();
  EXPECT_TRUE(*r.result.term_signal == SIGXCPU || *r.result.term_signal == SIGKILL);
  EXPECT_LT(r.result.wall_seconds, 15);
}

TEST(Sandbox, EndlessLoopIgnoringTermIsKilledAtTheDeadline) {
  WorkDir dir;
  const Ran r = run({"sh", "-c", "trap '' TERM INT HUP; while :; do :; done"}, SandboxPolicy{},
                    dir.path(), 500ms);
  EXPECT_TRUE(r.result.timed_out);
  EXPECT_LT(r.result.wall_seconds, 5);
}

TEST(Sandbox, EndlessOutputStopsAtTheFileSizeCap) {
  WorkDir dir;
  SandboxPolicy p;
  p.file_size_bytes = 1 << 20;
  const Ran r = run({"sh", "-c", "yes 0123456789abcdef"}, p, dir.path());
  ASSERT_TRUE(r.result.term_signal.has_value()) << r.result.describe();
  EXPECT_EQ(*r.result.term_signal, SIGXFSZ);
  EXPECT_LE(fs::file_size(dir.path() / "out.txt"), 1u << 20);
}

TEST(Sandbox, EndlessResultPipeOutputIsCutAndKilled) {
  WorkDir dir;
  ProcessSpec spec;
  spec.argv = {"sh", "-c", "yes forged-message >&3"};
  spec.pass_result_pipe = true;
  spec.max_result_bytes = 1 << 20;
  spec.deadline = 20s;
  const ProcessResult r = run_process(spec);
  EXPECT_TRUE(r.result_overflow);
  EXPECT_EQ(r.result_bytes.size(), 1u << 20);
  EXPECT_FALSE(r.timed_out);
}

TEST(Sandbox, OddExitsAndSignalsAreReportedAsSuch) {
  WorkDir dir;
  EXPECT_EQ(run({"sh", "-c", "exit 77"}, SandboxPolicy{}, dir.path()).result.exit_code, 77);
  const Ran segv = run({"sh", "-c", "kill -SEGV $$"}, SandboxPolicy{}, dir.path());
  EXPECT_EQ(segv.result.term_signal, SIGSEGV);
  const Ran abrt = run({"sh", "-c", "kill -ABRT $$"}, SandboxPolicy{}, dir.path());
  EXPECT_EQ(abrt.result.term_signal, SIGABRT);
  EXPECT_NE(abrt.result.describe().find("signal 6"), std::string::npos);
}

TEST(Sandbox, HarnessFilesCannotBeWrittenWorkFolderCan) {
  if (!is_root() && landlock_abi_version() == 0)
    GTEST_SKIP() << "neither root (uid drop) nor Landlock on this machine";
  TempDir harness("ptxb-harness");
  const fs::path task = harness.path() / "task.toml";
  write_file_atomic(task, "atol = 0.01\n");
  ::chmod(harness.path().c_str(), 0755);
  ::chmod(task.c_str(), 0644);
  WorkDir dir;
  SandboxPolicy p;
  p.writable = {dir.path()};
  if (is_root()) p.run_as_uid = kSandboxUid;
  const std::string t = task.string(), h = harness.path().string();
  const Ran r =
      run({"sh", "-c",
           "exec 2>/dev/null; echo 'atol = 1e9' >> " + t + " 2>/dev/null && echo appended; rm -f " +
               t + " 2>/dev/null && echo removed; touch " + h +
               "/new 2>/dev/null && echo created; echo ok > mine.txt && echo own"},
          p, dir.path());
  EXPECT_EQ(r.out, "own\n") << "the sandbox let a harness write through";
  EXPECT_EQ(read_file(task), "atol = 0.01\n");
  EXPECT_FALSE(fs::exists(harness.path() / "new"));
}

TEST(Sandbox, NoNetworkToALocalServer) {
  const int server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(server, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(server, 4), 0);
  socklen_t len = sizeof addr;
  ::getsockname(server, reinterpret_cast<sockaddr*>(&addr), &len);
  const std::string port = std::to_string(ntohs(addr.sin_port));
  WorkDir dir;
  const std::vector<std::string> connect = {
      "python3", "-c",
      "import socket\ntry:\n    socket.create_connection(('127.0.0.1', " + port +
          "), timeout=3)\n    print('connected')\nexcept OSError as e:\n    print('refused', e)\n"};
  EXPECT_EQ(run(connect, SandboxPolicy{}, dir.path()).out.rfind("connected", 0), 0u)
      << "the server must be reachable without a sandbox";
  SandboxPolicy p;
  p.isolate_network = true;
  p.writable = {dir.path()};
  if (!is_root() && landlock_abi_version() < 4)
    GTEST_SKIP() << "neither a network namespace (root) nor Landlock TCP rules (ABI >= 4)";
  const Ran r = run(connect, p, dir.path());
  EXPECT_EQ(r.out.rfind("refused", 0), 0u) << r.out << r.result.describe();
  ::close(server);
}

TEST(Sandbox, EnvironmentIsScrubbed) {
  ::setenv("PTXB_TEST_SECRET", "do-not-leak", 1);
  WorkDir dir;
  ProcessSpec spec;
  spec.argv = {"/usr/bin/env"};
  spec.env = std::vector<std::string>{"PATH=/usr/bin:/bin", "HOME=" + dir.path().string()};
  spec.stdout_path = dir.path() / "env.txt";
  ASSERT_TRUE(run_process(spec).ok());
  const std::string env = read_file(dir.path() / "env.txt");
  EXPECT_EQ(env.find("PTXB_TEST_SECRET"), std::string::npos) << env;
  EXPECT_NE(env.find("HOME=" + dir.path().string()), std::string::npos) << env;
  ::unsetenv("PTXB_TEST_SECRET");
}

TEST(Sandbox, ParentCannotBeSignalledFromInside) {
  if (!is_root() && landlock_abi_version() < 6)
    GTEST_SKIP() << "neither root (uid drop) nor Landlock signal scoping (ABI >= 6)";
  WorkDir dir;
  SandboxPolicy p;
  p.writable = {dir.path()};
  if (is_root()) p.run_as_uid = kSandboxUid;
  const Ran r = run({"sh", "-c",
                     "kill -0 " + std::to_string(::getpid()) +
                         " 2>/dev/null && echo reachable"
                         " || echo denied"},
                    p, dir.path());
  EXPECT_EQ(r.out, "denied\n");
}

TEST(Sandbox, ReportSaysWhatWasAppliedOrWhyNot) {
  // In a forked child, since the sandbox is irreversible.
  WorkDir dir;
  SandboxPolicy p;
  p.open_files = 64;
  p.writable = {dir.path()};
  const fs::path report = dir.path() / "report.json";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const nlohmann::json j = apply_sandbox(p);
    write_file_atomic(report, j.dump());
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const auto j = nlohmann::json::parse(read_file(report));
  EXPECT_EQ(j["limits"]["open_files"], 64);
  EXPECT_EQ(j["limits"]["cpu_seconds"], "unchanged");
  EXPECT_EQ(j["user"], "not requested");
  const std::string landlock = j["landlock"]["status"];
  if (landlock_abi_version() > 0)
    EXPECT_EQ(landlock, "applied");
  else
    EXPECT_EQ(landlock.rfind("unavailable", 0), 0u);
}

}  // namespace
}  // namespace ptxb
