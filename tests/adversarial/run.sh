#!/usr/bin/env bash
# Runs the adversarial submissions through `ptxbench eval` and checks each verdict against the
# `// ptxbench-expect: task=T outcome=O [target=I] [timing=yes] [max_speedup=X] [samples=N]
# [max_cases=C] [verdict_lacks=S]` line at the top of its file. With target=, the verdict's
# targets[] must also hold a row for instruction I with met == false; with max_speedup=, every
# timed shape's median speedup must be below X; with max_cases=, the worker must have judged at
# most C correctness cases (a violation ends it at once); with verdict_lacks=, the verdict's JSON
# text must not contain S (text the candidate tried to smuggle in). Files are judged with
# --no-timing unless they say timing=yes (their cheat shows only in timed rounds); samples=N
# times at least N calls a shape (PTXBENCH_TIMING_SAMPLES) whatever the caller's environment says
# (a cheat that needs several rounds to act).
# A control submission (an expert solution, expected `passed`) runs once first and once last, so
# that a broken harness or machine shows up as a failed control instead of a row of "expected"
# failures.
#
# Usage: tests/adversarial/run.sh BIN_DIR OUT_DIR [FILES...]
#   BIN_DIR   folder holding the ptxbench executable (e.g. build/release)
#   OUT_DIR   receives <name>.json (verdict), <name>.log (eval stdout+stderr), summary.tsv (its
#             last column: each evaluation's wall seconds)
#   FILES     submissions to run (default: every tests/adversarial/*.cu)
# Environment:
#   PTXB_CONTROL       control submission (default kernels/reference/sm90_gemm_bf16_wgmma_tma.cu)
#   PTXB_CONTROL_TASK  its task (default sm90/gemm/bf16-wgmma-tma)
#   PTXB_EVAL_EXTRA    extra arguments for every `ptxbench eval` (word-split), e.g. --no-evidence
#   PTXB_PRECOMPILE_JOBS  compiles at once before the first evaluation (default: the CPU count;
#                      0 or 1: none): every file's static stage with the GPU hidden
#                      (CUDA_VISIBLE_DEVICES=), so each evaluation finds its compile cached
# Exit status: 0 every verdict as expected, 1 any mismatch, 2 bad usage.
set -uo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 BIN_DIR OUT_DIR [FILES...]" >&2
  exit 2
fi

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN_DIR="$(cd "$1" 2>/dev/null && pwd)" || { echo "no such BIN_DIR: $1" >&2; exit 2; }
PTXBENCH="$BIN_DIR/ptxbench"
[[ -x "$PTXBENCH" ]] || { echo "not an executable: $PTXBENCH" >&2; exit 2; }
mkdir -p "$2" || exit 2
OUT_DIR="$(cd "$2" && pwd)"
shift 2

