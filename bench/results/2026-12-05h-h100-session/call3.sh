#!/usr/bin/env bash
# Session 2026-12-05 (fifteenth), call 3 (short: what was left of the device budget): the GEMM
# experts as changed after calls 1-2, kernels alone in the probe harnesses, each next to its
# committed form (call3src/NAME_before.cu = kernels/reference at 694eca8, NAME_now.cu = the
# working tree's): the warpgroup index through warpgroup_index(), the bf16 ring's stepped
# descriptors, and the TMA-store staging written by st.shared (which also ends the 8-byte spill
# the uniform index caused in the block-scaled kernel; fp8b_uniformwg_generic.cu is call 1's
# measured variant, with that spill). The bf16 shapes compare C with cuBLASLt (the correctness
# check); then `ptxbench eval` of the D 96 backward expert if time is left.
# Usage (repository root of the GPU machine): call3.sh BIN OUT LIMIT_S
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="$3"; mkdir -p "$out"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)" src="$here/call3src"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
start=$SECONDS
export PTXB_PROBE_TIMEOUT_S=30
bench/gemm_dev/probe.sh "$out/fp8" "block:4096,4096,4096 block:8192,8192,8192" \
  "$src"/fp8b_{before,uniformwg_generic,now}.cu > "$out/fp8b.log" 2>&1
bench/gemm_dev/probe.sh "$out/fp8t" "tensor:4096,4096,4096 tensor:8192,8192,8192" \
  "$src"/fp8_{before,now}.cu > "$out/fp8t.log" 2>&1
cat "$out/fp8b.log" "$out/fp8t.log"; echo "(fp8) after $((SECONDS - start)) s"
bench/gemm_dev/probe.sh "$out/bf16" "4096,4096,4096 8192,8192,8192 4000,3000,2048" \
  "$src"/tma_{before,now}.cu "$src"/llm_{before,now}.cu > "$out/bf16.log" 2>&1
bench/gemm_dev/probe.sh "$out/grouped" "8,32768,4096,7168 128,16384,2048,768" \
  "$src"/grouped_{before,now}.cu > "$out/grouped.log" 2>&1
cat "$out/bf16.log" "$out/grouped.log"; echo "(bf16) after $((SECONDS - start)) s"
rm -rf "$out"/{fp8,fp8t,bf16,grouped}/*.so "$out"/{fp8,fp8t,bf16,grouped}/{gemm,fp8,grouped}_probe
left=$((limit - 10 - (SECONDS - start)))
if [[ $left -gt 50 ]]; then
  export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
  export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR=/tmp/c3cache
  timeout "$left" "$bin/ptxbench" eval kernels/reference/sm90_attention_bwd_bf16_d96.cu \
    --task sm90/attention/bwd-bf16-d96 --json-out "$out/eval_bwd-d96.json" > "$out/eval_bwd-d96.txt" 2>&1
  python3 -c "import json,sys; v=json.load(open(sys.argv[1])); print('bwd-d96', v['outcome'], ' / '.join(f\"{t['speedup']['median']:.3f}\" for t in v.get('timing', [])))" \
    "$out/eval_bwd-d96.json" 2>&1 | tail -1
fi
echo "done after $((SECONDS - start)) s"
