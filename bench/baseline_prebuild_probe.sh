#!/usr/bin/env bash
# Does building the library's plans ahead in threads (the worker's start-up prebuild) change how
# fast the library runs? ptxbench-baseline-self on TASK, N fresh processes with --prebuild and N
# without, alternating; prints the library's median microseconds per timed shape and run.
# Written for the cuDNN backward anomaly of bench/results/2026-12-02-h200-session-968781b
# (hidden shape B=2 H=8 S=1000 D=128: 64 µs in most runs, 79 and 97 µs in two), which turned out
# to be the timing's dependence on the call's place in the round, not the prebuild
# (bench/summarize_round_order.py, docs/timing.md); kept to compare the two ways of planning.
# Usage (GPU machine, repository root): bench/baseline_prebuild_probe.sh BIN_DIR OUT [N] [TASK]
set -uo pipefail
bin="$1" out="$2" n="${3:-5}" task="${4:-sm90/attention/bwd-bf16}"
mkdir -p "$out"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_TASKS_DIR="$PWD/tasks"
for i in $(seq 1 "$n"); do
  for mode in plain prebuild; do
    flag=(); [[ "$mode" == prebuild ]] && flag=(--prebuild)
    timeout 300 "$bin/ptxbench-baseline-self" "$task" 20 "${flag[@]}" \
      > "$out/${mode}_$i.json" 2> "$out/${mode}_$i.log"
  done
done
python3 - "$out" <<'PY'
import glob, json, os, sys
rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*_*.json"))):
    mode = os.path.basename(f).split("_")[0]
    try:
        r = json.load(open(f))
    except Exception as e:
        print(f, "unreadable:", e); continue
    for s in r["shapes"]:
        key = json.dumps(s["shape"], sort_keys=True)
        us = s.get("first_us", {}).get("median")
        name = s.get("plan", {}).get("chosen_name", "?")
        rows.setdefault(key, {}).setdefault(mode, []).append(f"{us:.1f} ({name})" if us else "error")
for key, modes in rows.items():
    print(key)
    for mode, values in sorted(modes.items()):
        print(f"  {mode:9s} " + " | ".join(values))
PY
