#!/usr/bin/env bash
# Builds and runs the forward-attention dev harness (fwd_dev.cu) on the GPU machine.
# Usage, from the repository root: bench/attention_dev/fwd_dev.sh OUT_DIR [BUILD_DIR]
# OUT_DIR receives five files (the device tool returns at most eight): summary.txt (environment,
# ptxas registers/spills, the result table; also printed last), run.log (every test, each in its
# own process, all under one 300 s budget), build.log (the three nvcc runs with ptxas -v),
# sass_opcodes.txt and sass.txt.gz (the submission's SASS). Binaries go to BUILD_DIR
# (default /tmp/fwd_dev_build). Exit status 0 only when every check passed.
# PTXB_FWD_KERNEL=FILE: a variant of the expert instead (e.g. from bench/gemm_dev/variants.sh with
# PTXB_SOURCES_ONLY=1), both as attention_fwd.so and in the harness, which #includes what it times.
set -uo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 OUT_DIR [BUILD_DIR]" >&2
  exit 2
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
mkdir -p "$1" "${2:-/tmp/fwd_dev_build}"
out="$(cd "$1" && pwd)"
build="$(cd "${2:-/tmp/fwd_dev_build}" && pwd)"
nvcc="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
cuobjdump="$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)"
[ -x "$cuobjdump" ] || cuobjdump="$root/.tools/bin/cuobjdump"
source "$root/bench/attention_dev/kernel_choice.sh"
choose_kernel PTXB_FWD_KERNEL kernels/reference/sm90_attention_fwd_bf16.cu PTXB_FWD_SOURCE
flags=(-gencode arch=compute_90a,code=sm_90a -O3 -std=c++17 -lineinfo)
dev_srcs=(bench/attention_dev/fwd_dev.cu src/verify/gpu_reference_attention.cu
  src/verify/fp64_buffers.cu src/cuda/fp64_gemm.cpp src/cuda/device.cpp src/core/dtype.cpp
  src/core/error.cpp)
dev_libs=(-lcublasLt -lcuda)
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
# FWD_DEV_PREBUILT=1: BUILD_DIR already holds all three and their logs (built by this script
# with FWD_DEV_BUILD_ONLY=1 on another machine with the same toolkit), so the GPU machine spends
# no time compiling.
start=$SECONDS
build_ok=1
if [ "${FWD_DEV_PREBUILT:-0}" != 1 ]; then
  "$nvcc" "${flags[@]}" -shared -Xcompiler -fPIC -I include -Xptxas -v "$kernel" \
    -o "$build/attention_fwd.so" > "$build/so.log" 2>&1 &
  pid_so=$!
  "$nvcc" "${flags[@]}" "${source_define[@]}" -DPTXB_ATTN_WATCHDOG=1 -Xptxas -v -I src -I include \
    "${dev_srcs[@]}" "${dev_libs[@]}" -o "$build/fwd_dev" > "$build/dev.log" 2>&1 &
  pid_dev=$!
  "$nvcc" "${flags[@]}" "${source_define[@]}" -I src -I include "${dev_srcs[@]}" "${dev_libs[@]}" \
    -o "$build/fwd_dev_timing" > "$build/timing.log" 2>&1 &
  pid_timing=$!
  wait $pid_so || build_ok=0
  wait $pid_dev || build_ok=0
  wait $pid_timing || build_ok=0
fi
for f in attention_fwd.so fwd_dev fwd_dev_timing; do [ -x "$build/$f" ] || build_ok=0; done
for f in so dev timing; do
  echo "===== $f build"
  cat "$build/$f.log"
done > "$out/build.log"
echo "builds took $((SECONDS - start)) s, ok=$build_ok" >> "$summary"
if [ $build_ok = 0 ]; then
  grep -E "error|BUILD" "$out/build.log" | head -30 | tee -a "$summary"
  exit 1
fi

