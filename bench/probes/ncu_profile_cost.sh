#!/usr/bin/env bash
# Runs bench/probes/ncu_profile_cost.cu plain and under ncu with the evidence stage's metric list
# (src/eval/ncu_evidence.cpp, evidence_ncu_metrics, for an sm90 task), with the opcode metric
# alone, and with --cache-control none. Usage (GPU machine): bench/probes/ncu_profile_cost.sh OUT
set -uo pipefail
out="$1"; mkdir -p "$out"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
nvcc -O2 -arch=sm_90a -o "$out/ncu_profile_cost" "$here/ncu_profile_cost.cu" || exit 1
opcodes=sass__inst_executed_per_opcode_with_modifier_all
all="$opcodes,gpu__time_duration.sum,sm__inst_executed_pipe_tensor_op_gmma.sum"
all+=",sm__inst_executed_pipe_tensor_op_hmma.sum,sm__inst_executed_pipe_fma.sum"
all+=",sm__inst_executed_pipe_fp64.sum"
for op in ffma fmul fadd hfma hmul hadd dfma dmul dadd; do
  all+=",smsp__sass_thread_inst_executed_op_${op}_pred_on.sum"
done
run() {  # label, then the ncu arguments (none: plain)
  local label="$1"; shift
  echo "== $label"
  if [[ $# -eq 0 ]]; then
    /usr/bin/time -f "wall %e" "$out/ncu_profile_cost"
  else
    /usr/bin/time -f "wall %e" ncu --clock-control none --profile-from-start off "$@" --csv \
      --log-file "$out/${label// /_}.csv" "$out/ncu_profile_cost"
  fi
}
{
  run plain
  run "all metrics" --metrics "$all"
  run "opcode metric only" --metrics "$opcodes"
  run "all metrics, cache-control none" --cache-control none --metrics "$all"
} > "$out/ncu_profile_cost.txt" 2>&1
cat "$out/ncu_profile_cost.txt"
