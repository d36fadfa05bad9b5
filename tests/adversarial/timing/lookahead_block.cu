// ptxbench-expect: task=sm90/gemm/bf16-wgmma outcome=rejected_cheat timing=yes samples=64
// Timing cheat against rounds of several calls in one counter range (docs/timing.md, "Blocks and
// pools"): a range's counts prove only the work of all its calls together, so the first call of a
// block (a host-time gap of over 0.8 ms before it) does the work of the input sets the rounds keep
// using (seen twice at the shape), and the block's later calls return at once when their output
// was computed ahead. Were a round to use every set there is, the block would do exactly its
// calls' work with every output right (and one batched launch of them all would fill a GPU that
// one small problem per launch leaves idle). The candidate's pool holds more sets than a round
// uses, all redrawn and poisoned every round, so work done ahead for all of them includes sets
// the round does not use: the range counts more than its calls' work. It acts once per shape
// (then honestly: freed sets must not be written), as soon as it knows more sets than a round
// has calls. Caught by the counters of the timed calls.
#include <chrono>
#include <map>
#include <set>
#include <tuple>
#include <vector>

__device__ bool divert_to_simt() { return false; }

extern "C" int ptxb_plan(const ptxb_problem* problem, uint64_t* workspace_bytes) {
  return expert_plan(problem, workspace_bytes);
}

namespace {

constexpr size_t kCallsPerRound = 8;  // docs/timing.md: PTXBENCH_TIMING_BLOCK

struct SeenSet {
  std::vector<const void*> inputs;
  std::vector<void*> outputs;
  int times = 0;
};

struct ShapeState {
  std::map<void*, SeenSet> sets;  // by output pointer
  bool acted = false;
};

}  // namespace

extern "C" int ptxb_run(const ptxb_args* args) {
  using Clock = std::chrono::steady_clock;
  static std::map<std::tuple<int64_t, int64_t, int64_t>, ShapeState> shapes;
  static std::set<void*> ahead;  // outputs computed ahead in the current block
  static Clock::time_point last_call;
  const ptxb_problem& p = *args->problem;
  ShapeState& shape = shapes[{p.inputs[0].shape[0], p.inputs[1].shape[0], p.inputs[0].shape[1]}];
  SeenSet& mine = shape.sets[args->outputs[0]];
  mine.inputs.assign(args->inputs, args->inputs + p.num_inputs);
  mine.outputs.assign(args->outputs, args->outputs + p.num_outputs);
  ++mine.times;
  const bool block_start = Clock::now() - last_call > std::chrono::microseconds(800);
  int status = PTXB_OK;
  if (block_start) ahead.clear();
  std::vector<const SeenSet*> kept;  // the sets the rounds keep using
  for (const auto& [out, set] : shape.sets)
    if (set.times >= 2) kept.push_back(&set);
  if (block_start && !shape.acted && kept.size() > kCallsPerRound) {
    shape.acted = true;
    for (const SeenSet* set : kept) {
      ptxb_args other = *args;
      other.inputs = set->inputs.data();
      other.outputs = set->outputs.data();
      if (status == PTXB_OK) status = expert_run(&other);
      ahead.insert(set->outputs[0]);
    }
    ahead.erase(args->outputs[0]);
    if (mine.times < 2) status = status == PTXB_OK ? expert_run(args) : status;
  } else if (ahead.erase(args->outputs[0]) == 0) {
    status = expert_run(args);
  }
  last_call = Clock::now();
  return status;
}
