#!/usr/bin/env bash
# Isolation acceptance: a 20-candidate batch in which every other candidate hangs or crashes must
# end with 20 verdicts, and the passing candidates' speedups must agree within 2% with a batch of
# the same passing candidate and nothing hostile. Usage: bench/isolation_batch.sh BIN_DIR OUT_DIR
# (on the GPU machine; BIN_DIR holds ptxbench and ptxbench-worker). Prints a summary table last.
set -uo pipefail
bin="$(cd "$1" && pwd)"; out="$2"; mkdir -p "$out/clean" "$out/mixed"; out="$(cd "$out" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export PTXBENCH_CALL_DEADLINE_S="${PTXBENCH_CALL_DEADLINE_S:-5}"  # hangs end in seconds
good=kernels/reference/sm90_gemm_bf16_wgmma_tma.cu
task=sm90/gemm/bf16-wgmma-tma
hostile=(tests/adversarial/infinite_loop.cu tests/adversarial/illegal_address.cu)
judge() {  # folder label file task
  "$bin/ptxbench" eval "$3" --task "$4" --no-evidence --json-out "$1/$2.json" > "$1/$2.txt" 2>&1
  echo "$2 exit $?" >> "$1/exits.txt"
}
for i in $(seq -w 1 10); do judge "$out/clean" "good_$i" "$good" "$task"; done
for i in $(seq -w 1 20); do
  if (( 10#$i % 2 == 0 )); then
    judge "$out/mixed" "good_$i" "$good" "$task"
  else
    h="${hostile[$(( (10#$i / 2) % 2 ))]}"
    judge "$out/mixed" "hostile_$i" "$h" sm90/gemm/bf16-wgmma
  fi
done
python3 "$root/bench/summarize_batch.py" "$out/clean" "$out/mixed" | tee "$out/summary.md"
