#!/usr/bin/env bash
# Call 5: as call 4 with the sustained rule at its own 2% threshold (PTXBENCH_SUSTAINED_CI_PERMILLE
# default 20), no GPU tests: the TMA GEMM expert judged 3 times and the attention
# forward and backward experts once (each with its slowed variant), compile cached.
# Usage (repository root, GPU machine): call5/call5.sh BIN_DIR OUT
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks"
timeout -k 5 200 bench/judging_speed.sh "$bin" "$out/tma" 3 tma > "$out/tma.log" 2>&1
echo "tma exit $?"
timeout -k 5 260 bench/judging_speed.sh "$bin" "$out/attn" 1 fwd,bwd > "$out/attn.log" 2>&1
echo "attn exit $?"
rm -rf "$out/tma/cache" "$out/attn/cache"
tar -C "$out" -czf "$out/call5.tar.gz" --exclude=call5.tar.gz .
cat "$out/tma/table.md" "$out/attn/table.md" | grep -v "^| file | outcomes\|^|---|---|---|---|---|---|---|---|---|"
python3 - "$out" <<'PY'
import json, sys, glob, os
for f in sorted(glob.glob(sys.argv[1] + "/*/*.json")):
    v = json.load(open(f))
    row = [f"{t['sustained']['speedup']['median']:.3f}({t['sustained']['samples']})" if t.get('sustained') and 'speedup' in t['sustained'] else '-' for t in v.get('timing', [])]
    print(os.path.basename(f), v['outcome'], f"{v['stage_seconds'].get('worker', 0):.1f}", ' '.join(row))
PY
