#!/usr/bin/env bash
# Runs the range-profiler probe on the GPU machine and the Nsight Compute queries that fix the
# metric names of the evidence checks. Usage: bench/probes/range_profiler_probe.sh BIN_DIR EXPERT_SO OUT
set -uo pipefail
bin="$1"; so="$2"; out="$3"; mkdir -p "$out"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"; echo "commit ${PTXB_COMMIT:-unknown}"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
  "$ncu" --version | tail -1
} > "$out/environment.txt" 2>&1
timeout 300 "$bin/ptxbench-range-probe" "$root/tasks" "$so" > "$out/probe.txt" 2>&1
echo "probe exit $?" >> "$out/probe.txt"
"$ncu" --query-metrics --chip gh100 > "$out/query-metrics.txt" 2>&1
"$ncu" --query-metrics-mode suffix --metrics smsp__sass_thread_inst_executed_op_ffma_pred_on,sm__inst_executed_pipe_fma --chip gh100 > "$out/query-suffix.txt" 2>&1
metrics="sass__inst_executed_per_opcode_with_modifier_all,gpu__time_duration.sum"
metrics+=",sm__inst_executed_pipe_tensor_op_gmma.sum,sm__inst_executed_pipe_tensor_op_hmma.sum"
metrics+=",sm__inst_executed_pipe_fma.sum,sm__inst_executed_pipe_fp64.sum,smsp__inst_executed.sum"
for op in ffma fmul fadd hfma hmul hadd dfma dmul dadd; do
  metrics+=",smsp__sass_thread_inst_executed_op_${op}_pred_on.sum"
done
timeout 300 "$ncu" --clock-control none --profile-from-start off --metrics "$metrics" \
  --print-metric-instances details --csv --log-file "$out/ncu-kernels.csv" \
  "$bin/ptxbench-range-probe" "$root/tasks" "$so" ncu > "$out/ncu-mode-stdout.txt" 2>&1
echo "ncu exit $?" >> "$out/ncu-mode-stdout.txt"
grep -E 'pipe|gmma|pred_on' "$out/query-metrics.txt" | grep -E 'inst_executed_pipe_(tensor|fma|fp64|fp16|alu)|thread_inst_executed_op_(ffma|fmul|fadd|hfma|hmul|hadd|dfma|dmul|dadd)_pred_on' | head -40 > "$out/query-selected.txt"
cat "$out/probe.txt"
python3 - "$out/ncu-kernels.csv" <<'PY'
import csv, sys
rows = list(csv.reader(l for l in open(sys.argv[1]) if l.startswith('"')))
head = rows[0]; k = head.index("Kernel Name"); m = head.index("Metric Name"); v = head.index("Metric Value")
for r in rows[1:]:
    if "per_opcode" in r[m]:
        continue
    print(r[k][:40].ljust(40), r[m].ljust(58), r[v])
PY
grep -E '^env (CUDA|NV|LD_|INJ)' "$out/ncu-mode-stdout.txt"
cat "$out/query-selected.txt"
