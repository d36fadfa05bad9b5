// The FLOP control kernel: a known number of every scalar and packed floating-point arithmetic
// instruction that PTXBench counts as non-target work (controls/flop_classes.hpp). Profiled by
// Nsight Compute in every evidence run, its counts calibrate the per-class FLOP weights; run
// through the timing process's range profiler at start, it checks the hardware counters. With
// live=false the same SASS executes none of it.
#pragma once

#include <cuda_runtime.h>

#include "controls/flop_classes.hpp"

namespace ptxb {

/// Enqueues the control kernel once on `stream`. Returns the launch's error; never throws.
cudaError_t launch_flop_control(bool live, cudaStream_t stream);

/// Warp-level executions of the control's live launch on the FMA pipe that the classes account
/// for (FFMA, FMUL, FADD, HFMA2 x2, HMUL2, HADD2) and on the fp64 pipe (DFMA, DMUL, DADD).
inline constexpr double kFlopControlFmaPipeWarpInstructions =
    7.0 * kFlopControlRepeats * (kFlopControlThreads / 32);
inline constexpr double kFlopControlFp64PipeWarpInstructions =
    3.0 * kFlopControlRepeats * (kFlopControlThreads / 32);

}  // namespace ptxb
