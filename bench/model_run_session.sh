#!/usr/bin/env bash
# The model-run acceptance on a GPU machine (issue 6). Usage, from the repository root:
#   bench/model_run_session.sh BIN_DIR WORK_DIR
# 1. `ptxbench run --model reference` over every sm_90a task (expert solutions, every stage);
# 2. a scripted model (replay of tests/e2e/make_repair_replay.py) that fails turn 1 and fixes
#    the kernel in turn 2;
# 3. `ptxbench report` and `ptxbench export` of both runs;
# 4. `ptxbench eval --no-evidence` of every expert, to compare the run's speedups with eval's;
# then bench/summarize_model_run.py prints success, speedup agreement and judging overhead.
set -uo pipefail
bin="$(cd "$1" && pwd)"; out="$2"; mkdir -p "$out"; out="$(cd "$out" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export PATH="/usr/local/cuda/bin:$PATH"
export PTXBENCH_HOME="$root" PTXBENCH_TASKS_DIR="$root/tasks" PTXBENCH_CACHE_DIR="$out/cache"
db="$out/runs.db"
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  echo "commit ${PTXB_COMMIT:-unknown (set PTXB_COMMIT)}"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
} > "$out/environment.txt" 2>&1

"$bin/ptxbench" run --model reference --tasks sm90 --run-name reference --db "$db" \
  > "$out/run_reference.log" 2>&1
echo "run reference: exit $?" | tee -a "$out/summary.txt"
tests/e2e/make_repair_replay.py > "$out/repair_replay.jsonl"
"$bin/ptxbench" run --model replay --replay "$out/repair_replay.jsonl" \
  --tasks sm90/gemm/bf16-wgmma-tma --turns 2 --run-name scripted-repair --db "$db" \
  > "$out/run_scripted.log" 2>&1
echo "run scripted-repair: exit $?" | tee -a "$out/summary.txt"
"$bin/ptxbench" report --db "$db" --out "$out/report" > "$out/report.log" 2>&1
"$bin/ptxbench" report --db "$db" --out "$out/report_by_run" --by-run > /dev/null 2>&1
"$bin/ptxbench" export --db "$db" -o "$out/export.jsonl" 2>> "$out/summary.txt"
for solution in kernels/reference/sm90_*.cu; do
  name="$(basename "$solution" .cu)"
  task="$(python3 -c "import sys;n=sys.argv[1];a,f,rest=n.split('_',2);print(a+'/'+f+'/'+rest.replace('_','-'))" "$name")"
  "$bin/ptxbench" eval "$solution" --task "$task" --no-evidence --json-out "$out/eval_$name.json" \
    > "$out/eval_$name.txt" 2>&1
done
python3 bench/summarize_model_run.py "$out" | tee "$out/summary.md"
