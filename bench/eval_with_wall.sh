#!/usr/bin/env bash
# One `ptxbench eval` in the layout bench/speedup_lines.py reads: the verdict in WORK/NAME.json,
# the command's output in WORK/NAME.txt, its wall seconds in WORK/NAME.wall; prints the wall
# seconds. The caller's environment reaches ptxbench (e.g. PTXBENCH_TIMING_BLOCK).
# Usage (repository root): eval_with_wall.sh BIN SOURCE TASK WORK NAME
set -uo pipefail
bin="$1" source="$2" task="$3" work="$4" name="$5"
t0=$(date +%s.%N)
"$bin/ptxbench" eval "$source" --task "$task" --json-out "$work/$name.json" > "$work/$name.txt" 2>&1
python3 -c "import sys; print(f'{float(sys.argv[1]) - float(sys.argv[2]):.2f}')" \
  "$(date +%s.%N)" "$t0" > "$work/$name.wall"
cat "$work/$name.wall"
