// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=passed verdict_lacks=root:
// Reading files only root may read through the parent: at its first ptxb_plan in each process the
// candidate replaces the files of its working directory (its worker folder) that the parent reads
// or writes after the process ends (stdout.txt, stderr.txt, the evidence run's messages and
// output) by links to /etc/shadow, whose lines start with the user name ("root:..."). Until
// 2026-12-05 the parent, root where the sandbox drops the worker to its own user, read the
// timing worker's stdout.txt through such a link into the verdict (`worker.stdout_tail`), which
// the service returns to whoever submitted the file; and the evidence run and the sanitizers ran
// in the same folder, where the parent opened their output files, as root, through links the
// earlier process had left (truncating their targets). Now the parent reads and creates files in
// worker folders without following links (a link reads as a one-line note), and every later
// process has a fresh folder of its own. The GEMM itself is correct wgmma: `passed`, and no line
// of /etc/shadow in the verdict. Each attempt and its result go to stderr.
#include <unistd.h>

#include <cerrno>

__device__ bool divert_to_simt() { return false; }

namespace {

bool link_outputs() {
  for (const char* name : {"stdout.txt", "stderr.txt", "evidence-messages.jsonl",
                           "evidence-stdout.txt", "evidence-stderr.txt"}) {
    const bool unlinked = unlink(name) == 0 || errno == ENOENT;
    const bool linked = symlink("/etc/shadow", name) == 0;
    std::fprintf(stderr, "link_worker_outputs: %s: unlink %s, link %s\n", name,
                 unlinked ? "done" : std::strerror(errno), linked ? "done" : std::strerror(errno));
  }
  return true;
}

}  // namespace

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  static const bool linked = link_outputs();
  (void)linked;
  return expert_plan(problem, workspace_bytes);
}

extern "C" int ptxb_run(const ptxb_args* args) { return expert_run(args); }
