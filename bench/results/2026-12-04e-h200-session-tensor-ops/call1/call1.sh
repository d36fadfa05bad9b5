#!/usr/bin/env bash
# Call 1: the tensor-path op and TMA counters calibrated against the evidence run's exact MMA
# FLOPs (bench/probes/ncu_cost_probe.sh, variant tensor_ops, on five experts), then the TMA and
# fp8 GEMM experts judged in full with two of those counters added to the catalog's (does the
# set still fit one range-profiler pass on the device; do the timed calls match the profiled
# call exactly), then the GPU tests.
# Usage (repository root, GPU machine): call1/call1.sh BIN_DIR OUT
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt"
ncu --version >> "$out/gpu.txt" 2>&1
VARIANTS=tensor_ops timeout -k 5 240 bench/probes/ncu_cost_probe.sh "$bin" "$out/cal" \
  tma,fp8,fp8b,wgmma,bwd > "$out/cal.log" 2>&1
echo "calibration exit $?"
python3 bench/probes/tensor_ops_summary.py "$out"/cal/*.json > "$out/cal_summary.txt" 2>&1
# The catalog with the bf16 and fp8 tensor-path op counters added to its [[counters]].
rm -rf /tmp/tasks_ops && cp -r tasks /tmp/tasks_ops
for m in sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum sm__ops_path_tensor_src_fp8.sum; do
  printf '\n[[counters]]\nmetric = "%s"\ntolerance = 0.0\nnote = "calibration"\n' "$m" \
    >> /tmp/tasks_ops/catalog/sm90a.toml
done
for e in "tma kernels/reference/sm90_gemm_bf16_wgmma_tma.cu sm90/gemm/bf16-wgmma-tma" \
         "fp8 kernels/reference/sm90_gemm_fp8_e4m3.cu sm90/gemm/fp8-e4m3"; do
  read -r name src task <<< "$e"
  start=$SECONDS
  PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR=/tmp/tasks_ops PTXBENCH_CACHE_DIR="$out/cache" \
    timeout -k 5 120 "$bin/ptxbench" eval "$src" --task "$task" --json-out "$out/ops_$name.json" \
    > "$out/ops_$name.txt" 2>&1
  echo "ops_$name exit $? in $((SECONDS - start)) s"
done
timeout -k 5 200 "$bin/ptxbench_gpu_tests" > "$out/gpu_tests.log" 2>&1
echo "gpu tests exit $?: $(grep -E '^\[  (PASSED|FAILED)  \]' "$out/gpu_tests.log" | tr '\n' ' ')"
rm -rf "$out/cal/cache" "$out/cache"
tar -C "$out" -czf "$out/call1.tar.gz" --exclude=call1.tar.gz .
tail -8 "$out/cal.log"
cut -c1-400 "$out/cal_summary.txt" | head -40
python3 - "$out" <<'PY'
import json, sys
for n in ("tma", "fp8"):
    try:
        v = json.load(open(f"{sys.argv[1]}/ops_{n}.json"))
    except Exception as e:
        print(n, "no verdict", e); continue
    cm = v.get("counter_check", {})
    print(n, v["outcome"], v["reason"][:200])
    print("  counter_check:", json.dumps(cm)[:900]); print("  setup:", json.dumps(v.get("counters", {}).get("setup", {}))[:400])
PY
