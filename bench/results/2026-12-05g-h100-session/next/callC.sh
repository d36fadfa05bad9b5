#!/usr/bin/env bash
# Prepared in session 2026-12-05 (fourteenth) for the next device session, not run: the D 96
# backward task with stepped descriptors (`bwd_d96_stepdesc`) and the attention forward expert with
# the warpgroup index made warp-uniform (`fwd_uniformwg`, `fwd_d256_uniformwg` on the D 256 task:
# 1.4-6.1% fewer instructions in its kernels, D 256 the most), against their experts,
# interleaved, three rounds (the evidence in the first only) within the call.
# Usage (repository root of the GPU machine): callC.sh BIN OUT   (about 9 minutes)
exec "$(dirname "${BASH_SOURCE[0]}")/judge_variants.sh" "$1" "$2" bwd_d96_stepdesc,fwd_uniformwg,fwd_d256_uniformwg
