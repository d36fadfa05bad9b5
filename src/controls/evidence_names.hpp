// Names of the evidence-run kernels as ncu prints them (extern "C", so no parameter list).
// Shared by the worker, which launches them, and the parent, which finds them in ncu's output.
#pragma once

namespace ptxb {

inline constexpr const char* kControlKernelName = "ptxb_evidence_control";
inline constexpr const char* kMarkerKernelName = "ptxb_evidence_marker";

}  // namespace ptxb
