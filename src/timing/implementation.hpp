// What the worker times and verifies: a candidate shared object or a library baseline, both
// behind the submission ABI's two calls so that one code path serves both.
#pragma once

#include <ptxbench/abi.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ptxb {

class Implementation {
 public:
  virtual ~Implementation() = default;
  virtual std::string name() const = 0;
  /// Before the candidate is loaded, the sandbox applied or the CUPTI monitor started: prepares
  /// what plan() will need for these problems (the timed shapes), in parallel threads where that
  /// pays (cuDNN: compiling every offered execution plan). plan() uses what was prepared for its
  /// problem and does the rest itself. Best effort: never throws, reports nothing (plan() does).
  virtual void prebuild(const std::vector<const ptxb_problem*>& /*problems*/) {}
  /// Per-shape preparation, outside timing and without data pointers (ABI ptxb_plan).
  virtual int plan(const ptxb_problem& problem, uint64_t* workspace_bytes) = 0;
  /// Enqueues one call on args.stream (ABI ptxb_run).
  virtual int run(const ptxb_args& args) = 0;
  /// After a successful plan(), outside timing, on the problem's real buffers: a library whose
  /// fastest path depends on values plan() cannot see (the grouped GEMM's group sizes) times its
  /// paths here and keeps the fastest; may synchronize and write the outputs. 0 or a non-zero
  /// status as plan()'s. Candidates are never tuned (the ABI has no such call).
  virtual int tune(const ptxb_args& /*args*/) { return 0; }
  /// What the last plan() chose and why (library baselines); null for candidates.
  virtual nlohmann::json plan_report() const { return nullptr; }
  /// True for library baselines whose plan() times the plans their library offers and keeps the
  /// fastest (docs/timing.md, "The library's plan"), and to which the two calls below apply.
  virtual bool times_plans() const { return false; }
  /// With times_plans(): the last successful plan()'s choice, in the form prefer()
  /// takes back (an object with the problem's key under "problem"); null when there is none
  /// (candidates, a library with one plan, a failed plan()).
  virtual nlohmann::json plan_choice() const { return nullptr; }
  /// Choices of earlier plan() calls of this library (plan_choice() values, an array): plan() of
  /// a problem with a choice here takes that plan without timing the others, as long as the
  /// library still offers it (else it times them all, as without); prebuild() builds only it
  /// where building is what costs. Elements of another form or library are ignored; a later call
  /// replaces the earlier choices. Never throws.
  virtual void prefer(const nlohmann::json& /*choices*/) {}
};

}  // namespace ptxb
