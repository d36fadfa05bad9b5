#!/usr/bin/env bash
# Call 2: what a counter range costs inside the worker. The TMA GEMM expert judged without the
# evidence run (the worker's phases have the ranges' push and pop apart) by default, without the
# sandbox, and with 1 and 16 calls a round; then the range probe's cost mode on the same .so.
# Usage (repository root, GPU machine): call2/call2.sh BIN_DIR OUT
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR="$out/cache"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt"
src=kernels/reference/sm90_gemm_bf16_wgmma_tma.cu task=sm90/gemm/bf16-wgmma-tma
"$bin/ptxbench" eval "$src" --task "$task" --no-timing --no-evidence > "$out/compile.txt" 2>&1
judge() { local label="$1"; shift
  env "$@" "$bin/ptxbench" eval "$src" --task "$task" --no-evidence --json-out "$out/$label.json" \
    > "$out/$label.txt" 2>&1; }
judge default PTXB_X=1
judge nosandbox PTXBENCH_SANDBOX=0
judge block1 PTXBENCH_TIMING_BLOCK=1 PTXBENCH_SUSTAINED_CALLS=0
judge block16 PTXBENCH_TIMING_BLOCK=16 PTXBENCH_SUSTAINED_CALLS=0
so="$(find "$out/cache" -name '*.so' | head -1)"
timeout 120 "$bin/ptxbench-range-probe" tasks "$so" cost > "$out/cost.txt" 2>&1
rm -rf "$out/cache"
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
keys = ["worker", "setup", "timing.rounds", "timing.rounds.counters", "timing.rounds.counters.push",
        "timing.rounds.counters.pop", "timing.rounds.device.blocks", "timing.rounds.checks",
        "timing.sustained.rounds", "timing.sustained.rounds.counters.push",
        "timing.sustained.rounds.counters.pop", "timing.sustained.rounds.device.blocks"]
print("| run | rounds | " + " | ".join(keys) + " |")
for label in ["default", "nosandbox", "block1", "block16"]:
    try:
        v = json.load(open(f"{out}/{label}.json"))
    except Exception as e:
        print(label, "no verdict", e); continue
    p = dict(v["stage_seconds"]["worker_phases"]); p["worker"] = v["stage_seconds"]["worker"]
    p = {k.replace("timing.sustained.counters", "timing.sustained.rounds.counters"): x for k, x in p.items()}
    rounds = sum(t.get("samples", 0) for t in v["timing"])
    print(f"| {label} {v['outcome']} | {rounds} | " + " | ".join(f"{p.get(k, 0):.2f}" for k in keys) + " |")
PY
grep -E "^cost|^capacity|monitor" "$out/cost.txt"
