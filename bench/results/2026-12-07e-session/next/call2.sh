#!/usr/bin/env bash
# Prepared in session 2026-12-07e for the next session's second device call (an H200): the first
# half of the whole adversarial suite on this code (next/adversarial.sh `top`: every
# tests/adversarial/*.cu; then `gen1`: the first third of the generated cheats). Session
# 2026-12-07e changed how the timed rounds compare outputs (and 2026-12-07d before it), and the
# suite had not run on the H200 on that code: issues 20 and 24 wait for it. next/call4.sh runs the
# rest.
# Usage (repository root of the GPU machine): call2.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader |
  tee "$out/gpu.txt"
here="$(dirname "${BASH_SOURCE[0]}")"
bash "$here/adversarial.sh" "$bin" "$out" top 280
bash "$here/adversarial.sh" "$bin" "$out" gen1 $((560 - SECONDS))
