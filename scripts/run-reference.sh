#!/usr/bin/env bash
# The README's main job: installs what is missing, builds, and runs every task's expert solution
# (kernels/reference/<task id with / and - as _>.cu) through the whole pipeline, then prints a
# verdict table. Without a GPU only the static stage runs, and the table says so.
# Verdicts are written to ${PTXBENCH_RESULTS:-results/reference}/<task>.json.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
"$root/scripts/build.sh" >/dev/null
ptxbench="$root/build/release/ptxbench"
results="${PTXBENCH_RESULTS:-$root/results/reference}"
mkdir -p "$results"

if ! (command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1); then
  echo "NOTE: no GPU on this machine: only the static stage (compile, PTX/SASS evidence) runs;"
  echo "      correctness and timing need an sm_90a GPU, and the outcome will be 'unavailable'."
fi

mapfile -t tasks < <("$ptxbench" tasks --json | python3 -c 'import json,sys;[print(t["id"]) for t in json.load(sys.stdin)]')
status=0
for task in "${tasks[@]}"; do
  solution="kernels/reference/$(echo "$task" | tr '/-' '__').cu"
  out="$results/$(echo "$task" | tr '/' '_').json"
  if [ ! -f "$solution" ]; then
    echo "no expert solution for $task (expected $solution)" >&2
    status=1
    continue
  fi
  echo "== $task  ($solution)"
  "$ptxbench" eval "$solution" --task "$task" --json-out "$out" || status=1
done
python3 "$root/scripts/verdict_table.py" "$results"/*.json
exit $status
