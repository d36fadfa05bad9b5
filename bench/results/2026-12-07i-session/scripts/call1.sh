#!/usr/bin/env bash
# Session 2026-12-07i (thirty-sixth), call 1: does the in-process evidence run (CUPTI 13.2.86's
# SASS metrics collected by ptxbench-worker itself, src/eval/inprocess_evidence.hpp) count what
# Nsight Compute counts, per opcode and per arithmetic class, on every control and every timed
# call of the sm90 experts? `ptxbench eval --no-timing` with PTXBENCH_EVIDENCE=compare; first
# ptxbench-sass-coexistence-probe: the collector beside the CUPTI monitor and the range profiler
# in one process, and the expert's time and counters before and after a collection.
# Usage (repository root of the GPU machine): call1.sh BIN CUPTI_DIR SO_DIR OUT
#   (the first run, on an H100, showed range names "0", "1", ...: the counters now go per call)
set -uo pipefail
bin="$(cd "$1" && pwd)" cupti="$(cd "$2" && pwd)" sos="$3" out="$4"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader |
  tee "$out/gpu.txt"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR="$out/cache"
LD_LIBRARY_PATH="$cupti/13.2.86:$LD_LIBRARY_PATH" timeout 120 \
  "$bin/ptxbench-sass-coexistence-probe" tasks "$sos/sm90_gemm_bf16_wgmma_tma.so" \
  4096x4096x4096 8192x8192x8192 128x8192x8192 > "$out/coexistence.txt" 2>&1
echo "coexistence exit $?" >> "$out/coexistence.txt"
cat "$out/coexistence.txt"
export PTXBENCH_EVIDENCE=compare PTXBENCH_CUPTI_DIR="$cupti/13.2.86"
runs=("tma kernels/reference/sm90_gemm_bf16_wgmma_tma.cu sm90/gemm/bf16-wgmma-tma"
  "wgmma kernels/reference/sm90_gemm_bf16_wgmma.cu sm90/gemm/bf16-wgmma"
  "fp8 kernels/reference/sm90_gemm_fp8_e4m3.cu sm90/gemm/fp8-e4m3"
  "fp8bs kernels/reference/sm90_gemm_fp8_blockwise.cu sm90/gemm/fp8-blockwise"
  "fwd kernels/reference/sm90_attention_fwd_bf16.cu sm90/attention/fwd-bf16"
  "bwd kernels/reference/sm90_attention_bwd_bf16.cu sm90/attention/bwd-bf16")
for r in "${runs[@]}"; do
  read -r label src task <<<"$r"
  [[ -f "$src" ]] || { echo "missing $src"; continue; }
  timeout 150 "$bin/ptxbench" eval "$src" --task "$task" --no-timing \
    --json-out "$out/$label.json" > "$out/$label.txt" 2>&1
  echo "$label exit $?"
done
python3 bench/probes/summarize_inprocess_evidence.py "$out"/*.json | tee "$out/summary.txt"
rm -rf "$out/cache"
cat "$out/summary.txt"
# One archive comes back (the device returns a few files only).
tar -C "$out" -czf "/tmp/call1.tar.gz" . && find "$out" -mindepth 1 -delete && mv "/tmp/call1.tar.gz" "$out/"
