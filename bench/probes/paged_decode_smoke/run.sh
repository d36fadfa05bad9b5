#!/usr/bin/env bash
# The paged decode family end to end before it has an expert: a temporary tasks folder (the
# repository's tasks plus decode-paged-smoke.toml, the unit tests' fixture task with its first
# shape timed) and `ptxbench eval` of the SIMT candidate simt_candidate.cu, without the evidence
# stage. The worker's paged module draws the lengths and the shuffled table, computes the fp64
# reference, plans cuDNN's paged SDPA and times both; the verdict is `instruction_missing` (no
# wgmma, by design), its correctness and timing records are what this checks. Then the expert
# (with the evidence stage), which should pass. Prints a summary of both.
# Usage (GPU machine, repository root): bench/probes/paged_decode_smoke/run.sh BIN_DIR OUT_DIR
set -euo pipefail
bin="$(cd "$1" && pwd)" out="$2"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$out/tasks"; out="$(cd "$out" && pwd)"
cp -r tasks/. "$out/tasks/"
mkdir -p "$out/tasks/sm90/attention/decode-paged-smoke"
cp "$here/decode-paged-smoke.toml" "$out/tasks/sm90/attention/decode-paged-smoke/task.toml"
echo "Paged decode smoke task (not a task of the suite)." > "$out/tasks/sm90/attention/decode-paged-smoke/prompt.md"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$out/tasks" PTXBENCH_CACHE_DIR="$out/cache"
"$bin/ptxbench" eval "$here/simt_candidate.cu" --task sm90/attention/decode-paged-smoke \
  --no-evidence --json-out "$out/smoke.json" > "$out/smoke.txt" 2>&1 || true
# The expert (kernels/reference/sm90_attention_decode_paged.cu), with the evidence stage.
"$bin/ptxbench" eval kernels/reference/sm90_attention_decode_paged.cu \
  --task sm90/attention/decode-paged-smoke --json-out "$out/expert.json" > "$out/expert.txt" 2>&1 ||
  true
for verdict in "$out/smoke.json" "$out/expert.json"; do
python3 - "$verdict" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
print(sys.argv[1].split("/")[-1], "outcome", v["outcome"], "|", v["reason"][:160])
c = v.get("correctness") or {}
print("correctness", c.get("passed"), "of", c.get("total"))
for case in [x for x in c.get("cases", []) if not x.get("passed")][:3]:
    print("  failed case", json.dumps(case)[:300])
for t in v.get("timing", []):
    bp = t.get("baseline_plan", {})
    med = lambda x: (x or {}).get("median")
    print(t.get("label"), "| verified", t.get("verified"), "| speedup", med(t.get("speedup")),
          "| candidate us", med(t.get("candidate")), "| cudnn us", med(t.get("baseline")),
          "| cudnn plan", bp.get("chosen_name"), bp.get("error", ""), t.get("error", ""))
PY
done
