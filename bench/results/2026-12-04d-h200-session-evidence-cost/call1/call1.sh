#!/usr/bin/env bash
# Call 1: where the evidence run's seconds go (bench/probes/ncu_cost_probe.sh on the TMA GEMM and
# attention backward experts), then the TMA GEMM judged 3 times with 30 sustained rounds (the
# sustained regime's agreement between evaluations at 8192^3) and the timing set-up's new spans.
# Usage (repository root, GPU machine): call1/call1.sh BIN_DIR OUT
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt"
ncu --version >> "$out/gpu.txt" 2>&1
timeout -k 5 300 bench/probes/ncu_cost_probe.sh "$bin" "$out/ncu" tma,bwd > "$out/ncu.log" 2>&1
echo "ncu probe exit $?"
PTXBENCH_SUSTAINED_ROUNDS=30 JUDGING_CACHE_DIR="$out/ncu/cache" timeout -k 5 200 \
  bench/judging_speed.sh "$bin" "$out/sustained30" 3 tma > "$out/sustained30.log" 2>&1
echo "sustained exit $?"
rm -rf "$out/ncu/cache" "$out/sustained30/cache"
tar -C "$out" -czf "$out/call1.tar.gz" --exclude=call1.tar.gz .
tail -25 "$out/ncu.log"
cat "$out/sustained30/table.md"
python3 - "$out/sustained30" <<'PY'
import json, sys, glob, os
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    v = json.load(open(f)); p = v["stage_seconds"]["worker_phases"]
    print(os.path.basename(f), v["outcome"], "setup.sets %.2f plan %.2f" % (p.get("timing.setup.sets", 0), p.get("timing.setup.library_plan", 0)),
          [(round(t["speedup"]["median"], 3), round((t.get("sustained") or {}).get("speedup", {}).get("median", 0), 3)) for t in v.get("timing", [])])
PY
