#!/usr/bin/env bash
# Judging speed (docs/timing.md budgets): every sm90 expert and its slowed variant
# (bench/make_slowed.sh) judged N times end to end with the compile cached (a first, untimed
# evaluation fills the cache), each evaluation's wall time and stage/phase seconds kept; the
# table (bench/summarize_judging_speed.py) gives the median per file and the worker's phases.
# Usage (GPU machine): bench/judging_speed.sh BIN_DIR OUT_DIR [N=3] [NAMES=tma,wgmma,gelu,fwd,bwd]
#   (gqa: the backward expert on sm90/attention/bwd-bf16-gqa; no slowed variant)
#   JUDGING_SLOWED=0: the experts alone, without their slowed variants (half the device time).
#   JUDGING_CACHE_DIR: the compile cache (default OUT_DIR/cache), shared by calls that compare
#   settings (PTXBENCH_TIMING_*, PTXBENCH_SUSTAINED_* in the environment) on the same files.
set -uo pipefail
bin="$(cd "$1" && pwd)"; out="$2"; n="${3:-3}"; names="${4:-tma,wgmma,gelu,fwd,bwd}"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$root" PTXBENCH_TASKS_DIR="$root/tasks" PTXBENCH_CACHE_DIR="${JUDGING_CACHE_DIR:-$out/cache}"
{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"; echo "commit ${PTXB_COMMIT:-unknown}"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
  env | grep -E '^PTXBENCH_(TIMING|SUSTAINED)_' | sort
} > "$out/environment.txt"
declare -A file=([tma]=kernels/reference/sm90_gemm_bf16_wgmma_tma.cu
  [wgmma]=kernels/reference/sm90_gemm_bf16_wgmma.cu
  [gelu]=kernels/reference/sm90_gemm_bias_gelu_bf16_wgmma_tma.cu
  [fwd]=kernels/reference/sm90_attention_fwd_bf16.cu
  [bwd]=kernels/reference/sm90_attention_bwd_bf16.cu
  [gqa]=kernels/reference/sm90_attention_bwd_bf16_gqa.cu)
declare -A task=([tma]=sm90/gemm/bf16-wgmma-tma [wgmma]=sm90/gemm/bf16-wgmma
  [gelu]=sm90/gemm_bias_gelu/bf16-wgmma-tma [fwd]=sm90/attention/fwd-bf16
  [bwd]=sm90/attention/bwd-bf16 [gqa]=sm90/attention/bwd-bf16-gqa)
bench/make_slowed.sh "$out/slowed" > /dev/null
runs=()
for name in ${names//,/ }; do
  runs+=("$name ${file[$name]} ${task[$name]}")
  [[ "${JUDGING_SLOWED:-1}" != 0 && -f "$out/slowed/slowed_$name.cu" ]] && runs+=("slowed_$name $out/slowed/slowed_$name.cu ${task[$name]}")
done
for r in "${runs[@]}"; do  # the compile cache, filled outside the measurement
  read -r label src t <<<"$r"
  "$bin/ptxbench" eval "$src" --task "$t" --no-timing --no-evidence > /dev/null 2>&1
done
echo -e "label\trun\twall_s\toutcome" > "$out/runs.tsv"
for i in $(seq 1 "$n"); do
  for r in "${runs[@]}"; do
    read -r label src t <<<"$r"
    start=$(date +%s.%N)
    "$bin/ptxbench" eval "$src" --task "$t" --json-out "$out/${label}_$i.json" > "$out/${label}_$i.txt" 2>&1
    end=$(date +%s.%N)
    outcome="$(python3 -c "import json;print(json.load(open('$out/${label}_$i.json'))['outcome'])" 2>/dev/null || echo no-verdict)"
    echo -e "$label\t$i\t$(python3 -c "print(f'{$end-$start:.2f}')")\t$outcome" >> "$out/runs.tsv"
  done
done
python3 bench/summarize_judging_speed.py "$out" | tee "$out/table.md"
