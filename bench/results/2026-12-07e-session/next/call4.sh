#!/usr/bin/env bash
# Prepared in session 2026-12-07e for the next session's third device call (an H200): the rest of
# the whole adversarial suite (next/adversarial.sh `gen2`, `gen3`: two thirds of the generated
# cheats, about 15 and 13 files, each part between run.sh's two controls).
# Usage (repository root of the GPU machine): call4.sh BIN OUT
set -uo pipefail
bin="$1" out="$2"; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader |
  tee "$out/gpu.txt"
here="$(dirname "${BASH_SOURCE[0]}")"
bash "$here/adversarial.sh" "$bin" "$out" gen2 280
bash "$here/adversarial.sh" "$bin" "$out" gen3 $((560 - SECONDS))
