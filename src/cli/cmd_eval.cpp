// `ptxbench eval FILE --task ID [--json] [--no-timing] [--no-evidence] [--quick] [--strict]`:
// judge one kernel.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/cmd_common.hpp"
#include "cli/commands.hpp"
#include "eval/pipeline.hpp"
#include "eval/tier.hpp"
#include "sys/files.hpp"

namespace ptxb::cli {

int run_eval(int argc, char** argv) {
  CLI::App app{
      "Judge one kernel: compile, check correctness and evidence, time it against the "
      "library.",
      "ptxbench eval"};
  std::string file, task, json_out;
  bool as_json = false, no_timing = false, no_evidence = false, strict = false;
  bool self_baseline = false, sanitize = false;
  app.add_option("file", file, "the submission (.cu)")->required();
  app.add_option("--task", task, "task id, e.g. sm90/gemm/bf16-wgmma-tma")->required();
  app.add_flag("--json", as_json, "print the full verdict record as JSON");
  app.add_option("--json-out", json_out, "also write the JSON verdict to this file");
  app.add_flag("--no-timing", no_timing, "skip the timing stage");
  app.add_flag("--sanitize", sanitize,
               "also run the quick correctness cases under compute-sanitizer (memcheck, "
               "initcheck, racecheck, synccheck)");
  app.add_flag("--no-evidence", no_evidence,
               "skip the runtime instruction evidence (ncu); R1/R2 become unavailable");
  app.add_flag("--self-baseline", self_baseline,
               "time the candidate against itself (timing self-check; speedup should be 1.00)");
  app.add_flag("--strict", strict, "exit 1 unless the outcome is passed");
  bool quick = false;
  app.add_flag("--quick", quick,
               "the quick tier: correctness on the smallest visible and hidden shapes, evidence "
               "and 10 timed rounds on one timed visible and one timed hidden shape");
  if (const auto status = parse_flags(app, argc, argv)) return *status;

  EvalConfig config = EvalConfig::from_environment();
  if (quick) config = quick_tier(config);
  config.run_timing = !no_timing;
  config.self_baseline = self_baseline;
  config.run_evidence = !no_evidence;
  config.sanitize = sanitize;
  EvalRequest request{read_file(file), file, task};
  const Verdict verdict = evaluate(request, config);
  const std::string json_text = verdict.to_json().dump(2);
  if (!json_out.empty()) write_file_atomic(json_out, json_text + "\n");
  if (as_json) {
    std::cout << json_text << "\n";
  } else {
    std::cout << render_text(verdict);
  }
  return strict && !is_success(verdict.outcome) ? kExitNotPassed : kExitOk;
}

}  // namespace ptxb::cli
