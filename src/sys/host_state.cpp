#include "sys/host_state.hpp"

#include <sys/resource.h>

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>

#include "core/error.hpp"

namespace ptxb {
namespace {

[[noreturn]] void throw_errno(const char* call, int err) {
  throw_api("POSIX", call, err, "", std::strerror(err), __FILE__, __LINE__);
}

std::optional<int> parse_int(std::string_view text) {
  if (text.empty()) return std::nullopt;
  int value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

/// The numeric entry names of a /proc directory. Throws ApiError when it cannot be opened.
std::set<int> numeric_entries(const char* dir_path) {
  DIR* dir = ::opendir(dir_path);
  if (dir == nullptr) throw_errno("opendir", errno);
  std::set<int> ids;
  while (const dirent* entry = ::readdir(dir)) {
    if (const std::optional<int> id = parse_int(entry->d_name)) ids.insert(*id);
  }
  ::closedir(dir);
  return ids;
}

std::optional<std::string> read_proc_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

/// The parent pid field of a /proc/<pid>/stat text ("pid (comm) state ppid ...").
std::optional<int> stat_parent_pid(std::string_view stat_text) {
  const size_t comm_end = stat_text.rfind(')');
  if (comm_end == std::string_view::npos) return std::nullopt;
  std::istringstream fields{std::string(stat_text.substr(comm_end + 1))};
  std::string state, ppid;
  fields >> state >> ppid;
  return parse_int(ppid);
}

// NOTE: the per-thread "children" files need CONFIG_PROC_CHILDREN; without it, fall back to
// scanning every process's parent pid (slower, same answer).
std::set<int> children_by_scanning_proc() {
  std::set<int> children;
  const int self = static_cast<int>(::getpid());
  for (const int pid : numeric_entries("/proc")) {
    const std::optional<std::string> stat =
        read_proc_file("/proc/" + std::to_string(pid) + "/stat");
    if (stat && stat_parent_pid(*stat) == self) children.insert(pid);
  }
  return children;
}

std::set<int> child_pids(const std::set<int>& thread_ids) {
  std::set<int> children;
  for (const int tid : thread_ids) {
    const std::optional<std::string> text =
        read_proc_file("/proc/self/task/" + std::to_string(tid) + "/children");
    if (!text) {
      if (::access(("/proc/self/task/" + std::to_string(tid)).c_str(), F_OK) == 0)
        return children_by_scanning_proc();
      continue;  // the thread ended between listing and reading
    }
    std::istringstream pids(*text);
    std::string word;
    while (pids >> word) {
      if (const std::optional<int> pid = parse_int(word)) children.insert(*pid);
    }
  }
  return children;
}

std::string current_directory() {
  std::vector<char> buffer(4096);
  while (::getcwd(buffer.data(), buffer.size()) == nullptr) {
    if (errno != ERANGE) return {};
    buffer.resize(buffer.size() * 2);
  }
  return buffer.data();
}

std::string describe_disposition(int signal_number) {
  struct sigaction current {};
  if (::sigaction(signal_number, nullptr, &current) != 0) return "unavailable";
  const bool has_info = (current.sa_flags & SA_SIGINFO) != 0;
  const void* handler = has_info ? reinterpret_cast<const void*>(current.sa_sigaction)
                                 : reinterpret_cast<const void*>(current.sa_handler);
  if (!has_info && current.sa_handler == SIG_DFL) return "default";
  if (!has_info && current.sa_handler == SIG_IGN) return "ignore";
  char text[96];
  std::snprintf(text, sizeof text, "handler %p flags 0x%x", handler,
                static_cast<unsigned>(current.sa_flags));
  return text;
}

std::vector<std::string> signal_dispositions() {
  std::vector<std::string> dispositions;
  for (int sig = 1; sig <= SIGRTMAX; ++sig) dispositions.push_back(describe_disposition(sig));
  return dispositions;
}

bool names_shared_object(std::string_view path) {
  const size_t slash = path.rfind('/');
  const std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
  for (size_t at = file.find(".so"); at != std::string_view::npos; at = file.find(".so", at + 1)) {
    const size_t after = at + 3;
    if (after == file.size() || file[after] == '.') return true;
  }
  return false;
}

std::string join_ids(const std::vector<int>& ids) {
  std::string text;
  for (const int id : ids) text += (text.empty() ? "" : ", ") + std::to_string(id);
  return text;
}

template <typename T>
std::vector<T> added(const std::set<T>& before, const std::set<T>& after) {
  std::vector<T> out;
  for (const T& item : after)
    if (!before.contains(item)) out.push_back(item);
  return out;
}

}  // namespace

std::set<std::string> parse_mapped_libraries(std::string_view maps_text) {
  // A line: "address perms offset dev inode   path"; the path (which may hold spaces) starts
  // after the fifth field and the padding that follows it.
  std::set<std::string> libraries;
  size_t line_start = 0;
  while (line_start < maps_text.size()) {
    size_t line_end = maps_text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = maps_text.size();
    const std::string_view line = maps_text.substr(line_start, line_end - line_start);
    line_start = line_end + 1;

    size_t at = 0;
    for (int field = 0; field < 5 && at != std::string_view::npos; ++field) {
      at = line.find_first_not_of(' ', at);
      if (at != std::string_view::npos) at = line.find(' ', at);
    }
    if (at == std::string_view::npos) continue;
    at = line.find_first_not_of(' ', at);
    if (at == std::string_view::npos) continue;
    std::string_view path = line.substr(at);
    constexpr std::string_view kDeleted = " (deleted)";
    if (path.ends_with(kDeleted)) path.remove_suffix(kDeleted.size());
    if (path.starts_with('/') && names_shared_object(path)) libraries.emplace(path);
  }
  return libraries;
}

HostState capture_host_state() {
  HostState state;
  state.thread_ids = numeric_entries("/proc/self/task");
  state.child_pids = child_pids(state.thread_ids);
  const std::optional<std::string> maps = read_proc_file("/proc/self/maps");
  if (!maps) throw_errno("open /proc/self/maps", errno);
  state.mapped_libraries = parse_mapped_libraries(*maps);
  state.cwd = current_directory();
  state.signal_dispositions = signal_dispositions();
  return state;
}

std::vector<std::string> host_state_changes(const HostState& before, const HostState& after) {
  std::vector<std::string> changes;
  if (const std::vector<int> threads = added(before.thread_ids, after.thread_ids);
      !threads.empty()) {
    const char* noun = threads.size() == 1 ? "thread" : "threads";
    changes.push_back("started " + std::to_string(threads.size()) + " host " + noun +
                      " still running (tid " + join_ids(threads) + ")");
  }
  for (const int pid : added(before.child_pids, after.child_pids))
    changes.push_back("started child process " + std::to_string(pid));
  for (const std::string& library : added(before.mapped_libraries, after.mapped_libraries))
    changes.push_back("loaded library " + library);
  for (const std::string& library : added(after.mapped_libraries, before.mapped_libraries))
    changes.push_back("unloaded library " + library);
  if (after.cwd != before.cwd) changes.push_back("changed the working directory to " + after.cwd);
  const size_t signals =
      std::min(before.signal_dispositions.size(), after.signal_dispositions.size());
  for (size_t i = 0; i < signals; ++i) {
    if (before.signal_dispositions[i] == after.signal_dispositions[i]) continue;
    const int sig = static_cast<int>(i) + 1;
    const char* name = ::strsignal(sig);
    changes.push_back("changed the handler of signal " + std::to_string(sig) + " (" +
                      (name ? name : "unknown") + ")");
  }
  return changes;
}

namespace {

// Field `name` ("VmHWM:") of /proc/self/status in bytes (the file gives kB); nullopt when absent.
std::optional<int64_t> status_bytes(std::string_view name) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind(name, 0) == 0) return std::atoll(line.c_str() + name.size()) * 1024;
  return std::nullopt;
}

}  // namespace

int64_t peak_resident_bytes() { return status_bytes("VmHWM:").value_or(0); }

std::optional<int64_t> address_space_headroom_bytes() {
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  const std::optional<int64_t> mapped = status_bytes("VmSize:");
  if (!mapped) return std::nullopt;
  return std::max<int64_t>(0, static_cast<int64_t>(limit.rlim_cur) - *mapped);
}

}  // namespace ptxb
