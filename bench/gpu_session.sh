#!/usr/bin/env bash
# One GPU session: environment, GPU tests, every acceptance evaluation of the GEMM engine and of
# the runtime instruction evidence (adversarial submissions included).
# Usage (on the GPU machine): bench/gpu_session.sh BIN_DIR WORK_DIR; everything it writes is
# also packed into WORK_DIR.tar.gz (the device tool returns at most 8 files).
# BIN_DIR holds ptxbench, ptxbench-worker and ptxbench_gpu_tests built by scripts/build.sh.
# Writes every verdict as JSON plus logs under WORK_DIR and prints a summary table last.
set -uo pipefail
bin="$(cd "$1" && pwd)"; out="$2"; mkdir -p "$out"; out="$(cd "$out" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$root" PTXBENCH_TASKS_DIR="$root/tasks"
export PTXBENCH_CACHE_DIR="$out/cache" PTXBENCH_WORKER_DEADLINE_S="${PTXBENCH_WORKER_DEADLINE_S:-240}"
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  echo "commit ${PTXB_COMMIT:-unknown (set PTXB_COMMIT)}"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv
} | tee "$out/environment.txt"

"$bin/ptxbench_gpu_tests" 2>&1 | tee "$out/gpu_tests.log" | tail -3

summary="$out/summary.tsv"
echo -e "label\toutcome\treason" > "$summary"
eval_one() {  # label file task [extra flags]
  local label="$1" file="$2" task="$3"; shift 3
  local start=$SECONDS
  "$bin/ptxbench" eval "$file" --task "$task" --json-out "$out/$label.json" "$@" \
    > "$out/$label.txt" 2>&1
  local rc=$?
  local outcome reason
  outcome="$(python3 -c "import json;print(json.load(open('$out/$label.json'))['outcome'])" 2>/dev/null || echo "exit$rc")"
  reason="$(python3 -c "import json;print(json.load(open('$out/$label.json'))['reason'][:150])" 2>/dev/null || tail -1 "$out/$label.txt")"
  echo -e "$label\t$outcome\t$reason\t$((SECONDS - start))s" >> "$summary"
}

tma=kernels/reference/sm90_gemm_bf16_wgmma_tma.cu
wg=kernels/reference/sm90_gemm_bf16_wgmma.cu
eval_one expert_tma "$tma" sm90/gemm/bf16-wgmma-tma
eval_one expert_wgmma "$wg" sm90/gemm/bf16-wgmma
eval_one expert_tma_again "$tma" sm90/gemm/bf16-wgmma-tma
eval_one expert_tma_self "$tma" sm90/gemm/bf16-wgmma-tma --self-baseline
tests/e2e/make_edge_bug.sh > "$out/edge_bug.cu" && eval_one edge_bug "$out/edge_bug.cu" sm90/gemm/bf16-wgmma-tma --no-timing
eval_one trap tests/e2e/trap_kernel.cu sm90/gemm/bf16-wgmma-tma --no-timing
eval_one after_trap "$wg" sm90/gemm/bf16-wgmma --no-timing
eval_one broken tests/e2e/does_not_compile.cu sm90/gemm/bf16-wgmma-tma
eval_one naive tests/e2e/naive_gemm.cu sm90/gemm/bf16-wgmma --no-timing

eval_one sm100_expert kernels/reference/sm100_gemm_bf16_tcgen05.cu sm100/gemm/bf16-tcgen05 --no-timing
# Hostile and diagnostic submissions with their expected outcomes (evidence and isolation).
tests/adversarial/run.sh "$bin" "$out/adversarial" > "$out/adversarial.log" 2>&1
# A batch where every other candidate hangs or crashes, against a clean batch.
bench/isolation_batch.sh "$bin" "$out/batch" > "$out/batch.log" 2>&1
# compute-sanitizer over the quick correctness cases of the expert (memcheck, initcheck, racecheck,
# synccheck), each tool at most PTXBENCH_SANITIZE_DEADLINE_S.
PTXBENCH_SANITIZE_DEADLINE_S="${PTXBENCH_SANITIZE_DEADLINE_S:-60}" "$bin/ptxbench" eval "$tma" \
  --task sm90/gemm/bf16-wgmma-tma --no-timing --no-evidence --sanitize \
  --json-out "$out/expert_tma_sanitize.json" > "$out/expert_tma_sanitize.txt" 2>&1

python3 bench/summarize_verdicts.py "$out" > "$out/timing_table.md"
python3 bench/summarize_evidence.py "$out" "$out/adversarial" > "$out/evidence_table.md"
# NOTE: the device tool brings back at most 8 files: pack everything but the compile cache.
tar -C "$out" --exclude=cache -czf "$out.tar.gz" .
grep -E '^\[  (PASSED|FAILED)' "$out/gpu_tests.log"
cat "$out/timing_table.md"
tail -34 "$out/adversarial.log"
grep -E 'sanitizer|outcome|reason' "$out/expert_tma_sanitize.txt"
tail -14 "$out/batch.log"
python3 -c "import sys;[print('  '.join(c.ljust(18) for c in l.rstrip('\n').split('\t'))) for l in open(sys.argv[1])]" "$summary"
