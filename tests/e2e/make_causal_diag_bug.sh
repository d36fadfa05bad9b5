#!/usr/bin/env bash
# Writes to stdout a copy of the attention-forward expert solution that forgets the causal mask on
# the diagonal key tile (only ragged tails are still masked): every causal shape must fail
# correctness, the others pass.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
src="$root/kernels/reference/sm90_attention_fwd_bf16.cu"
# Both forms of the test: 128-query tiles (the diagonal tile) and 192-query ones (D 64: any tile
# whose last key is past the warpgroup's first row).
pattern='(kCausal \&\& j == job.m_tile) || '
pattern192='(kCausal \&\& (j + 1) \* kBlockN - 1 > row0) || '
grep -q "(kCausal && j == job.m_tile) || " "$src" || { echo "make_causal_diag_bug: pattern not found" >&2; exit 1; }
grep -q "(kCausal && (j + 1) \* kBlockN - 1 > row0) || " "$src" ||
  { echo "make_causal_diag_bug: 192-query pattern not found" >&2; exit 1; }
sed -e "s#$pattern##" -e "s#$pattern192##" "$src"
