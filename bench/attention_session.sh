#!/usr/bin/env bash
# One GPU session for the attention work (issue 5). Usage (on the GPU machine, repository root):
#   bench/attention_session.sh BIN_DIR WORK_DIR [PARTS]
# PARTS (default "tests dev eval gemm bug self"):
#   tests  GPU tests of the attention reference and the cuDNN baseline
#   dev    the expert kernels' dev harnesses (bench/attention_dev); dev_fwd / dev_bwd: one
#   eval   ptxbench eval of both expert solutions, every stage; eval_fwd / eval_bwd: one
#   bug    the forward expert without its diagonal causal mask (must be incorrect)
#   gemm   the GEMM TMA expert, every stage (the GEMM path after the attention changes)
#   self   cuDNN timed against itself per timed shape, its outputs checked (ptxbench-baseline-self)
# BIN_DIR holds ptxbench, ptxbench-worker, ptxbench_gpu_tests and ptxbench-baseline-self.
# Everything lands under WORK_DIR; a summary table is printed last.
set -uo pipefail
bin="$(cd "$1" && pwd)"; out="$2"; parts="${3:-tests dev eval gemm bug self}"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export PATH="/usr/local/cuda/bin:$PATH"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$root" PTXBENCH_TASKS_DIR="$root/tasks"
export PTXBENCH_CACHE_DIR="$out/cache" PTXBENCH_WORKER_DEADLINE_S="${PTXBENCH_WORKER_DEADLINE_S:-400}"
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  echo "commit ${PTXB_COMMIT:-unknown (set PTXB_COMMIT)}"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv
  ls -l /usr/lib/x86_64-linux-gnu/libcudnn.so.9* 2>/dev/null
} > "$out/environment.txt" 2>&1
summary="$out/summary.tsv"
: > "$summary"
note() { echo -e "$*" >> "$summary"; }
has() { [[ " $parts " == *" $1 "* ]]; }

if has tests; then
  start=$SECONDS
  timeout 300 "$bin/ptxbench_gpu_tests" --gtest_filter='*Attention*:*Cudnn*:*Verify*' \
    > "$out/gpu_tests.log" 2>&1
  note "gpu_tests\trc=$?\t$(grep -E '^\[  (PASSED|FAILED)  \]' "$out/gpu_tests.log" | tr '\n' ' ')\t$((SECONDS - start))s"
fi
if has dev || has dev_fwd || has dev_bwd; then
  for pass in fwd bwd; do
    has dev || has "dev_$pass" || continue
    start=$SECONDS
    timeout 420 "bench/attention_dev/${pass}_dev.sh" "$out/dev_$pass" > "$out/dev_$pass.log" 2>&1
    note "dev_$pass\trc=$?\tsee dev_$pass.log\t$((SECONDS - start))s"
  done
fi
if has eval || has eval_fwd || has eval_bwd; then
  for pass in fwd bwd; do
    has eval || has "eval_$pass" || continue
    start=$SECONDS
    "$bin/ptxbench" eval "kernels/reference/sm90_attention_${pass}_bf16.cu" \
      --task "sm90/attention/${pass}-bf16" --json-out "$out/expert_$pass.json" \
      > "$out/expert_$pass.txt" 2>&1
    rc=$?
    outcome="$(python3 -c "import json;v=json.load(open('$out/expert_$pass.json'));print(v['outcome'],'|',v['reason'][:160])" 2>/dev/null || echo "exit $rc")"
    note "expert_$pass\t$outcome\t$((SECONDS - start))s"
  done
fi
if has gemm; then
  # The GEMM path after the attention changes: the TMA expert must still pass.
  start=$SECONDS
  "$bin/ptxbench" eval kernels/reference/sm90_gemm_bf16_wgmma_tma.cu --task sm90/gemm/bf16-wgmma-tma \
    --json-out "$out/gemm_tma.json" > "$out/gemm_tma.txt" 2>&1
  note "gemm_tma\t$(python3 -c "import json;v=json.load(open('$out/gemm_tma.json'));print(v['outcome'],'|',v['reason'][:160])" 2>/dev/null || echo "exit $?")\t$((SECONDS - start))s"
fi
if has bug; then
  # The forward expert without the causal mask on the diagonal tile: must be incorrect.
  tests/e2e/make_causal_diag_bug.sh > "$out/causal_diag_bug.cu"
  start=$SECONDS
  "$bin/ptxbench" eval "$out/causal_diag_bug.cu" --task sm90/attention/fwd-bf16 --no-timing \
    --no-evidence --json-out "$out/causal_diag_bug.json" > "$out/causal_diag_bug.txt" 2>&1
  note "causal_diag_bug\t$(python3 -c "import json;v=json.load(open('$out/causal_diag_bug.json'));print(v['outcome'],'|',v['reason'][:160])" 2>/dev/null || echo "exit $?")\t$((SECONDS - start))s"
fi
if has self; then
  for pass in fwd bwd; do
    start=$SECONDS
    timeout 300 "$bin/ptxbench-baseline-self" "sm90/attention/${pass}-bf16" 30 \
      > "$out/cudnn_self_$pass.json" 2> "$out/cudnn_self_$pass.log"
    note "cudnn_self_$pass\trc=$?\t$(tr '\n' ';' < "$out/cudnn_self_$pass.log" | cut -c1-400)\t$((SECONDS - start))s"
  done
fi
for pass in fwd bwd; do
  [ -f "$out/expert_$pass.json" ] && python3 bench/summarize_verdicts.py "$out" > "$out/timing_table.md" 2>/dev/null
done
echo "== $out"; cat "$summary"
[ -f "$out/timing_table.md" ] && cat "$out/timing_table.md"
for pass in fwd bwd; do [ -f "$out/dev_$pass.log" ] && { echo "== dev_$pass (tail)"; tail -25 "$out/dev_$pass.log"; }; done
exit 0
