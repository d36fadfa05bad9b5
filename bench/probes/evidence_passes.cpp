// Probe, no GPU needed: how many replay passes the hardware counters of each sm_90a task's
// evidence run need on the H200's chip (GH100). Nsight Compute replays every profiled kernel once
// per pass (its instrumented SASS metrics, "sass" in the name, come on top), so each pass adds
// a replay of every profiled call. CUPTI's profiler host API answers for a chip by name without
// a driver. Prints per task the pass count of the evidence run's hardware metrics, then for each
// metric beyond the catalog's counters the count without it. With METRICS (comma-separated), only
// the passes of the catalog's counters, gpu__time_duration.sum and those: a replacement's cost.
// With --sass LISTING TASK: the passes of TASK's evidence run for a candidate whose
// `cuobjdump -sass` listing is LISTING (the other-read metrics of load kinds it lacks left out,
// eval/other_read_selection.hpp), and which metrics were left out.
// Usage: ptxbench-evidence-passes TASKS_DIR [METRICS | --sass LISTING TASK]
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "compile/sass.hpp"
#include "eval/ncu_evidence.hpp"
#include "eval/other_read_selection.hpp"
#include "sys/files.hpp"
#include "tasks/catalog.hpp"
#include "tasks/spec.hpp"
#include "worker/range_profiler.hpp"

namespace {

constexpr const char* kChip = "GH100";

// The comma-separated ncu metric list without the instrumented SASS metrics.
std::vector<std::string> hardware_metrics(const std::string& list) {
  std::vector<std::string> out;
  size_t begin = 0;
  while (begin <= list.size()) {
    size_t end = list.find(',', begin);
    if (end == std::string::npos) end = list.size();
    const std::string m = list.substr(begin, end - begin);
    if (!m.empty() && m.find("sass") == std::string::npos) out.push_back(m);
    begin = end + 1;
  }
  return out;
}

// The --sass mode: TASK's evidence-run passes for the candidate LISTING lists.
int passes_for_listing(const std::string& tasks_dir, const ptxb::Catalog& catalog,
                       const std::string& listing, const std::string& task_id) {
  const ptxb::TaskSpec task = ptxb::find_task(tasks_dir, catalog, task_id);
  const ptxb::OtherReadSelection reads =
      ptxb::select_other_reads(catalog, ptxb::parse_sass(ptxb::read_file(listing)));
  std::string why;
  for (const ptxb::Catalog* c : {&catalog, &reads.catalog}) {
    const std::vector<std::string> metrics = hardware_metrics(ptxb::evidence_ncu_metrics(task, *c));
    std::printf("%s: %zu hardware metrics, %zu passes %s\n",
                c == &catalog ? "every other-read metric" : "the listing's load kinds only",
                metrics.size(), ptxb::RangeProfiler::passes_needed(kChip, metrics, &why),
                why.c_str());
  }
  for (const auto& [metric, families] : reads.left_out)
    std::printf("left out: %s\n", metric.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bool sass_mode = argc == 5 && std::string(argv[2]) == "--sass";
  if (argc != 2 && argc != 3 && !sass_mode) {
    std::fprintf(stderr, "usage: %s TASKS_DIR [METRICS | --sass LISTING TASK]\n", argv[0]);
    return 2;
  }
  const ptxb::Catalog catalog = ptxb::load_catalog(std::string(argv[1]) + "/catalog");
  if (sass_mode) return passes_for_listing(argv[1], catalog, argv[3], argv[4]);
  std::set<std::string> counters;
  for (const ptxb::CounterSpec& c : catalog.counters_for("sm_90a")) counters.insert(c.metric);
  std::string why;
  if (argc == 3) {
    std::vector<std::string> metrics(counters.begin(), counters.end());
    metrics.push_back("gpu__time_duration.sum");
    for (const std::string& m : hardware_metrics(argv[2])) metrics.push_back(m);
    const size_t passes = ptxb::RangeProfiler::passes_needed(kChip, metrics, &why);
    std::printf("catalog counters, gpu__time_duration.sum, %s: %zu passes %s\n", argv[2], passes,
                why.c_str());
    return passes > 0 ? 0 : 1;
  }
  for (const ptxb::TaskSpec& task : ptxb::load_all_tasks(argv[1], catalog)) {
    if (task.arch != "sm_90a") continue;
    const std::vector<std::string> metrics =
        hardware_metrics(ptxb::evidence_ncu_metrics(task, catalog));
    const size_t passes = ptxb::RangeProfiler::passes_needed(kChip, metrics, &why);
    std::printf("%-36s %2zu hardware metrics, %zu passes %s\n", task.id.c_str(), metrics.size(),
                passes, why.c_str());
    for (const std::string& m : metrics) {
      if (counters.count(m) != 0) continue;
      std::vector<std::string> without;
      for (const std::string& other : metrics)
        if (other != m) without.push_back(other);
      std::printf("    without %-64s %zu passes\n", m.c_str(),
                  ptxb::RangeProfiler::passes_needed(kChip, without, &why));
    }
  }
  return 0;
}
