#!/usr/bin/env bash
# Do the L2-side sectors of the SMs' reads (lts__t_sectors_srcunit_tex_op_read/_op_atom, which fit
# the evidence run's one hardware pass) count every kind of load the L1TEX-side other-read
# metrics count (five of them: four more replay passes), and the TMA bytes exactly? Nsight
# Compute on `ptxbench-range-probe TASKS EXPERT.so ncu`: the live evidence control (TMA tile and
# bulk copy, ld.global, ld.global.nc, cp.async.ca/.cg, tex1Dfetch, surf1Dread, atom.add with
# return), the FLOP controls and the TMA GEMM expert at 4096^3, 8192^3 (its stream-K tail reads
# fp32 partial tiles back by plain loads) and 128x8192x8192; then the expert built with 2-CTA
# clusters that multicast B (kClusterM = 2, as the fp8 expert runs) at 4096^3: does one L2 read
# for two SMs count once on the L2 side while each SM counts its TMA bytes? Prints per kernel
# both sides' metrics and 32 x sectors against the L1TEX-side sum. Usage (GPU machine,
# repository root):
#   bench/probes/other_read_sectors_probe.sh BIN_DIR OUT_DIR   (BIN_DIR with ptxbench-range-probe)
set -uo pipefail
bin="$(cd "$1" && pwd)"; out="$2"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
ncu="$(command -v ncu || echo /usr/local/cuda/bin/ncu)"
"$nvcc" -O3 -std=c++17 -shared -Xcompiler -fPIC -gencode arch=compute_90a,code=sm_90a -I include \
  kernels/reference/sm90_gemm_bf16_wgmma_tma.cu -o "$out/expert.so" || exit 1
# NOTE: the stream-K tail runs on single-CTA clusters only (a static_assert), as variants.sh's
# tma_cluster2 knows.
sed -e 's/^constexpr int kClusterM = 1;/constexpr int kClusterM = 2;/' \
  -e 's/^constexpr bool kStreamKTail = true;/constexpr bool kStreamKTail = false;/' \
  kernels/reference/sm90_gemm_bf16_wgmma_tma.cu > "$out/expert_cluster2.cu"
grep -q '^constexpr int kClusterM = 2;' "$out/expert_cluster2.cu" || { echo "no kClusterM to set"; exit 1; }
grep -q '^constexpr bool kStreamKTail = false;' "$out/expert_cluster2.cu" ||
  { echo "no kStreamKTail to clear"; exit 1; }
"$nvcc" -O3 -std=c++17 -shared -Xcompiler -fPIC -gencode arch=compute_90a,code=sm_90a -I include \
  "$out/expert_cluster2.cu" -o "$out/expert_cluster2.so" || exit 1
l1="l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum"
for kind in lg_op_ld global_op_ldgsts_cache_access texture surface_op_ld global_op_atom; do
  l1="$l1,l1tex__m_xbar2l1tex_read_bytes_mem_$kind.sum"
done
l2="lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_atom.sum"
"$ncu" --clock-control none --profile-from-start off --metrics "$l1,$l2,l1tex__m_xbar2l1tex_read_bytes.sum" \
  --csv --print-units base --log-file "$out/ncu.csv" \
  env PROBE_SHAPES=4096x4096x4096,8192x8192x8192,128x8192x8192 \
  "$bin/ptxbench-range-probe" tasks "$out/expert.so" ncu > "$out/probe.log" 2>&1
echo "ncu exit $?"
"$ncu" --clock-control none --profile-from-start off --metrics "$l1,$l2,l1tex__m_xbar2l1tex_read_bytes.sum" \
  --csv --print-units base --log-file "$out/ncu_cluster2.csv" \
  "$bin/ptxbench-range-probe" tasks "$out/expert_cluster2.so" ncu > "$out/probe_cluster2.log" 2>&1
echo "ncu (2-CTA clusters) exit $?"
for csv in "$out/ncu.csv" "$out/ncu_cluster2.csv"; do
echo "== $(basename "$csv")"
python3 - "$csv" <<'PY'
import csv, sys
from collections import defaultdict
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if l.startswith('"'))]
kernels = defaultdict(dict)
for r in rows:
    try:
        value = float(r["Metric Value"].replace(",", "") or 0)
    except ValueError:  # a per-instance listing
        continue
    kernels[(r["ID"], r["Kernel Name"][:40])][r["Metric Name"]] = value
for (kid, name), m in sorted(kernels.items(), key=lambda x: int(x[0][0])):
    l1_sum = sum(v for k, v in m.items() if k.startswith("l1tex__m_xbar2l1tex_read_bytes_mem_"))
    l2 = 32 * (m.get("lts__t_sectors_srcunit_tex_op_read.sum", 0) + m.get("lts__t_sectors_srcunit_tex_op_atom.sum", 0))
    tma = m.get("l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum", 0)
    print(f"{kid:>3} {name:40} L1TEX-side kinds {l1_sum:14.0f} (TMA {tma:12.0f}, other {l1_sum - tma:12.0f})"
          f"  L2 sectors x32 {l2:14.0f} (less TMA {l2 - tma:12.0f})  all L1TEX reads {m.get('l1tex__m_xbar2l1tex_read_bytes.sum', 0):14.0f}")
    for k, v in sorted(m.items()):
        print(f"      {k} {v:.0f}")
PY
done
