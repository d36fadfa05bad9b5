// Hardware counters of every candidate call the worker makes at a timed shape, read with CUPTI's
// range profiler in the process that times them (docs/evidence.md, "Counters from the timed
// process"). Every such call, in correctness and timing alike, takes the same path: a range is
// pushed before it (before the L2 flush that precedes a timed call) and popped after its end
// event; ranges are decoded in passes of kRangesPerPass, outside every timed window. The parent
// compares the counts with those of the call Nsight Compute profiled (instrument/counter_match).
#pragma once

#include <cuda_runtime.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "instrument/counter_match.hpp"
#include "tasks/catalog.hpp"
#include "worker/range_profiler.hpp"

namespace ptxb {

class CallCounters {
 public:
  static constexpr size_t kRangesPerPass = 64;  ///< the capacity the H200 probe ran with

  /// Enables the range profiler on the current context for `counters` (one pass). nullptr with
  /// *why_not when CUPTI, the device or the counters do not allow it. Call before any candidate
  /// code is loaded and before the sandbox closes the process off.
  static std::unique_ptr<CallCounters> create(const std::vector<CounterSpec>& counters, int device,
                                              std::string* why_not);
  CallCounters(const CallCounters&) = delete;
  CallCounters& operator=(const CallCounters&) = delete;

  /// Runs the controls through ranges (the evidence control's GMMA executions, the FLOP control's
  /// fp64 and FMA pipe counts, live and dead) and measures what precedes a timed call (launch gate
  /// and L2 flush) three times (equal counts required: they are subtracted from timed calls).
  /// {"ok": bool, "problem": "...", ...}; once not ok, counting stays off.
  nlohmann::json check(cudaStream_t stream);
  bool ok() const { return ok_; }
  /// Host seconds of create()'s range-profiler steps (RangeProfiler::setup_seconds()).
  const std::map<std::string, double>& setup_seconds() const { return profiler_->setup_seconds(); }

  /// Brackets one candidate call at timed shape `shape` (the task's shape index), or `calls`
  /// calls (a cold round's block, a sustained batch: the range's counts are divided by `calls`,
  /// so they match the profiled call only when the calls together did `calls` times its work).
  /// Never throws: a profiler failure ends counting and is reported by failure().
  void begin(size_t shape, int calls = 1);
  /// `flushes`: the launch gates and L2 flushes inside the range (a cold round's block: one per
  /// call; a sustained batch: one before the batch), whose counts, measured by check(), are
  /// subtracted.
  void end(int flushes);
  /// Host seconds spent so far finishing passes (stop, decode, reset, start: every
  /// kRangesPerPass ranges, inside the end() that fills the pass).
  double pass_seconds() const { return pass_seconds_; }
  /// The first failure of the range profiler after candidate code ran; "" while none.
  const std::string& failure() const { return failure_; }

  /// Decodes what is still pending and returns every counted call, grouped by shape; the values
  /// follow the counters given to create().
  std::map<size_t, std::vector<CountedCalls>> collect();

 private:
  explicit CallCounters(std::unique_ptr<RangeProfiler> profiler);
  /// Stops the pass, decodes it, files each range under its shape, and starts the next pass.
  void finish_pass();
  std::vector<std::vector<double>> run_ranges(const std::vector<std::function<void()>>& work,
                                              cudaStream_t stream);
  void fail(const std::string& what);

  std::unique_ptr<RangeProfiler> profiler_;
  bool ok_ = false;
  bool in_range_ = false;
  std::string failure_;
  std::vector<double> flush_counts_;
  struct Pending {
    size_t shape;
    int flushes;
    int64_t call;
    int calls;  ///< calls inside the range
  };
  std::vector<Pending> pending_;
  int64_t next_call_ = 0;
  double pass_seconds_ = 0;
  std::map<size_t, std::map<std::vector<double>, CountedCalls>> groups_;
};

}  // namespace ptxb
