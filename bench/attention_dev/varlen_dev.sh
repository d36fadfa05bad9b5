#!/usr/bin/env bash
# Builds and runs the variable-length attention-forward dev harness (varlen_dev.cu) on the GPU
# machine. Usage, from anywhere: bench/attention_dev/varlen_dev.sh OUT_DIR [BUILD_DIR]
# OUT_DIR receives five files: summary.txt (environment, ptxas registers/spills, the result table;
# also printed last), run.log (every test, each in its own process, all under one 300 s budget),
# build.log (the three nvcc runs with ptxas -v), sass_opcodes.txt and sass.txt.gz (the
# submission's SASS). Binaries go to BUILD_DIR (default /tmp/varlen_dev_build). Exit status 0
# only when every check passed.
# PTXB_VARLEN_KERNEL=FILE: a variant of the expert instead (e.g. from bench/gemm_dev/variants.sh
# with PTXB_SOURCES_ONLY=1), both as the .so and in the harness, which #includes what it times.
set -uo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 OUT_DIR [BUILD_DIR]" >&2
  exit 2
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root" || exit 2
mkdir -p "$1" "${2:-/tmp/varlen_dev_build}"
out="$(cd "$1" && pwd)"
build="$(cd "${2:-/tmp/varlen_dev_build}" && pwd)"
nvcc="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
cuobjdump="$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)"
[ -x "$cuobjdump" ] || cuobjdump="$root/.tools/bin/cuobjdump"
source "$root/bench/attention_dev/kernel_choice.sh"
choose_kernel PTXB_VARLEN_KERNEL kernels/reference/sm90_attention_fwd_varlen.cu PTXB_VARLEN_SOURCE
flags=(-gencode arch=compute_90a,code=sm_90a -O3 -std=c++17 -lineinfo)
# The dev binaries take PTXBench's own sources too, which are C++20 (the submission stays C++17).
dev_flags=(-gencode arch=compute_90a,code=sm_90a -O3 -std=c++20 -lineinfo)
dev_srcs=(bench/attention_dev/varlen_dev.cu src/families/structured_values.cpp src/core/error.cpp
  src/core/shape.cpp)
summary="$out/summary.txt"

{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)," \
    "$(git status --porcelain 2>/dev/null | wc -l) changed files"
  "$nvcc" --version | tail -1
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu \
    --format=csv 2>&1
} > "$summary"

# Three builds in parallel: the submission exactly as PTXBench compiles it (plus -v), the dev
# binary with the mbarrier watchdog (correctness) and without it (timing, the kernel as shipped).
start=$SECONDS
"$nvcc" "${flags[@]}" -shared -Xcompiler -fPIC -I include -Xptxas -v "$kernel" \
  -o "$build/attention_fwd_varlen.so" > "$build/so.log" 2>&1 &
pid_so=$!
"$nvcc" "${dev_flags[@]}" "${source_define[@]}" -DPTXB_ATTN_WATCHDOG=1 -Xptxas -v -I src -I include \
  "${dev_srcs[@]}" -o "$build/varlen_dev" > "$build/dev.log" 2>&1 &
pid_dev=$!
"$nvcc" "${dev_flags[@]}" "${source_define[@]}" -I src -I include "${dev_srcs[@]}" \
  -o "$build/varlen_dev_timing" \
  > "$build/timing.log" 2>&1 &
pid_timing=$!
build_ok=1
wait $pid_so || build_ok=0
wait $pid_dev || build_ok=0
wait $pid_timing || build_ok=0
for f in so dev timing; do
  echo "===== $f build"
  cat "$build/$f.log"
done > "$out/build.log"
echo "builds took $((SECONDS - start)) s, ok=$build_ok" >> "$summary"
if [ $build_ok = 0 ]; then
  grep -E "error|BUILD" "$out/build.log" | head -30 | tee -a "$summary"
  exit 1
fi
# VARLEN_DEV_BUILD_ONLY=1: stop here (a machine without a GPU checks that the harness builds).
[ "${VARLEN_DEV_BUILD_ONLY:-0}" = 1 ] && exit 0