[ "${FWD_DEV_BUILD_ONLY:-0}" = 1 ] && exit 0  # building ahead for FWD_DEV_PREBUILT

if [ -x "$cuobjdump" ]; then
  "$cuobjdump" -sass "$build/attention_fwd.so" > "$build/sass.txt" 2>&1
  gzip -c "$build/sass.txt" > "$out/sass.txt.gz"
  # Per kernel: how often each opcode of interest appears in the code (static counts).
  grep -oE "(Function : [^ ]+|HGMMA[^ ]*|UTMALDG[^ ]*|SYNCS\.[A-Z0-9.]+|USETMAXREG\.[A-Z.]+|WARPGROUP\.[A-Z.]+|BAR\.[A-Z]+|LDL[^ ]*|STL[^ ]*|MUFU\.EX2)" \
    "$build/sass.txt" |
    awk '/^Function/ { if (name) for (k in c) printf "%s\t%d\t%s\n", name, c[k], k; delete c; name = $3; next }
         { c[$0]++ }
         END { if (name) for (k in c) printf "%s\t%d\t%s\n", name, c[k], k }' |
    sed -E 's/^[^\t]*attention_fwdILi([0-9]+)ELb([01])ELNS_8ScheduleE([0-9])[^\t]*/D\1.causal\2.schedule\3/' |
    sort > "$out/sass_opcodes.txt"
fi

# Each test in its own process (a sticky CUDA error or a hang loses only that test), at most
# 60 s each and FWD_DEV_BUDGET s together (default 300); FWD_DEV_TESTS (an extended regular
# expression, default all) picks tests by name; time.* tests use the binary without the watchdog.
# NOTE: the watchdog bounds mbarrier waits only; a named-barrier (ping-pong) deadlock hangs until
# the timeout, which is why the variants run from the least to the most involved schedule.
log="$out/run.log"
budget="${FWD_DEV_BUDGET:-300}" pattern="${FWD_DEV_TESTS:-.}"
: > "$log"
deadline=$((SECONDS + budget))
for t in $("$build/fwd_dev" --list | grep -E "$pattern"); do
  left=$((deadline - SECONDS))
  [ $left -gt 60 ] && left=60
  if [ $left -le 5 ]; then
    echo -e "RESULT\t$t\t-\tFAIL\tnot run: the $budget s budget is spent" >> "$log"
    continue
  fi
  bin="$build/fwd_dev"
  case "$t" in time.*) bin="$build/fwd_dev_timing" ;; esac
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
    sed -E 's/.*attention_fwdILi([0-9]+)ELb([01])ELNS_8ScheduleE([0-9]).*stack frame, ([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads.*Used ([0-9]+) registers.*/D=\1 causal=\2 schedule=\3: \6 registers, spill stores \4 B, loads \5 B/'
  grep -m1 "INFO" "$log"
  echo "== errors and watchdog reports (first 20)"
  grep -E "^(CUDA_ERROR|WATCHDOG)" "$log" | head -20
  echo "== results ($passes pass, $fails fail): O then LSE errors; task_tol = the task spec's rule"
  awk -F'\t' '{
    d = $4
    n = split(d, parts, " "); keep = ""
    for (i = 1; i <= n; ++i) if (parts[i] ~ /^(max_err|bad|nan|frob|task_tol)=/) keep = keep " " parts[i]
    if ($1 ~ /^time\./) { match(d, /TFLOPs=[0-9.]+/); extra = substr(d, RSTART, RLENGTH)
                          match(d, /median_us=[0-9.]+/); extra = extra " " substr(d, RSTART, RLENGTH) keep }
    else if ($1 ~ /^check\./) { extra = keep }
    else { extra = substr(d, 1, 90) }
    if ($3 == "FAIL") extra = substr(d, 1, 220)
    printf "%-34s %-18s %-4s %s\n", $1, $2, $3, extra
  }' <<< "$results"
} >> "$summary"
cat "$summary"
[ "$fails" -eq 0 ]
