// A snapshot of the host-side process state that candidate code could change behind the
// harness's back (threads, child processes, loaded libraries, working directory, signal
// handlers), and the differences between two snapshots. Linux only (/proc); no CUDA.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ptxb {

/// What of the process's host state candidate code could change behind the harness's back.
struct HostState {
  std::set<int> thread_ids;                ///< /proc/self/task
  std::set<int> child_pids;                ///< /proc/self/task/*/children (zombies included)
  std::set<std::string> mapped_libraries;  ///< shared-object paths mapped in /proc/self/maps
  std::string cwd;                         ///< getcwd; empty when it cannot be read
  /// One text per signal 1..SIGRTMAX (index = signal - 1): "default", "ignore",
  /// "handler 0x... flags 0x...", or "unavailable" (glibc reserves 32 and 33).
  std::vector<std::string> signal_dispositions;
};

/// Reads the current state. Throws ApiError when /proc/self/task or /proc/self/maps cannot be
/// read (without them the snapshot would silently say "nothing changed").
HostState capture_host_state();

/// Human-readable differences of `after` against `before`, one string per finding, e.g.
/// "started 1 host thread still running (tid 1234)", "started child process 567",
/// "loaded library /usr/lib/x86_64-linux-gnu/libcublas.so.13", "changed the working directory
/// to /", "changed the handler of signal 15 (Terminated)", "unloaded library ...". Empty when
/// nothing changed. Threads and children that ended are not findings.
std::vector<std::string> host_state_changes(const HostState& before, const HostState& after);

/// The process's peak resident memory so far (VmHWM of /proc/self/status), in bytes; 0 when it
/// cannot be read. It never goes down, so growth across a call is memory that call touched.
int64_t peak_resident_bytes();

/// Bytes the process may still map before its address-space limit (RLIMIT_AS soft limit minus
/// VmSize of /proc/self/status); nullopt when there is no limit or it cannot be read. Device
/// allocations count: CUDA maps every one into the process's (unified) address space.
std::optional<int64_t> address_space_headroom_bytes();

/// The shared-object paths in a /proc/self/maps text: the path field of each mapping whose file
/// name contains ".so" followed by the end or a '.', without a " (deleted)" suffix.
std::set<std::string> parse_mapped_libraries(std::string_view maps_text);

}  // namespace ptxb
