// Host-state snapshots: each kind of change a candidate could make behind the harness's back
// (a thread, a child process, a library, the working directory, a signal handler) is found,
// and undoing it makes the finding go away. Real threads, processes and libraries; no mocks.
#include <dlfcn.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include <vector>

#include "sys/host_state.hpp"

namespace ptxb {
namespace {

bool mentions(const std::vector<std::string>& changes, const std::string& text) {
  return std::any_of(changes.begin(), changes.end(),
                     [&](const std::string& c) { return c.find(text) != std::string::npos; });
}

std::string joined(const std::vector<std::string>& changes) {
  std::string text;
  for (const std::string& c : changes) text += c + "\n";
  return text;
}

TEST(HostState, NoChangeBetweenTwoSnapshots) {
  const HostState before = capture_host_state();
  const HostState after = capture_host_state();
  EXPECT_TRUE(host_state_changes(before, after).empty())
      << joined(host_state_changes(before, after));
  EXPECT_TRUE(before.thread_ids.contains(static_cast<int>(::gettid())));
  EXPECT_FALSE(before.cwd.empty());
  EXPECT_EQ(before.signal_dispositions.size(), static_cast<size_t>(SIGRTMAX));
  EXPECT_TRUE(
      mentions({before.mapped_libraries.begin(), before.mapped_libraries.end()}, "libc.so"));
}

TEST(HostState, ThreadStillRunningIsFoundAndGoneAfterJoin) {
  const HostState before = capture_host_state();
  std::mutex mutex;
  std::condition_variable released;
  bool release = false;
  std::thread blocked([&] {
    std::unique_lock lock(mutex);
    released.wait(lock, [&] { return release; });
  });
  const std::vector<std::string> changes = host_state_changes(before, capture_host_state());
  {
    std::lock_guard lock(mutex);
    release = true;
  }
  released.notify_one();
  blocked.join();
  ASSERT_EQ(changes.size(), 1u) << joined(changes);
  EXPECT_TRUE(changes[0].starts_with("started 1 host thread still running (tid ")) << changes[0];
  const std::vector<std::string> after_join = host_state_changes(before, capture_host_state());
  EXPECT_TRUE(after_join.empty()) << joined(after_join);
}

TEST(HostState, ChildProcessIsFoundAndGoneAfterWait) {
  const HostState before = capture_host_state();
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::pause();  // only async-signal-safe calls in the child of a threaded process
    ::_exit(0);
  }
  const std::vector<std::string> changes = host_state_changes(before, capture_host_state());
  ::kill(child, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_EQ(changes.size(), 1u) << joined(changes);
  EXPECT_EQ(changes[0], "started child process " + std::to_string(child));
  const std::vector<std::string> after_wait = host_state_changes(before, capture_host_state());
  EXPECT_TRUE(after_wait.empty()) << joined(after_wait);
}

TEST(HostState, LoadedLibraryIsFound) {
  const HostState before = capture_host_state();
  // Libraries present on Debian/Ubuntu that this test binary does not link.
  const char* soname = nullptr;
  for (const char* candidate : {"libz.so.1", "libbz2.so.1.0", "liblzma.so.5", "libexpat.so.1"}) {
    const std::string stem = std::string(candidate).substr(0, std::string(candidate).find(".so"));
    const bool mapped = std::any_of(before.mapped_libraries.begin(), before.mapped_libraries.end(),
                                    [&](const std::string& path) {
                                      return path.find("/" + stem + ".so") != std::string::npos;
                                    });
    if (!mapped) {
      soname = candidate;
      break;
    }
  }
  if (soname == nullptr) GTEST_SKIP() << "every candidate library is already loaded";
  void* handle = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) GTEST_SKIP() << soname << " is not installed: " << ::dlerror();
  const std::vector<std::string> changes = host_state_changes(before, capture_host_state());
  ::dlclose(handle);
  ASSERT_FALSE(changes.empty());
  const std::string stem = std::string(soname).substr(0, std::string(soname).find(".so"));
  for (const std::string& change : changes) EXPECT_TRUE(change.starts_with("loaded library /"));
  EXPECT_TRUE(mentions(changes, "/" + stem + ".so")) << joined(changes);
}

TEST(HostState, WorkingDirectoryChangeIsFound) {
  const HostState before = capture_host_state();
  ASSERT_NE(before.cwd, "/");
  ASSERT_EQ(::chdir("/"), 0);
  const std::vector<std::string> changes = host_state_changes(before, capture_host_state());
  ASSERT_EQ(::chdir(before.cwd.c_str()), 0);
  EXPECT_EQ(changes, std::vector<std::string>{"changed the working directory to /"});
  EXPECT_TRUE(host_state_changes(before, capture_host_state()).empty());
}

void ignore_signal(int) {}

TEST(HostState, SignalHandlerChangeIsFound) {
  const HostState before = capture_host_state();
  struct sigaction handler {
  }, old{};
  handler.sa_handler = ignore_signal;
  ASSERT_EQ(::sigaction(SIGUSR2, &handler, &old), 0);
  const std::vector<std::string> changes = host_state_changes(before, capture_host_state());
  ASSERT_EQ(::sigaction(SIGUSR2, &old, nullptr), 0);
  ASSERT_EQ(changes.size(), 1u) << joined(changes);
  EXPECT_EQ(changes[0], "changed the handler of signal " + std::to_string(SIGUSR2) + " (" +
                            ::strsignal(SIGUSR2) + ")");
  EXPECT_TRUE(host_state_changes(before, capture_host_state()).empty());
}

TEST(HostState, IgnoringASignalIsAChange) {
  const HostState before = capture_host_state();
  const sighandler_t old = ::signal(SIGTERM, SIG_IGN);
  const HostState after = capture_host_state();
  ::signal(SIGTERM, old);
  EXPECT_EQ(after.signal_dispositions[SIGTERM - 1], "ignore");
  EXPECT_TRUE(mentions(host_state_changes(before, after), "signal 15 (Terminated)"));
}

TEST(HostState, PeakResidentMemoryGrowsWithTouchedMemory) {
  // The peak so far may lie far above the resident memory now (earlier tests in this process):
  // reset it to the current resident size first ("5" to clear_refs, Linux 4.0+), so that the
  // 256 MiB below raise it wherever this test runs in the suite.
  std::ofstream("/proc/self/clear_refs") << "5";
  const int64_t before = peak_resident_bytes();
  ASSERT_GT(before, 0);
  std::vector<char> block(size_t(256) << 20);
  for (size_t i = 0; i < block.size(); i += 4096) block[i] = 1;  // touch every page
  EXPECT_GE(peak_resident_bytes() - before, int64_t(200) << 20);
}

TEST(HostState, AddressSpaceHeadroomFollowsTheLimitAndShrinksWithMappings) {
  // In a child: the limit set there, 256 MiB above what it maps now.
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::ifstream status("/proc/self/status");
    std::string line;
    int64_t mapped = 0;
    while (std::getline(status, line))
      if (line.rfind("VmSize:", 0) == 0) mapped = std::atoll(line.c_str() + 7) * 1024;
    const rlim_t limit = static_cast<rlim_t>(mapped + (int64_t{256} << 20));
    struct rlimit r {
      limit, limit
    };
    if (mapped == 0 || setrlimit(RLIMIT_AS, &r) != 0) _exit(2);
    const std::optional<int64_t> before = address_space_headroom_bytes();
    if (!before || *before <= 0 || *before > (int64_t{256} << 20)) _exit(3);
    std::vector<char> block(64 << 20);  // maps 64 MiB more
    block[0] = 1;
    const std::optional<int64_t> after = address_space_headroom_bytes();
    if (!after || *after > *before - (int64_t{60} << 20)) _exit(4);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "2: no limit set, 3: headroom outside (0, 256 MiB], "
                                       "4: a 64 MiB mapping did not shrink it";
}

TEST(HostState, ParseMappedLibraries) {
  constexpr std::string_view kMaps =
      "55d0c0a00000-55d0c0a21000 r--p 00000000 08:01 1234    /usr/bin/ptxbench-worker\n"
      "7f1a2b000000-7f1a2b028000 r--p 00000000 08:01 5678    /usr/lib/x86_64-linux-gnu/libc.so.6\n"
      "7f1a2b028000-7f1a2b1bd000 r-xp 00028000 08:01 5678    /usr/lib/x86_64-linux-gnu/libc.so.6\n"
      "7f1a2c000000-7f1a2c100000 r-xp 00000000 08:01 91      /tmp/run dir/cand.so (deleted)\n"
      "7f1a2d000000-7f1a2d100000 r-xp 00000000 08:01 92      /opt/cuda/libcublas.so.13.0.0\n"
      "7f1a2e000000-7f1a2e001000 r--p 00000000 08:01 93      /data/results.sound/notes.txt\n"
      "7f1a2f000000-7f1a2f021000 rw-p 00000000 00:00 0       [heap]\n"
      "7f1a30000000-7f1a30001000 rw-p 00000000 00:00 0 \n"
      "7ffd1c5e0000-7ffd1c5e2000 r-xp 00000000 00:00 0       [vdso]";
  const std::set<std::string> expected{"/usr/lib/x86_64-linux-gnu/libc.so.6",
                                       "/tmp/run dir/cand.so", "/opt/cuda/libcublas.so.13.0.0"};
  EXPECT_EQ(parse_mapped_libraries(kMaps), expected);
  EXPECT_TRUE(parse_mapped_libraries("").empty());
}

}  // namespace
}  // namespace ptxb
