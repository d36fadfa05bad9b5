#!/usr/bin/env bash
# Prepared in session 2026-12-05 (fourteenth) for the next device session, not run: the attention
# backward expert's instruction overhead. `kStepDescriptors` (off; 4-8% fewer instructions in its
# dK/dV and dQ kernels, SASS counted here) alone and with the warpgroup index made warp-uniform
# (5-11% fewer again): `ptxbench eval` of the expert on the dense and GQA backward tasks against
# `bwd_stepdesc`, `bwd_stepdesc_uniformwg` and `bwd_gqa_stepdesc_uniformwg`, interleaved, three
# rounds (the evidence in the first only) within the call (the last may be cut short).
# Usage (repository root of the GPU machine): callB.sh BIN OUT   (about 9 minutes)
exec "$(dirname "${BASH_SOURCE[0]}")/judge_variants.sh" "$1" "$2" bwd_stepdesc,bwd_stepdesc_uniformwg,bwd_gqa_stepdesc_uniformwg
