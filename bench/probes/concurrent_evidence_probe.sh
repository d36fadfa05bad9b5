#!/usr/bin/env bash
# Can the evidence run (ncu) share the GPU with another worker's start and correctness stage?
# Judges the TMA GEMM expert's evidence alone (`--no-timing`: correctness, then the ncu run), then
# the same while a second evaluation (`--no-evidence`: correctness and timing, its hardware
# counters from the CUPTI range profiler) runs beside it, started before and after the ncu run.
# Prints per run: outcome, the evidence's GMMA executions and pipe counts per timed shape (they
# must equal the solo run's) and whether the other process's counters opened and matched.
# Usage (GPU machine): bench/probes/concurrent_evidence_probe.sh BIN_DIR OUT_DIR
set -uo pipefail
bin="$(cd "$1" && pwd)"; out="$2"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$root" PTXBENCH_TASKS_DIR="$root/tasks" PTXBENCH_CACHE_DIR="$out/cache"
src=kernels/reference/sm90_gemm_bf16_wgmma_tma.cu task=sm90/gemm/bf16-wgmma-tma
stamp() { date +%s.%N; }
judge() {  # judge LABEL FLAGS...: one evaluation, its start and end times in times.tsv
  local label="$1"; shift
  local t0; t0=$(stamp)
  "$bin/ptxbench" eval "$src" --task "$task" "$@" --json-out "$out/$label.json" \
    > "$out/$label.txt" 2>&1
  echo -e "$label\t$t0\t$(stamp)" >> "$out/times.tsv"
}
"$bin/ptxbench" eval "$src" --task "$task" --no-timing --no-evidence > /dev/null 2>&1  # compile
: > "$out/times.tsv"
judge evidence_solo --no-timing
judge timing_solo --no-evidence
# The timing evaluation first, the evidence run starting during its timing.
judge timing_a --no-evidence & sleep 4; judge evidence_a --no-timing; wait
# The evidence evaluation first, the other worker starting (range profiler, controls) and
# checking correctness while ncu profiles.
judge evidence_b --no-timing & sleep 1.5; judge timing_b --no-evidence; wait
judge evidence_c --no-timing & sleep 3; judge timing_c --no-evidence; wait
python3 - "$out" <<'EOF'
import json, sys
out = sys.argv[1]
times = {l.split()[0]: (float(l.split()[1]), float(l.split()[2])) for l in open(f"{out}/times.tsv")}
def load(label):
    try:
        return json.load(open(f"{out}/{label}.json"))
    except Exception as e:
        return {"outcome": f"no verdict ({e})"}
def evidence_counts(v):  # ncu's counters and target executions per profiled call
    return [json.dumps([c.get("counters"), [t.get("executed") for t in c.get("targets", [])]],
                       sort_keys=True) for c in v.get("evidence", {}).get("calls", [])]
def range_counts(v):  # the range profiler's groups of equal counts per timed shape
    return [json.dumps([g["values"] for g in s.get("groups", [])])
            for s in v.get("counters", {}).get("shapes", [])]
solo_e, solo_r = evidence_counts(load("evidence_solo")), range_counts(load("timing_solo"))
t0 = min(a for a, _ in times.values())
print("| run | outcome | start s | end s | counts as solo | counters opened | evidence s |")
print("|---|---|---|---|---|---|---|")
for label, (a, b) in times.items():
    v = load(label)
    ev = label.startswith("evidence")
    counts = evidence_counts(v) if ev else range_counts(v)
    same = "-" if not counts else ("yes" if counts == (solo_e if ev else solo_r) else "NO")
    opened = "-" if ev else v.get("counters", {}).get("setup", {}).get("ok")
    secs = v.get("stage_seconds", {}).get("evidence", "-")
    print(f"| {label} | {v.get('outcome')} | {a - t0:.1f} | {b - t0:.1f} | {same} | {opened} | {secs} |")
EOF
