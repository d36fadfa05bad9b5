#include "sys/sandbox.hpp"

#include <fcntl.h>
#include <grp.h>
#include <linux/landlock.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <string>

#include "core/error.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

// NOTE: Debian 12's kernel headers predate Landlock ABI 4-6; the constants are fixed by the
// kernel ABI (include/uapi/linux/landlock.h), so they are spelled out here.
constexpr uint64_t kFsRefer = 1ULL << 13;     // ABI 2
constexpr uint64_t kFsTruncate = 1ULL << 14;  // ABI 3
constexpr uint64_t kNetBindTcp = 1ULL << 0;   // ABI 4
constexpr uint64_t kNetConnectTcp = 1ULL << 1;
constexpr uint64_t kScopeSignal = 1ULL << 1;  // ABI 6
#ifndef SYS_landlock_create_ruleset
constexpr long SYS_landlock_create_ruleset = 444;
constexpr long SYS_landlock_add_rule = 445;
constexpr long SYS_landlock_restrict_self = 446;
#endif

// landlock_ruleset_attr as of ABI 6; older kernels take a prefix of it.
struct RulesetAttr {
  uint64_t handled_access_fs = 0;
  uint64_t handled_access_net = 0;
  uint64_t scoped = 0;
};

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

// Rights that change the file tree or file contents; reading and executing stay unrestricted.
uint64_t write_rights(int abi) {
  uint64_t r = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
               LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
               LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
               LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
               LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) r |= kFsRefer;
  if (abi >= 3) r |= kFsTruncate;
  return r;
}

bool allow_beneath(int ruleset, const std::filesystem::path& dir, uint64_t rights,
                   std::string* why) {
  const int fd = ::open(dir.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) {
    *why = errno_text(("open " + dir.string()).c_str());
    return false;
  }
  landlock_path_beneath_attr rule{};
  rule.allowed_access = rights;
  rule.parent_fd = fd;
  const long rc = ::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
  const int saved = errno;
  ::close(fd);
  errno = saved;
  if (rc != 0) *why = errno_text("landlock_add_rule");
  return rc == 0;
}

// Landlock: writes only beneath `writable` (and to device files), TCP denied unless the network
// is already isolated, no signals to processes outside the sandbox.
json apply_landlock(const SandboxPolicy& p, bool network_isolated) {
  const int abi = landlock_abi_version();
  if (abi <= 0) return {{"status", "unavailable: the kernel offers no Landlock"}};
  RulesetAttr attr;
  attr.handled_access_fs = write_rights(abi);
  size_t attr_size = sizeof(uint64_t);
  if (abi >= 4 && !network_isolated) attr.handled_access_net = kNetBindTcp | kNetConnectTcp;
  if (abi >= 4) attr_size = 2 * sizeof(uint64_t);
  if (abi >= 6) {
    attr.scoped = kScopeSignal;
    attr_size = sizeof(RulesetAttr);
  }
  const int ruleset = static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, attr_size, 0));
  if (ruleset < 0) return {{"status", "unavailable: " + errno_text("landlock_create_ruleset")}};
  std::string why;
  bool ok = true;
  for (const auto& dir : p.writable)
    ok = ok && allow_beneath(ruleset, dir, attr.handled_access_fs, &why);
  // CUDA opens /dev/nvidia* read-write; nothing may be created there.
  const uint64_t device_rights = LANDLOCK_ACCESS_FS_WRITE_FILE | (abi >= 3 ? kFsTruncate : 0);
  ok = ok && allow_beneath(ruleset, "/dev", device_rights, &why);
  if (ok && ::syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
    why = errno_text("landlock_restrict_self");
    ok = false;
  }
  ::close(ruleset);
  if (!ok) throw InternalError("Landlock ABI " + std::to_string(abi) + " failed half-way: " + why);
  json writable = json::array();
  for (const auto& dir : p.writable) writable.push_back(dir.string());
  return {{"status", "applied"},
          {"abi", abi},
          {"writable", writable},
          {"tcp_denied", attr.handled_access_net != 0},
          {"signals_scoped", attr.scoped != 0}};
}

json set_limit(int resource, uint64_t value) {
  if (value == 0) return "unchanged";
  rlimit lim{static_cast<rlim_t>(value), static_cast<rlim_t>(value)};
  // NOTE: CPU time gets a soft limit below the hard one so SIGXCPU arrives before SIGKILL.
  if (resource == RLIMIT_CPU) lim.rlim_max = static_cast<rlim_t>(value + 5);
  if (::setrlimit(resource, &lim) != 0) return "unavailable: " + errno_text("setrlimit");
  return value;
}

}  // namespace

int landlock_abi_version() {
  const long v =
      ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return v < 0 ? 0 : static_cast<int>(v);
}

json apply_sandbox(const SandboxPolicy& p) {
  json report = json::object();
  const bool root = ::geteuid() == 0;

  bool network_isolated = false;
  if (p.isolate_network) {
    if (::unshare(CLONE_NEWNET) == 0) {
      network_isolated = true;
      report["network"] = "applied: new network namespace (no interfaces up)";
    } else {
      report["network"] = "unavailable: " + errno_text("unshare(CLONE_NEWNET)") +
                          "; TCP denied by Landlock where available";
    }
  } else {
    report["network"] = "not requested";
  }

  report["limits"] = {{"cpu_seconds", set_limit(RLIMIT_CPU, p.cpu_seconds)},
                      {"file_size_bytes", set_limit(RLIMIT_FSIZE, p.file_size_bytes)},
                      {"open_files", set_limit(RLIMIT_NOFILE, p.open_files)},
                      {"processes", set_limit(RLIMIT_NPROC, p.processes)},
                      {"address_space_bytes", set_limit(RLIMIT_AS, p.address_space_bytes)}};

  if (p.oom_score_adj) {
    std::ofstream adj("/proc/self/oom_score_adj");
    adj << *p.oom_score_adj;
    adj.close();
    report["oom_score_adj"] = adj ? "applied: " + std::to_string(*p.oom_score_adj)
                                  : "unavailable: cannot write /proc/self/oom_score_adj";
  }

  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    throw InternalError(errno_text("prctl(PR_SET_NO_NEW_PRIVS)"));
  report["landlock"] =
      p.writable.empty() ? json{{"status", "not requested"}} : apply_landlock(p, network_isolated);

  if (!p.run_as_uid) {
    report["user"] = "not requested";
  } else if (!root) {
    report["user"] = "unavailable: not root (uid " + std::to_string(::geteuid()) + ")";
  } else {
    const uid_t id = *p.run_as_uid;
    if (::setgroups(0, nullptr) != 0 || ::setresgid(id, id, id) != 0 ||
        ::setresuid(id, id, id) != 0)
      throw InternalError(errno_text("dropping to the sandbox user"));
    // A changed uid makes the process non-dumpable, which hides its own /proc files from it.
    ::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    report["user"] = "applied: uid/gid " + std::to_string(id) + ", no capabilities";
  }
  return report;
}

void kill_all_processes_of(uint32_t uid) {
  if (::geteuid() != 0 || uid == 0) return;
  const pid_t pid = ::fork();
  if (pid < 0) return;
  if (pid == 0) {
    // kill(-1) reaches every process this uid may signal: all of that uid's, except ourselves.
    if (::setresgid(uid, uid, uid) == 0 && ::setresuid(uid, uid, uid) == 0) ::kill(-1, SIGKILL);
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
}

}  // namespace ptxb
