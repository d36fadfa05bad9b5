#!/usr/bin/env bash
# Call C: how k1 should share the fused dQ product. Variants of the working tree's expert (knobs
# kFusedDq, kDqLockstep, kDqWide, kDqRedWidth), each built into the dev harness (all builds in
# parallel), then run one after the other: the default with all 36 cases, the others on the S 4096
# shapes (correctness and per-kernel times).
set -uo pipefail
O="$OUT"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
src=kernels/reference/sm90_attention_bwd_bf16.cu
mkdir -p /tmp/vars
declare -A sed_of=(
  [default]='s/^$//'
  [lockstep]='s/^constexpr bool kDqLockstep = false;/constexpr bool kDqLockstep = true;/'
  [wide]='s/^constexpr bool kDqWide = false;/constexpr bool kDqWide = true;/'
  [red4]='s/^constexpr int kDqRedWidth = 2;/constexpr int kDqRedWidth = 4;/'
  [red0]='s/^constexpr int kDqRedWidth = 2;/constexpr int kDqRedWidth = 0;/'
  [unfused]='s/^constexpr bool kFusedDq = true;/constexpr bool kFusedDq = false;/'
)
names="default unfused lockstep wide red4 red0"
for v in $names; do
  sed "${sed_of[$v]}" "$src" > /tmp/vars/$v.cu
  [ $v = default ] || ! cmp -s "$src" /tmp/vars/$v.cu || echo "variant $v: sed changed nothing" >> "$O/summary.txt"
  (BWD_DEV_BUILD_ONLY=1 PTXB_BWD_KERNEL=/tmp/vars/$v.cu bench/attention_dev/bwd_dev.sh /tmp/b_$v \
     > "$O/build_$v.log" 2>&1; echo "build $v exit $?" >> "$O/build_$v.log") &
done
wait
for v in $names; do
  args=(--only S4096); [ $v = default ] && args=()
  timeout 150 /tmp/b_$v/bwd_dev "${args[@]}" > "$O/run_$v.txt" 2>&1
  echo "run $v exit $?" >> "$O/run_$v.txt"
  grep -h "spill" /tmp/b_$v/kernel_ptxas.txt | sort | uniq -c > "$O/spills_$v.txt"
  grep -c C7515 /tmp/b_$v/kernel_ptxas.txt >> "$O/spills_$v.txt"
  { echo "== $v"; sed -n '/==== SUMMARY/,$p' "$O/run_$v.txt" | grep -v "^probe"; } >> "$O/summary.txt"
done
cat "$O/summary.txt"
