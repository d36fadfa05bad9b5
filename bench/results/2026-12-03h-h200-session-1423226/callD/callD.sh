#!/usr/bin/env bash
# Call D: call C again with kRotateTiles on (k1's CTAs start each head at a rotated query tile).
# Variants of the working tree's expert (knobs kFusedDq, kRotateTiles, kDqLockstep, kDqRedWidth), each built into the dev harness (all builds in
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
  [red4]='s/^constexpr int kDqRedWidth = 2;/constexpr int kDqRedWidth = 4;/'
  [red0]='s/^constexpr int kDqRedWidth = 2;/constexpr int kDqRedWidth = 0;/'
  [unfused_rot]='s/^constexpr bool kFusedDq = true;/constexpr bool kFusedDq = false;/'
  [unfused_norot]='s/^constexpr bool kFusedDq = true;/constexpr bool kFusedDq = false;/; s/^constexpr bool kRotateTiles = true;/constexpr bool kRotateTiles = false;/'
  [norot]='s/^constexpr bool kRotateTiles = true;/constexpr bool kRotateTiles = false;/'
  [lockstep_red4]='s/^constexpr bool kDqLockstep = false;/constexpr bool kDqLockstep = true;/; s/^constexpr int kDqRedWidth = 2;/constexpr int kDqRedWidth = 4;/'
)
names="default unfused_norot unfused_rot norot lockstep lockstep_red4 red4 red0"
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
tar czf /tmp/all.tar.gz -C "$O" . && mv /tmp/all.tar.gz "$O/" && (cd "$O" && ls | grep -v -e all.tar.gz -e summary.txt | xargs rm -f)
cat "$O/summary.txt"
