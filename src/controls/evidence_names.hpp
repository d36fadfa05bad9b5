// Names of the evidence-run kernels as ncu prints them (extern "C", so no parameter list), and of
// the hardware counters the controls' expected counts are stated in. Shared by the worker, which
// launches the controls and counts its calls, and the parent, which reads ncu's output.
#pragma once

namespace ptxb {

inline constexpr const char* kControlKernelName = "ptxb_evidence_control";
inline constexpr const char* kMarkerKernelName = "ptxb_evidence_marker";

inline constexpr const char* kGmmaPipeMetric = "sm__inst_executed_pipe_tensor_op_gmma.sum";
inline constexpr const char* kFmaPipeMetric = "sm__inst_executed_pipe_fma.sum";
inline constexpr const char* kFp64PipeMetric = "sm__inst_executed_pipe_fp64.sum";

}  // namespace ptxb
