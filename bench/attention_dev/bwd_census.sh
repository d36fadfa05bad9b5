#!/usr/bin/env bash
# What cuDNN's attention backward runs, beside the expert's kernels, at the same shapes: Nsight
# Compute (--set full plus tensor-op, reduction and DRAM counters, clocks left alone) on one
# library call per timed shape of sm90/attention/bwd-bf16 (ptxbench-library-profile run: the
# call between profiler ranges, an evidence marker kernel after each shape) and on one launch of
# each expert kernel (k0 delta_kernel, k1 dkdv_kernel, k2 dq_kernel; where the fused form runs,
# k1 computes dQ too and convert_dq_kernel follows it) in the dev harness's cases
# of the timed D 128 shapes and the D 64 one. Answers: how many kernels the library runs, how long
# each takes, how many tensor ops it issues (five products' worth or seven), and how it sums dQ
# (global or TMA reductions, L2 reduction sectors).
# OUT/: lib.ncu-rep, lib.raw.csv, exp_N.ncu-rep, exp_N.raw.csv, census.txt (bench/gemm_dev/
# compare_ncu.py --every-kernel over all of them), logs. Prints the census's first rows last.
# Usage (GPU machine, repository root): bench/attention_dev/bwd_census.sh BIN HARNESS OUT
#   BIN: a folder with ptxbench-library-profile; HARNESS: a bwd_dev binary built for the expert
#   (BWD_DEV_BUILD_ONLY=1 bench/attention_dev/bwd_dev.sh DIR builds DIR/bwd_dev).
set -uo pipefail
bin="${1:?usage: bwd_census.sh BIN HARNESS OUT}" harness="${2:?}" out="${3:?}"
mkdir -p "$out"
here="$(dirname "${BASH_SOURCE[0]}")"
ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
export PTXBENCH_TASKS_DIR="$PWD/tasks"
extra=sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum,sm__inst_executed_pipe_tensor_op_gmma.sum
extra+=,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum,dram__bytes_write.sum

# One ncu run; NAME's report and raw page. A run the extra counters break runs again without them.
profile() {
  local name="$1"; shift
  "$ncu" --clock-control none --set full --metrics "$extra" -f -o "$out/$name" "$@" \
    > "$out/$name.log" 2>&1 ||
    "$ncu" --clock-control none --set full -f -o "$out/$name" "$@" >> "$out/$name.log" 2>&1
  "$ncu" --import "$out/$name.ncu-rep" --page raw --csv > "$out/$name.raw.csv" 2>&1
  tail -2 "$out/$name.log"
}

profile lib --profile-from-start off "$bin/ptxbench-library-profile" run sm90/attention/bwd-bf16
n=0
for case_ in "B4 H16 S4096 D128 full" "B4 H16 S4096 D128 causal" "B1 H16 S16384 D128 full" \
  "B4 H32 S4096 D64 full"; do
  n=$((n + 1))
  echo "exp_$n: $case_" | tee -a "$out/cases.txt"
  profile "exp_$n" -k 'regex:delta_kernel|dkdv_kernel|dq_kernel|convert_dq_kernel' --launch-count 3 \
    "$harness" --only "full $case_" --no-timing
done
python3 "$here/../gemm_dev/compare_ncu.py" --every-kernel --stalls 12 "$out/lib.raw.csv" \
  "$out"/exp_*.raw.csv > "$out/census.txt" 2>&1
head -24 "$out/census.txt" | cut -c1-250
