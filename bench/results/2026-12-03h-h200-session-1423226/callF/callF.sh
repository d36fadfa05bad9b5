#!/usr/bin/env bash
# Call F: k1 with 128-query steps at D 64 (kWideQStepD64, branch bwd-d64-qstep, working tree)
# against 64-query steps: the dev harness (every D 64 case; per-kernel times at S 4096) for both,
# then ptxbench eval of the expert and the narrow variant on bwd-bf16, one round.
set -uo pipefail
O="$OUT"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
PTXB_SOURCES_ONLY=1 bench/gemm_dev/variants.sh .carry/bin-ad50de9 /tmp/v 1 bwd_narrow_qstep > "$O/src.log" 2>&1
(BWD_DEV_BUILD_ONLY=1 bench/attention_dev/bwd_dev.sh /tmp/b_wide > "$O/build_wide.log" 2>&1) &
(BWD_DEV_BUILD_ONLY=1 PTXB_BWD_KERNEL=/tmp/v/src/bwd_narrow_qstep.cu bench/attention_dev/bwd_dev.sh \
   /tmp/b_narrow > "$O/build_narrow.log" 2>&1) &
wait
for v in wide narrow; do
  timeout 60 /tmp/b_$v/bwd_dev --only D64 > "$O/run_$v.txt" 2>&1; echo "run $v exit $?" >> "$O/run_$v.txt"
  grep -h "spill" /tmp/b_$v/kernel_ptxas.txt | sort | uniq -c > "$O/spills_$v.txt"
  { echo "== $v"; sed -n '/==== SUMMARY/,$p' "$O/run_$v.txt" | grep -v "^probe"; } >> "$O/summary.txt"
done
PTXB_BUDGET_S=60 bench/gemm_dev/variants.sh .carry/bin-ad50de9 /tmp/var 1 bwd_narrow_qstep > "$O/var.log" 2>&1
tail -4 "$O/var.log" >> "$O/summary.txt"
tar czf /tmp/all.tar.gz -C "$O" . /tmp/var/*.json 2>/dev/null; mv /tmp/all.tar.gz "$O/"
(cd "$O" && ls | grep -v -e all.tar.gz -e summary.txt | xargs rm -f)
cat "$O/summary.txt"
