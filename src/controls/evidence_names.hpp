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
// Math ops of the tensor path by operand type: one op per FLOP (2*m*n*k per wgmma), equal to the
// FLOPs ncu's per-opcode counts give on every expert and the evidence control (calibrated on the
// H200, docs/evidence.md). The bf16 one counts HGMMA with bf16 sources and fp32 accumulators
// only; the fp8 one every tensor-path op with fp8 sources (QGMMA, e4m3 or e5m2).
inline constexpr const char* kBf16TensorOpsMetric =
    "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum";
inline constexpr const char* kFp8TensorOpsMetric = "sm__ops_path_tensor_src_fp8.sum";
// Bytes the TMA unit read from L2 for global loads: tensor-map loads and 1-D bulk copies.
inline constexpr const char* kTmaLoadBytesMetric =
    "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum";

}  // namespace ptxb
