#!/usr/bin/env bash
# Call 4: the sustained regime in whole order-balanced pairs with the noisy-shape rule (this
# session's change): GPU tests, then the TMA GEMM expert judged 3 times and the attention
# forward and backward experts once (each with its slowed variant), compile cached.
# Usage (repository root, GPU machine): call4/call4.sh BIN_DIR OUT
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks"
timeout 200 "$bin/ptxbench_gpu_tests" > "$out/gputests.log" 2>&1; echo "gputests exit $?"
timeout -k 5 200 bench/judging_speed.sh "$bin" "$out/tma" 3 tma > "$out/tma.log" 2>&1
echo "tma exit $?"
timeout -k 5 170 bench/judging_speed.sh "$bin" "$out/attn" 1 fwd,bwd > "$out/attn.log" 2>&1
echo "attn exit $?"
rm -rf "$out/tma/cache" "$out/attn/cache"
tar -C "$out" -czf "$out/call4.tar.gz" --exclude=call4.tar.gz .
grep -E "^\[  (PASSED|FAILED)|FAILED  \]" "$out/gputests.log" | head -20
cat "$out/tma/table.md" "$out/attn/table.md" | grep -v "^| file | outcomes\|^|---|---|---|---|---|---|---|---|---|"
python3 - "$out" <<'PY'
import json, sys, glob, os
for f in sorted(glob.glob(sys.argv[1] + "/*/*.json")):
    v = json.load(open(f))
    row = [f"{t['sustained']['speedup']['median']:.3f}({t['sustained']['samples']})" if t.get('sustained') and 'speedup' in t['sustained'] else '-' for t in v.get('timing', [])]
    print(os.path.basename(f), v['outcome'], f"{v['stage_seconds'].get('worker', 0):.1f}", ' '.join(row))
PY