if [ -x "$cuobjdump" ]; then
  "$cuobjdump" -sass "$build/attention_fwd_varlen.so" > "$build/sass.txt" 2>&1
  gzip -c "$build/sass.txt" > "$out/sass.txt.gz"
  # Per kernel: how often each opcode of interest appears in the code (static counts).
  grep -oE "(Function : [^ ]+|HGMMA[^ ]*|UTMALDG[^ ]*|SYNCS\.[A-Z0-9.]+|USETMAXREG\.[A-Z.]+|WARPGROUP\.[A-Z.]+|BAR\.[A-Z]+|LDL[^ ]*|STL[^ ]*|MUFU\.EX2)" \
    "$build/sass.txt" |
    awk '/^Function/ { if (name) for (k in c) printf "%s\t%d\t%s\n", name, c[k], k; delete c; name = $3; next }
         { c[$0]++ }
         END { if (name) for (k in c) printf "%s\t%d\t%s\n", name, c[k], k }' |
    sed -E 's/^[^\t]*attention_fwd(_persistent)?ILi([0-9]+)ELb([01])ELNS_8ScheduleE([0-9])[^\t]*/D\2.causal\3.schedule\4\1/' |
    sort > "$out/sass_opcodes.txt"
fi

# Each test in its own process (a sticky CUDA error or a hang loses only that test), at most
# 60 s each and VARLEN_DEV_BUDGET s together (default 300); VARLEN_DEV_TESTS (an extended regular
# expression, default all) picks tests by name; time.* tests use the binary without the watchdog.
# NOTE: the watchdog bounds mbarrier waits only; a named-barrier (ping-pong) deadlock hangs until
# the timeout, which is why the variants run from the least to the most involved schedule.
log="$out/run.log"
: > "$log"
budget="${VARLEN_DEV_BUDGET:-300}" pattern="${VARLEN_DEV_TESTS:-.}"
deadline=$((SECONDS + budget))
for t in $("$build/varlen_dev" --list | grep -E "$pattern"); do
  left=$((deadline - SECONDS))
  [ $left -gt 60 ] && left=60
  if [ $left -le 5 ]; then
    echo -e "RESULT\t$t\t-\tFAIL\tnot run: the $budget s budget is spent" >> "$log"
    continue
  fi
  bin="$build/varlen_dev"
  case "$t" in time.*) bin="$build/varlen_dev_timing" ;; esac
  t0=$SECONDS
  timeout -k 10 "$left" "$bin" --only "$t" >> "$log" 2>&1
  rc=$?
  echo "END $t rc=$rc $((SECONDS - t0))s" >> "$log"
  if [ $rc -eq 124 ]; then
    echo -e "RESULT\t$t\t-\tFAIL\tTIMEOUT (killed after ${left} s: a hang, see the last RUN line)" >> "$log"
  elif [ $rc -gt 1 ]; then
    echo -e "RESULT\t$t\t-\tFAIL\tprocess died with status $rc" >> "$log"
  fi
done

results="$(grep -E "^RESULT" "$log" | cut -f2-)"
fails=$(awk -F'\t' '$3 == "FAIL"' <<< "$results" | wc -l)
passes=$(awk -F'\t' '$3 == "PASS"' <<< "$results" | wc -l)
{
  echo "== ptxas, submission .so (-O3, sm_90a): one line per kernel"
  sed -n '/===== dev build/q;p' "$out/build.log" | grep -E "Compiling entry|Used|spill" |
    paste - - - |
    sed -E 's/.*attention_fwd(_persistent)?ILi([0-9]+)ELb([01])ELNS_8ScheduleE([0-9]).*stack frame, ([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads.*Used ([0-9]+) registers.*/D=\2 causal=\3 schedule=\4\1: \7 registers, spill stores \5 B, loads \6 B/'
  grep -m1 "INFO" "$log"
  echo "== cases"
  grep -E "^CASE" "$log" | sort -u
  echo "== errors and watchdog reports (first 20)"
  grep -E "^(CUDA_ERROR|WATCHDOG)" "$log" | head -20
  echo "== results ($passes pass, $fails fail): O vs the fp32 reference, |err| <= 2e-2 + 2^-6 |ref|"
  awk -F'\t' '{
    d = $4
    n = split(d, parts, " "); keep = ""
    for (i = 1; i <= n; ++i) if (parts[i] ~ /^(max_err|bad|nan|guard_changed)=/) keep = keep " " parts[i]
    if ($1 ~ /^time\./) { match(d, /TFLOPs=[0-9.]+/); extra = substr(d, RSTART, RLENGTH)
                          match(d, /median_us=[0-9.]+/); extra = extra " " substr(d, RSTART, RLENGTH) keep }
    else if ($1 ~ /^check\./) { extra = keep }
    else { extra = substr(d, 1, 90) }
    if ($3 == "FAIL") extra = substr(d, 1, 220)
    printf "%-40s %-18s %-4s %s\n", $1, $2, $3, extra
  }' <<< "$results"
} >> "$summary"
cat "$summary"
[ "$fails" -eq 0 ]
