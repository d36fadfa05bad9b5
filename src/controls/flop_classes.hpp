// The arithmetic classes of the non-target FLOP rule and the FLOP control kernel's known work
// (docs/evidence.md, "All the arithmetic counts"). Host-only: shared by the worker, which launches
// the control, and the parent, which calibrates the FLOP weights from ncu's counts of it.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace ptxb {

inline constexpr const char* kFlopControlKernelName = "ptxb_flop_control";

/// One arithmetic class: `name` is the suffix of ncu's thread-level count
/// smsp__sass_thread_inst_executed_op_<name>_pred_on.sum; `flops` the FLOPs one thread performs
/// with one such instruction as the control issues it (packed f16x2/bf16x2 forms: two lanes).
struct FlopClass {
  std::string_view name;
  double flops;
};
inline constexpr std::array<FlopClass, 9> kFlopClasses = {{{"ffma", 2},
                                                           {"fmul", 1},
                                                           {"fadd", 1},
                                                           {"hfma", 4},
                                                           {"hmul", 2},
                                                           {"hadd", 2},
                                                           {"dfma", 2},
                                                           {"dmul", 1},
                                                           {"dadd", 1}}};

/// ncu's metric for class `c`.
inline std::string flop_class_metric(const FlopClass& c) {
  return "smsp__sass_thread_inst_executed_op_" + std::string(c.name) + "_pred_on.sum";
}

/// The control launch: one CTA of kFlopControlThreads threads, each issuing kFlopControlRepeats
/// instructions of every class ("hfma" twice: an f16x2 and a bf16x2 form).
inline constexpr int kFlopControlThreads = 128;
inline constexpr int kFlopControlRepeats = 64;

/// Thread-level executions of class `c` in one live control launch.
inline double flop_control_thread_count(const FlopClass& c) {
  const double per_form = static_cast<double>(kFlopControlRepeats) * kFlopControlThreads;
  return c.name == "hfma" ? 2 * per_form : per_form;
}

}  // namespace ptxb
