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

/// Bytes one live evidence control launch loads through the TMA unit: the (64, 16) bf16 tile of
/// the TMA load (2048) and the 1-D bulk copy (512). kTmaLoadBytesMetric counts both, exactly
/// (H200, in ncu's run and in the range profiler's); the dead control loads none.
inline constexpr double kEvidenceControlTmaLoadBytes = 2560;

/// What one live evidence control launch reads from L2 by each kind of load other than TMA, as
/// the catalog's other_read_metrics count it: every kind reads its own buffer once, whole 32-byte
/// sectors, so each metric shows at least these bytes (more only if the hardware counts coarser
/// units than sectors); the dead control reads none. A cap on other reads is only as good as
/// these counters: a metric below its floor here makes the evidence unavailable. H200
/// (2026-12-05): each as listed but the plain loads' 8192 (with the non-coherent 2048) and the
/// surface's 4096: counted by whole lines or twice, never less.
struct ControlReadBytes {
  const char* metric;
  double bytes;
};
inline constexpr ControlReadBytes kEvidenceControlOtherReads[] = {
    {"l1tex__m_xbar2l1tex_read_bytes_mem_lg_op_ld.sum", 2048},                       // ld.global
    {"l1tex__m_xbar2l1tex_read_bytes_mem_global_op_ldgsts_cache_access.sum", 2048},  // cp.async.ca
    {"smsp__sass_l1tex_m_xbar2l1tex_read_bytes_mem_global_op_ldgsts_cache_bypass.sum",
     2048},                                                          // cp.async.cg
    {"l1tex__m_xbar2l1tex_read_bytes_mem_texture.sum", 2048},        // tex1Dfetch
    {"l1tex__m_xbar2l1tex_read_bytes_mem_surface_op_ld.sum", 2048},  // surf1Dread
    {"l1tex__m_xbar2l1tex_read_bytes_mem_global_op_atom.sum", 128},  // atom.add, one warp
};
/// The control also reads 2048 bytes by ld.global.nc, a load whose class (global or texture) the
/// metric names leave open: it is counted in the sum only, which must reach the floors' total
/// plus these bytes.
inline constexpr double kEvidenceControlNonCoherentReadBytes = 2048;

}  // namespace ptxb
