// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=passed
// Binary swap between the processes of one evaluation: at its first ptxb_plan in each process the
// candidate finds the file it was loaded from (dladdr of its own code), unlinks it and writes
// other bytes under its name, and does the same to "cand.so" in its working directory (the worker
// folder). Until 2026-12-05 the shared object every process loads lay in that folder, which the
// sandbox user owns: the timing worker's candidate could unlink root's copy and put its own file
// there, and the sanitizers and the evidence run, which come after the timing worker, loaded that
// file instead of the compiled one (a clean binary for the profiler beside a different timed
// one; here bytes that load as nothing, so the evidence run failed). Now the copy lies in a folder
// of the parent's outside the worker folder (eval/worker_launch.hpp): both unlinks of the loaded
// file fail (the folder is not the sandbox user's; Landlock), every process loads the compiled
// binary, which computes with wgmma, and the verdict is `passed`. Each attempt and its result go
// to stderr.
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

__device__ bool divert_to_simt() { return false; }

namespace {

// Unlinks `path` and creates a file of other bytes under its name; prints what happened.
void replace_file(const char* path) {
  const bool unlinked = unlink(path) == 0;
  const int unlink_error = errno;
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int open_error = errno;
  if (fd >= 0) {
    const char bytes[] = "not a shared object";
    if (write(fd, bytes, sizeof bytes) < 0) std::fprintf(stderr, "swap_shared_object: write\n");
    close(fd);
  }
  std::fprintf(stderr, "swap_shared_object: %s: unlink %s, create %s\n", path,
               unlinked ? "done" : std::strerror(unlink_error),
               fd >= 0 ? "done" : std::strerror(open_error));
}

bool swap_the_binary() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&replace_file), &info) != 0 && info.dli_fname != nullptr)
    replace_file(info.dli_fname);
  replace_file("cand.so");
  return true;
}

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  static const bool swapped = swap_the_binary();
  (void)swapped;
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) { return expert_run(args); }
