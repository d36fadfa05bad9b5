// Hardware counters of the timed process, read through CUPTI's range profiler
// (cupti_range_profiler.h: user ranges, user replay) so that the evidence describes the very calls
// that were timed (docs/evidence.md, "Counters from the timed process"). Hardware counters only:
// metrics with "_sass_" patch code and are never asked for here. Loaded through dlopen like the
// CUPTI monitor, with which it shares the process's one libcupti.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ptxb {

/// How ranges are made: kUserRanges, push()/pop() pairs the caller replays itself (one pass
/// only: a second would replay candidate code); kPerKernel, one range around every kernel launch
/// between start() and stop(), replayed by CUPTI itself (kernel replay, device memory saved and
/// restored) for as many passes as the metrics need, as Nsight Compute does.
enum class RangeMode { kUserRanges, kPerKernel };

class RangeProfiler {
 public:
  /// Sets up counting of `metrics` on device `device` in `context` (the worker's primary context),
  /// with room for `max_ranges` ranges per pass. Returns nullptr with *why_not when CUPTI or the
  /// device does not support it, a metric is unknown, or (kUserRanges) the metrics need more than
  /// one pass (a second pass would replay candidate code). Throws nothing. `query_availability`
  /// false builds the config image from the host API alone, without the device's counter
  /// availability image (as passes_needed does without a GPU): the same image, but no faster a
  /// worker (the first ranges then pay what the query paid; docs/timing.md, "Blocks and pools").
  static std::unique_ptr<RangeProfiler> create(CUcontext context, int device,
                                               const std::vector<std::string>& metrics,
                                               size_t max_ranges, std::string* why_not,
                                               bool query_availability = true,
                                               RangeMode mode = RangeMode::kUserRanges);
  /// Disables the range profiler and frees the host objects; errors are ignored.
  ~RangeProfiler();
  RangeProfiler(const RangeProfiler&) = delete;
  RangeProfiler& operator=(const RangeProfiler&) = delete;

  const std::vector<std::string>& metrics() const { return metrics_; }
  /// The chip name CUPTI reported ("GH100").
  const std::string& chip() const { return chip_; }
  /// Host seconds of create()'s steps: "initialize" (cuptiProfilerInitialize), "availability"
  /// (the counter availability image), "config" (the host object and the config image of the
  /// metrics), "enable" (enabling the range profiler and configuring its first pass).
  const std::map<std::string, double>& setup_seconds() const { return setup_seconds_; }
  /// The config image the range profiler was configured with.
  const std::vector<uint8_t>& config_image() const;
  /// The config image of `metrics` on `chip` from the host API alone (no availability image, no
  /// driver); empty with *why_not on failure.
  static std::vector<uint8_t> host_config_image(const std::string& chip,
                                                const std::vector<std::string>& metrics,
                                                std::string* why_not);

  /// One pass: start(), then push()/pop() pairs (at most max_ranges), then stop(). Ranges count
  /// all work of the context between push and pop, on every stream. Throw ApiError on failure.
  void start();
  void push(const char* range_name);
  void pop();
  void stop();
  /// Copies the finished pass's counters into the counter data image and evaluates every range in
  /// it: values[range][metric], in the order of metrics(). Throws ApiError on failure, including
  /// dropped ranges.
  std::vector<std::vector<double>> decode();
  /// The names of the ranges decode() evaluated, in its order (kPerKernel: the kernels' function
  /// names as CUPTI reports them). Call after decode(), before reset().
  std::vector<std::string> range_names() const;

  /// Empties the counter data image (decode() returns every range since the last reset) and
  /// configures the next pass. Throws ApiError on failure.
  void reset();

  /// Passes the metrics would need on `chip` (nullopt-like: 0 with *why_not on failure). Uses
  /// the profiler host API only, so it answers on a machine without a GPU or driver.
  static size_t passes_needed(const std::string& chip, const std::vector<std::string>& metrics,
                              std::string* why_not);
  /// Base metric names the host API knows for `chip` that contain `part` (probe aid).
  static std::vector<std::string> base_metrics(const std::string& chip, const std::string& part);

  struct Impl;

 private:
  RangeProfiler() = default;
  std::unique_ptr<Impl> impl_;
  std::vector<std::string> metrics_;
  std::string chip_;
  std::map<std::string, double> setup_seconds_;
};

}  // namespace ptxb
