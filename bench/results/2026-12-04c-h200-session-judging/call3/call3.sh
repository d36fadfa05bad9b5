#!/usr/bin/env bash
# Call 3: the fp32 input generator and the one-pass integrity check. GPU tests, then the judging
# speed of the TMA GEMM, attention forward and backward experts and their slowed variants (one
# evaluation each, compile cached), with the worker's phases per file.
# Usage (repository root, GPU machine): call3/call3.sh BIN_DIR OUT
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks"
timeout 240 "$bin/ptxbench_gpu_tests" > "$out/gputests.log" 2>&1; echo "gputests exit $?"
timeout -k 5 320 bench/judging_speed.sh "$bin" "$out/speed" 1 tma,fwd,bwd > "$out/speed.log" 2>&1
echo "speed exit $?"
rm -rf "$out/speed/cache"
tar -C "$out" -czf "$out/call3.tar.gz" --exclude=call3.tar.gz .
grep -E "^\[  (PASSED|FAILED)|FAILED  \]" "$out/gputests.log" | head -20
cat "$out/speed/table.md"
python3 - "$out/speed" <<'PY'
import json, sys, glob, os
keys = ["setup", "correctness", "timing.setup", "timing.rounds", "timing.rounds.counters.push",
        "timing.rounds.counters.pop", "timing.rounds.checks", "timing.rounds.device.blocks",
        "timing.sustained.rounds", "timing.sustained.counters.push", "timing.sustained.checks"]
print("| file | eval parts: evidence, worker | " + " | ".join(keys) + " |")
for f in sorted(glob.glob(sys.argv[1] + "/*_1.json")):
    v = json.load(open(f)); st = v["stage_seconds"]; p = st["worker_phases"]
    print(f"| {os.path.basename(f)} {v['outcome']} | {st.get('evidence', 0):.1f}, {st['worker']:.1f} | "
          + " | ".join(f"{p.get(k, 0):.2f}" for k in keys) + " |")
PY