abs_path() {  # a path given relative to the caller's folder, made absolute
  if [[ "$1" = /* ]]; then echo "$1"; else echo "$PWD/$1"; fi
}

FILES=()
if [[ $# -gt 0 ]]; then
  for f in "$@"; do FILES+=("$(abs_path "$f")"); done
else
  for f in "$ROOT"/tests/adversarial/*.cu; do FILES+=("$f"); done
fi
CONTROL="$(abs_path "${PTXB_CONTROL:-$ROOT/kernels/reference/sm90_gemm_bf16_wgmma_tma.cu}")"
CONTROL_TASK="${PTXB_CONTROL_TASK:-sm90/gemm/bf16-wgmma-tma}"
read -r -a EXTRA <<<"${PTXB_EVAL_EXTRA:-}"

[[ -d "$ROOT/.tools/bin" ]] && export PATH="$ROOT/.tools/bin:$PATH"
cd "$ROOT" || exit 2

SUMMARY="$OUT_DIR/summary.tsv"
printf 'name\tfile\ttask\texpected\tgot\tok\treason\tseconds\n' >"$SUMMARY"
TOTAL=0
GOOD=0

# NOTE: fields travel separated by US (0x1f), not tabs: `read` merges runs of IFS whitespace, so an
# empty field between tabs would shift the others.
US=$'\x1f'

# Prints "task US outcome US target" from the file's ptxbench-expect line, or nothing.
read_expectation() {
  python3 - "$1" <<'EOF'
import re, sys
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    m = re.match(r"\s*//\s*ptxbench-expect:\s*(.*)$", line)
    if m:
        fields = dict(kv.split("=", 1) for kv in m.group(1).split() if "=" in kv)
        keys = ("task", "outcome", "target", "timing", "max_speedup", "samples", "max_cases",
                "verdict_lacks")
        print("\x1f".join(fields.get(k, "") for k in keys))
        break
EOF
}

# Prints "got US ok US reason" for a verdict JSON against an expected outcome, target, speedup
# bound, case count and text it must lack.
judge_verdict() {
  python3 - "$1" "$2" "$3" "${4:-}" "${5:-}" "${6:-}" <<'EOF'
import json, sys
path, want_outcome, want_target, max_speedup, max_cases, lacks = sys.argv[1:7]
try:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    v = json.loads(text)
except (OSError, ValueError) as e:
    msg = f"cannot read {path}: {e}".replace("\t", " ").replace("\n", " ")
    print(f"no-verdict\x1fno\x1f{msg}")
    sys.exit(0)
outcome = str(v.get("outcome", "?"))
reason = str(v.get("reason", "")).replace("\t", " ").replace("\n", " ")
got = outcome
ok = outcome == want_outcome
if want_target:
    rows = [t for t in v.get("targets", []) if t.get("instruction") == want_target]
    if not rows:
        got += f"[{want_target}:absent]"
        ok = False
    else:
        met = rows[0].get("met")
        got += f"[{want_target}:met={json.dumps(met)}]"
        ok = ok and met is False
if max_speedup:
    speedups = [t["speedup"]["median"] for t in v.get("timing", []) if "speedup" in t]
    top = max(speedups) if speedups else None
    got += f"[speedup<{max_speedup}:max={'none' if top is None else f'{top:.3f}'}]"
    ok = ok and top is not None and top < float(max_speedup)
if max_cases:
    cases = len((v.get("correctness") or {}).get("cases", []))
    got += f"[cases<={max_cases}:{cases}]"
    ok = ok and cases <= int(max_cases)
if lacks:
    found = lacks in text
    got += f"[lacks {lacks}:{'no' if found else 'yes'}]"
    ok = ok and not found
print(f"{got}\x1f{'yes' if ok else 'no'}\x1f{reason}")
EOF
}

# run_case NAME FILE TASK OUTCOME TARGET [TIMING] [MAX_SPEEDUP] [SAMPLES] [MAX_CASES] [LACKS]
run_case() {
  local name="$1" file="$2" task="$3" outcome="$4" target="$5" timing="${6:-}" max="${7:-}"
  local samples="${8:-}" max_cases="${9:-}" lacks="${10:-}"
  local timing_flag=(--no-timing)
  [[ "$timing" == "yes" ]] && timing_flag=()
  local env_set=()
  [[ -n "$samples" ]] && env_set=(env "PTXBENCH_TIMING_SAMPLES=$samples")
  local json="$OUT_DIR/$name.json" log="$OUT_DIR/$name.log"
  local expected="$outcome${target:+[$target:met=false]}${max:+[speedup<$max]}"
  expected+="${max_cases:+[cases<=$max_cases]}${lacks:+[lacks $lacks:yes]}"
  local got ok reason rc start=$SECONDS
  rm -f "$json"
  if [[ ! -f "$file" ]]; then
    got="no-file"; ok="no"; reason="no such file: $file"; expected="${expected:-?}"
  elif [[ -z "$task" || -z "$outcome" ]]; then
    got="no-expect-line"; ok="no"; reason="missing or incomplete // ptxbench-expect: line"
    expected="?"
  else
    echo "[run] $name ($task)" >&2
    "${env_set[@]}" "$PTXBENCH" eval "$file" --task "$task" "${timing_flag[@]}" --json-out "$json" \
      "${EXTRA[@]}" >"$log" 2>&1
    rc=$?
    if [[ $rc -ne 0 ]]; then
      got="eval-exit-$rc"; ok="no"; reason="ptxbench eval exited $rc (see $log)"
    else
      IFS="$US" read -r got ok reason < <(judge_verdict "$json" "$outcome" "$target" "$max" \
        "$max_cases" "$lacks")
    fi
    # A worker that found no GPU where the run expects one: what held the GPU, for the record
    # (one run lost its GPU for the rest of the files after a hostile submission).
    if [[ "$reason" == *"no CUDA device is available"* ]] && command -v nvidia-smi >/dev/null; then
      { echo "---- after $name: no GPU for the worker ----"; date -u +%T; nvidia-smi
        ps -eo pid,ppid,user,stat,etime,args; } >>"$OUT_DIR/gpu-lost.log" 2>&1
    fi
  fi
  TOTAL=$((TOTAL + 1))
  [[ "$ok" == "yes" ]] && GOOD=$((GOOD + 1))
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "${file#"$ROOT"/}" "$task" "$expected" \
    "$got" "$ok" "$reason" "$((SECONDS - start))" >>"$SUMMARY"
}

# Fills the compile cache (its key holds source, flags, nvcc and the ABI header, nothing of the
# GPU) for every file and the control, PTXB_PRECOMPILE_JOBS at once: with the GPU hidden,
# `ptxbench eval` stops after its static stage. The serial evaluations then skip their compiles
# (on an H100 in session 2026-12-07f: 76 files in 34 s on 16 cores; compiles had been about a
# third of the generated cheats' wall time). Failures are left to the evaluation that follows.
# No candidate code runs here: the worker finds no GPU before it loads the shared object.
precompile_all() {
  local jobs="${PTXB_PRECOMPILE_JOBS:-$(nproc)}"
  [[ "$jobs" =~ ^[0-9]+$ ]] && ((jobs > 1)) || return 0
  local i task start=$SECONDS
  # shellcheck disable=SC2016  # $0, $1, $2 belong to the inner shell
  {
    [[ -f "$CONTROL" ]] && printf '%s\0%s\0' "$CONTROL" "$CONTROL_TASK"
    for i in "${!FILES[@]}"; do
      task="${EXPECTATIONS[i]%%"$US"*}"
      [[ -n "$task" ]] && printf '%s\0%s\0' "${FILES[i]}" "$task"
    done
  } | CUDA_VISIBLE_DEVICES='' xargs -0 -n 2 -P "$jobs" sh -c \
    '"$0" eval "$1" --task "$2" --no-timing >/dev/null 2>&1; exit 0' "$PTXBENCH"
  echo "[run] precompile of $((${#FILES[@]} + 1)) files, $jobs at once: $((SECONDS - start)) s" >&2
}

# Each file's expect line, read once (read_expectation's output; "" when it has none).
EXPECTATIONS=()
for f in "${FILES[@]}"; do
  EXPECTATIONS+=("$(read_expectation "$f" 2>/dev/null || true)")
done

precompile_all
run_case control-start "$CONTROL" "$CONTROL_TASK" passed ""
for i in "${!FILES[@]}"; do
  f="${FILES[i]}"
  name="$(basename "$f" .cu)"
  task="" outcome="" target="" timing="" max="" samples="" max_cases="" lacks=""
  IFS="$US" read -r task outcome target timing max samples max_cases lacks \
    <<<"${EXPECTATIONS[i]}"
  run_case "$name" "$f" "${task:-}" "${outcome:-}" "${target:-}" "${timing:-}" "${max:-}" \
    "${samples:-}" "${max_cases:-}" "${lacks:-}"
done
run_case control-end "$CONTROL" "$CONTROL_TASK" passed ""

python3 - "$SUMMARY" <<'EOF'
import csv, sys
with open(sys.argv[1], encoding="utf-8") as f:
    rows = [[r[0], r[3], r[4], r[5]] for r in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)]
rows[0] = ["file", "expected", "got", "ok"]
widths = [max(len(r[i]) for r in rows) for i in range(4)]
for r in rows:
    print("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip())
EOF
echo "$GOOD/$TOTAL as expected"
[[ $GOOD -eq $TOTAL ]]
