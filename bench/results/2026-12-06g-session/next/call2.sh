#!/usr/bin/env bash
# Session 2026-12-06 (twenty-fourth), call 2: the fused backward with dS^T shared between the
# consumers (kFusedDqShared) in the dev harness, built here: every case against the fp32
# reference and the timed shapes' per-kernel times, for it with one dQ staging buffer a consumer
# (`shared`, today variant `bwd_fused_dq_shared_one_staging`), with three Q/dO stages (`shared3`,
# `bwd_fused_dq_shared3`) and with two stagings (`shared2s`, `bwd_fused_dq_shared`); then the
# expert, those and `shared` with the LSE and Delta read at use (`shared_late`) timed at S 4096
# and S 16384, D 128, three interleaved rounds (one machine start); then Nsight Compute
# (bwd_census.sh's metrics) of the kernels of `shared` and `shared2s` at B4 H16 S4096 D128.
# Usage (repository root of the GPU machine): call2.sh BIN OUT
#   BIN/{expert,shared,shared_late,shared3,shared2s}/bwd_dev
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2"; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > "$out/gpu.txt"
cat "$out/gpu.txt"
for h in shared shared3 shared2s; do
  timeout 170 "$bin/$h/bwd_dev" > "$out/$h.full.log" 2>&1
  echo "== $h, every case: exit $? ($(grep -c PASS "$out/$h.full.log") PASS lines)"
  grep -E "FAIL|of [0-9]+ failed| us " "$out/$h.full.log" | cut -c1-200
done
for r in 1 2 3; do
  for h in expert shared shared_late shared3 shared2s; do
    for c in "S4096 D128" "S16384"; do
      timeout 60 "$bin/$h/bwd_dev" --only "$c" > "$out/$h.t$r.$(echo "$c" | tr -d ' ').log" 2>&1
    done
  done
done
for f in "$out"/*.t[123].*.log; do
  grep " us " "$f" | sed "s|^|$(basename "$f" .log): |" | cut -c1-220
done | sort
extra=sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum,sm__inst_executed_pipe_tensor_op_gmma.sum
extra+=,lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum,dram__bytes_write.sum
ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
for h in shared shared2s; do
  "$ncu" --clock-control none --set full --metrics "$extra" \
    -k 'regex:delta_kernel|dkdv_kernel|convert_dq' --launch-count 3 -f -o "$out/ncu_$h" \
    "$bin/$h/bwd_dev" --only "full B4 H16 S4096 D128 full" --no-timing > "$out/ncu_$h.log" 2>&1
  "$ncu" --import "$out/ncu_$h.ncu-rep" --page raw --csv > "$out/ncu_$h.raw.csv" 2>&1
done
python3 bench/gemm_dev/compare_ncu.py --every-kernel --stalls 12 "$out"/ncu_*.raw.csv \
  > "$out/ncu.txt" 2>&1
grep -E "^(metric|duration|tensor pipe % of active|issue|TMA red|L2 red)" "$out/ncu.txt" | cut -c1-250
tar -C "$out" -czf "$out/../call2.tar.gz" . && ls -la "$out/../call2.tar.gz"
