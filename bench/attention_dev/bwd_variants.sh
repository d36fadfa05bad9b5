#!/usr/bin/env bash
# Times variants of the attention-backward expert in the dev harness side by side, in one machine
# start: the expert and each named variant (names of bench/gemm_dev/variants.sh's table) are built
# into their own harness in parallel, then run one after another with the same harness arguments.
# Usage (GPU machine, repository root):
#   bench/attention_dev/bwd_variants.sh OUT VARIANTS [bwd_dev arguments]
#   e.g. bench/attention_dev/bwd_variants.sh /tmp/bv bwd_narrow_qstep --only S4096
# OUT/summary.txt: each harness's summary (cases and verdicts, per-kernel times), OUT/NAME/ its
# build and full log; the expert runs first and as `expert`.
set -uo pipefail
out="${1:?usage: bench/attention_dev/bwd_variants.sh OUT VARIANTS [bwd_dev arguments]}"
list="${2:?usage: bench/attention_dev/bwd_variants.sh OUT VARIANTS [bwd_dev arguments]}"
shift 2
mkdir -p "$out"
out="$(cd "$out" && pwd)"
here="$(dirname "${BASH_SOURCE[0]}")"

# The variants' sources (variants.sh refuses an unknown name and a sed that changes nothing).
PTXB_SOURCES_ONLY=1 "$here/../gemm_dev/variants.sh" . "$out/sources" 1 "$list" >"$out/sources.log" 2>&1 ||
  { cat "$out/sources.log" >&2; exit 2; }
names=(expert)
IFS=',' read -r -a requested <<<"$list"
names+=("${requested[@]}")

source_of() {
  if [ "$1" = expert ]; then echo kernels/reference/sm90_attention_bwd_bf16.cu; else echo "$out/sources/src/$1.cu"; fi
}
for name in "${names[@]}"; do
  [ -f "$(source_of "$name")" ] || { echo "bwd_variants: no source for $name" >&2; exit 2; }
  BWD_DEV_BUILD_ONLY=1 PTXB_BWD_KERNEL="$(source_of "$name")" "$here/bwd_dev.sh" "$out/$name" \
    >"$out/$name.build.log" 2>&1 &
done
wait
: >"$out/summary.txt"
for name in "${names[@]}"; do
  {
    echo "== $name"
    if [ -x "$out/$name/bwd_dev" ]; then
      timeout 300 "$out/$name/bwd_dev" "$@" >"$out/$name/log.txt" 2>&1
      echo "exit $?"
      sed -n '/==== SUMMARY/,$p' "$out/$name/log.txt" | grep -v '^probe'
      grep -h 'spill stores' "$out/$name/kernel_ptxas.txt" | sort | uniq -c
    else
      echo "BUILD FAILED:"
      tail -n 20 "$out/$name.build.log"
    fi
  } >>"$out/summary.txt"
done
cat "$out/summary.txt"
