#!/usr/bin/env bash
# Call 4: the fp8 experts after their promotion policies and stage loads moved into the experts
# and the block-scaled expert lost its unstaged form (SASS unchanged up to its kernel's parameter
# offsets; the per-tensor expert's identical): both experts through `ptxbench eval`, then the
# generated fp8 hostile submissions with the block-scaled expert as control.
# Usage (repository root of the GPU machine): call4.sh BIN OUT   (about 3-4 minutes)
set -uo pipefail
bin="$1" out="$2"; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR=/tmp/c4-cache
start=$SECONDS
for e in blockwise:fp8-blockwise e4m3:fp8-e4m3; do
  "$bin/ptxbench" eval "kernels/reference/sm90_gemm_fp8_${e%%:*}.cu" --task "sm90/gemm/${e#*:}" \
    --json-out "$out/${e%%:*}.json" > "$out/${e%%:*}.txt" 2>&1
  echo "${e%%:*}: $(grep -m1 '^outcome' "$out/${e%%:*}.txt"); $(grep -E ' speedup [0-9.]+' "$out/${e%%:*}.txt" \
    | grep -v sustained | sed -E 's/.*speedup ([0-9.]+).*/\1/' | tr '\n' ' ')"
done
echo "experts done after $((SECONDS - start)) s"
tests/adversarial/make_cheats.sh /tmp/cheats-src > /dev/null
PTXB_CONTROL=kernels/reference/sm90_gemm_fp8_blockwise.cu PTXB_CONTROL_TASK=sm90/gemm/fp8-blockwise \
  tests/adversarial/run.sh "$bin" /tmp/c4-cheats /tmp/cheats-src/fp8_*.cu > "$out/cheats.log" 2>&1
tar -C /tmp/c4-cheats -czf "$out/cheats.tar.gz" .
tail -9 "$out/cheats.log"
echo "done after $((SECONDS - start)) s"
