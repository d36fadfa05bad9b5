// Positive/negative control kernels and the per-call marker kernel that frame every Nsight Compute
// instruction-count job, so that the parent can tell "the instruction did not run" from "the
// profiler could not see it" and can split ncu's kernel list by candidate call.
//
// Expected executed warp-level SASS counts of ONE control launch
// (metric sass__inst_executed_per_opcode_with_modifier_all):
//
//   PTX                                     SASS (opcode prefix)            live=true   live=false
//   wgmma.mma_async m64n8k16 f32.bf16.bf16  HGMMA.64x8x16.F32.BF16          exactly 4   0
//   cp.async.bulk.tensor.2d (TMA load)      UTMALDG.2D                      exactly 1   0
//   cp.async.bulk (1-D bulk copy)           UBLKCP.S.G                      exactly 1   0
//   mbarrier.init                           SYNCS.EXCH.64                   exactly 1   0
//   mbarrier.arrive.expect_tx               SYNCS.ARRIVE.TRANS64            exactly 1   0
//   mbarrier.try_wait.parity (loop)         SYNCS.PHASECHK.TRANS64.TRYWAIT  >= 4        0
//   setmaxnreg.dec 40 (warpgroup 1)         USETMAXREG.DEALLOC.CTAPOOL      exactly 4   0
//   cp.async.cg 16 B                        LDGSTS.E.BYPASS.128             exactly 4   0
//   cp.async.ca 16 B (warpgroup 1)          LDGSTS.E.128                    exactly 4   0
//   ldmatrix m8n8.x4 b16                    LDSM.16.M88.4                   exactly 4   0
//   stmatrix m8n8.x4 b16                    STSM.16.M88.4                   exactly 4   0
//
// "exactly 4" = one instruction executed by each of the 4 warps of one warpgroup; "exactly 1" = one
// instruction issued by one lane of warp 0. The try_wait count is per loop iteration, so it is
// at least one per waiting warp and may be higher if the copies are still in flight.
//
// Warpgroup 1 also reads by every other kind of load (LDG.E.128, LDG.E.128.CONSTANT, the
// LDGSTS.E.128 above, TLD.LZ, SULD.D.BA.1D.128, ATOMG.E.ADD; no catalog target): the bytes each
// of the other-read metrics must show are kEvidenceControlOtherReads (evidence_names.hpp).
#pragma once

#include <cuda_runtime.h>

#include <map>
#include <string>

// kControlKernelName ("ptxb_evidence_control") and kMarkerKernelName ("ptxb_evidence_marker").
// NOTE: defined once in evidence_names.hpp (host-only, used by the parent) and re-exported here;
// a second definition would clash in any file that includes both headers. Both kernels are
// `extern "C" __global__` at global scope, so the name ncu prints is exactly that string.
#include "controls/evidence_names.hpp"

namespace ptxb {

/// Enqueues the control kernel once on `stream` (1 CTA of 256 threads = 2 warpgroups).
/// live=true executes every instruction in the table above; live=false launches the same kernel
/// (same SASS) with a run-time flag that skips all of them. The first call allocates a small
/// device buffer and encodes a tensor map on the current device (kept for the process lifetime;
/// later calls must use the same device and must not happen during stream capture).
/// Returns the launch's error (or the first-use setup error); never exits or throws.
cudaError_t launch_evidence_control(bool live, cudaStream_t stream);

/// Enqueues the marker kernel with grid (nonce, 1, 1) and 32 threads on `stream`; its only effect
/// is one store to a private device word. Returns cudaErrorInvalidValue for nonce outside
/// [1, 65535], else the launch's error; never exits or throws.
cudaError_t launch_evidence_marker(unsigned nonce, cudaStream_t stream);

/// Warp-level wgmma (GMMA pipe) executions of one live control launch: two instructions per warp
/// of one warpgroup.
inline constexpr double kEvidenceControlGmmaWarpInstructions = 8;

/// FLOPs of the positive control's MMA work by SASS opcode family, 2*m*n*k per warpgroup-wide
/// instruction: one bf16 m64n8k16 (HGMMA, 16384) and one e4m3 m64n8k32 (QGMMA, 32768).
std::map<std::string, double> evidence_control_mma_flops();

}  // namespace ptxb
