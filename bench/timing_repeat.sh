#!/usr/bin/env bash
# Repeatability of speedups (issue 6's "run matches eval within 2%"): `ptxbench eval` of the two
# GEMM experts N times, then `ptxbench run --model reference --tasks sm90/gemm` once; prints,
# per shape, every eval's speedup, their spread, and the run's. Usage, from the repository root:
#   bench/timing_repeat.sh BIN_DIR OUT_DIR [N=3]
set -uo pipefail
bin="$(cd "$1" && pwd)"; out="$2"; repeats="${3:-3}"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PATH="/usr/local/cuda/bin:$PATH"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR="$out/cache"
for i in $(seq 1 "$repeats"); do
  for t in wgmma wgmma_tma; do
    "$bin/ptxbench" eval "kernels/reference/sm90_gemm_bf16_$t.cu" \
      --task "sm90/gemm/bf16-${t//_/-}" --no-evidence --json-out "$out/eval_${t}_$i.json" \
      > "$out/eval_${t}_$i.txt" 2>&1
  done
done
"$bin/ptxbench" run --model reference --tasks sm90/gemm --run-name again --db "$out/runs.db" \
  > "$out/run.log" 2>&1
"$bin/ptxbench" export --db "$out/runs.db" -o "$out/export.jsonl"
python3 - "$out" <<'PY'
import glob, json, sys
out = sys.argv[1]
rows = {}
for f in sorted(glob.glob(f"{out}/eval_*.json")):
    name = f.split("eval_")[1].rsplit("_", 1)[0]
    for t in json.load(open(f))["timing"]:
        key = (name, " ".join(f"{k}={v}" for k, v in t["shape"].items()))
        rows.setdefault(key, {"eval": [], "run": [], "samples": []})
        rows[key]["eval"].append(t["speedup"]["median"])
        rows[key]["samples"].append(t["samples"])
for line in open(f"{out}/export.jsonl"):
    a = json.loads(line)
    name = a["task"].split("/")[-1].replace("bf16-", "").replace("-", "_")
    for t in a["evaluation"]["verdict"]["timing"]:
        key = (name, " ".join(f"{k}={v}" for k, v in t["shape"].items()))
        rows.setdefault(key, {"eval": [], "run": [], "samples": []})["run"].append(t["speedup"]["median"])
print("| expert | shape | rounds | evals | spread | run | run vs eval mean |")
print("|---|---|---|---|---|---|---|")
for (name, shape), r in sorted(rows.items()):
    ev = r["eval"]; mean = sum(ev) / len(ev)
    spread = (max(ev) - min(ev)) / min(ev) * 100
    run = ", ".join(f"{x:.3f}" for x in r["run"])
    diff = ", ".join(f"{(x / mean - 1) * 100:+.2f}%" for x in r["run"])
    print(f"| {name} | {shape} | {r['samples']} | {', '.join(f'{x:.3f}' for x in ev)} | "
          f"{spread:.2f}% | {run} | {diff} |")
PY
