#!/usr/bin/env bash
# Writes to stdout a copy of the attention-forward expert solution that forgets the causal mask on
# the diagonal key tile (only ragged tails are still masked): every causal shape must fail
# correctness, the others pass.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
src="$root/kernels/reference/sm90_attention_fwd_bf16.cu"
pattern='(kCausal \&\& j == job.m_tile) || '
grep -q "(kCausal && j == job.m_tile) || " "$src" || { echo "make_causal_diag_bug: pattern not found" >&2; exit 1; }
sed "s#$pattern##" "$src"
