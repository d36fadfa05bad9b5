#!/usr/bin/env bash
# Session 2026-12-07f: the whole adversarial suite on the H200 in as few device calls as fit.
# First every submission the parts judge (the top-level and generated cheats, the control) is
# compiled into the compile cache in parallel, with the GPU hidden (CUDA_VISIBLE_DEVICES= makes
# `ptxbench eval` stop after its static stage; the cache key holds source, flags, nvcc and the
# ABI header, nothing of the GPU), so the serial evaluations that follow find their compiles
# cached (in 2026-12-07d's run of the generated cheats, compiles were 147 s of 466). Then
# 2026-12-07e's next/adversarial.sh runs each PART given, with what is left of LIMIT_S.
# Usage (repository root of the GPU machine): suite.sh BIN OUT LIMIT_S PART...
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="$3"; shift 3; mkdir -p "$out"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader |
  tee "$out/gpu.txt"
tests/adversarial/make_cheats.sh /tmp/adv-src > /dev/null
precompile() {  # FILE: its static stage only, task from its expect line (the control's is fixed)
  local task
  task="$(grep -m1 -o 'ptxbench-expect: task=[^ ]*' "$1" | sed 's/.*task=//')"
  [[ -n "$task" ]] || task=sm90/gemm/bf16-wgmma-tma
  CUDA_VISIBLE_DEVICES= "$bin/ptxbench" eval "$1" --task "$task" --no-timing > /dev/null 2>&1
  echo "$1"
}
export -f precompile; export bin
ls tests/adversarial/*.cu /tmp/adv-src/*.cu kernels/reference/sm90_gemm_bf16_wgmma_tma.cu |
  timeout 120 xargs -P "$(nproc)" -I{} bash -c 'precompile {}' > "$out/precompile.txt"
echo "$(wc -l < "$out/precompile.txt") files precompiled, ${SECONDS} s in"
for part in "$@"; do
  left=$((limit - SECONDS))
  if ((left < 60)); then echo "$part: not started ($left s left)"; continue; fi
  bash bench/results/2026-12-07e-session/next/adversarial.sh "$bin" "$out" "$part" "$left"
done
echo "suite.sh: ${SECONDS} s"
