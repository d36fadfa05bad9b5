#!/usr/bin/env bash
# Builds and runs bench/probes/cudnn_paged_probe.cpp: does cuDNN's SDPA forward with a paged KV
# cache work on Hopper for decode (native and vLLM page layouts, with and without LSE), how fast,
# and how accurate. Usage, on the GPU machine from anywhere: bench/probes/cudnn_paged_probe.sh OUT_DIR
# Writes OUT_DIR/build.log, OUT_DIR/probe.log (everything), OUT_DIR/cudnn_backend.log (cuDNN's own
# warnings and errors: the reasons behind NOT_SUPPORTED) and prints the summary table last.
# Build command (g++; the same works on a machine without a GPU, cuDNN being opened at run time;
# 10-15 s on an idle core, -O1 to keep it short):
#   g++ -std=c++17 -O1 -DNV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING -DCUDNN_FRONTEND_SKIP_JSON_LIB \
#     -isystem .tools/cudnn-frontend/include -isystem CUDNN_INCLUDE -isystem /usr/local/cuda/include \
#     bench/probes/cudnn_paged_probe.cpp -o OUT_DIR/cudnn_paged_probe \
#     -L/usr/local/cuda/lib64 -lcudart -ldl -lpthread -Wl,-rpath,/usr/local/cuda/lib64
# (CUDNN_INCLUDE: the folder of cudnn_version.h, looked up as CMakeLists.txt does: beside the CUDA
# toolkit's headers first, then the system folders.) Environment: PROBE_BIN (a probe built
# beforehand with that command: skips the build), PROBE_MAX_PLANS (default 3), PROBE_BUDGET_S
# (default 85 s minus the build time, at least 30), CUDNN_LIB (default:
# /lib/x86_64-linux-gnu/libcudnn.so.9 when present, else the soname libcudnn.so.9).
set -uo pipefail
out="${1:?usage: cudnn_paged_probe.sh OUT_DIR}"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cuda=/usr/local/cuda
export PATH="$cuda/bin:$PATH"
export LD_LIBRARY_PATH="$cuda/lib64:${LD_LIBRARY_PATH:-}"  # libcudart.so.13, libnvrtc.so.13

cudnn_inc=""
for d in "$cuda/include" /usr/include /usr/include/x86_64-linux-gnu; do
  if [[ -f "$d/cudnn_version.h" ]]; then cudnn_inc="$d"; break; fi
done
if [[ -z "$cudnn_inc" ]]; then echo "cudnn_version.h not found" | tee "$out/build.log"; exit 1; fi
cudnn_lib="${CUDNN_LIB:-}"
if [[ -z "$cudnn_lib" ]]; then
  if [[ -e /lib/x86_64-linux-gnu/libcudnn.so.9 ]]; then cudnn_lib=/lib/x86_64-linux-gnu/libcudnn.so.9
  else cudnn_lib=libcudnn.so.9; fi
fi

# shellcheck disable=SC2054  # the commas are -Wl,-rpath,DIR
build=(g++ -std=c++17 -O1 -DNV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING -DCUDNN_FRONTEND_SKIP_JSON_LIB
  -isystem "$root/.tools/cudnn-frontend/include" -isystem "$cudnn_inc" -isystem "$cuda/include"
  "$root/bench/probes/cudnn_paged_probe.cpp" -o "$out/cudnn_paged_probe"
  -L"$cuda/lib64" -lcudart -ldl -lpthread -Wl,-rpath,"$cuda/lib64")
start=$SECONDS
if [[ -n "${PROBE_BIN:-}" ]]; then  # built beforehand (same command): no compile on the GPU machine
  cp "$PROBE_BIN" "$out/cudnn_paged_probe"
  echo "prebuilt $PROBE_BIN" > "$out/build.log"
else
  {
    echo "${build[*]}"
    "${build[@]}"
  } > "$out/build.log" 2>&1
  rc=$?
  echo "build exit $rc in $((SECONDS - start)) s" >> "$out/build.log"
  if [[ $rc -ne 0 ]]; then tail -30 "$out/build.log"; exit 1; fi
fi
build_s=$((SECONDS - start))
# The whole script should end within ~110 s: no new variant starts after 85 s minus the build.
budget=$((85 - build_s)); (( budget < 30 )) && budget=30
export PROBE_BUDGET_S="${PROBE_BUDGET_S:-$budget}"

{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"; echo "commit ${PTXB_COMMIT:-unknown}"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv
  echo "cuDNN headers: $cudnn_inc ($(grep -E '^#define CUDNN_(MAJOR|MINOR|PATCHLEVEL) ' "$cudnn_inc/cudnn_version.h" | awk '{print $3}' | paste -sd.))"
  echo "libcudnn: $cudnn_lib -> $(readlink -f "$cudnn_lib" 2>/dev/null || echo '(soname)')"
  ls -l /lib/x86_64-linux-gnu/libcudnn.so.9* "$cuda"/lib64/libcudnn.so.9* 2>/dev/null
  echo
} > "$out/probe.log" 2>&1
# cuDNN's backend log (level 2: warnings and errors) explains why an engine refuses a graph.
# timeout 100, less what the build took beyond 10 s (the whole script stays within ~110 s).
limit=$((110 - build_s)); (( limit > 100 )) && limit=100; (( limit < 45 )) && limit=45
start=$SECONDS
CUDNN_LOGLEVEL_DBG=2 CUDNN_LOGDEST_DBG="$out/cudnn_backend.log" \
  timeout "$limit" "$out/cudnn_paged_probe" "$cudnn_lib" >> "$out/probe.log" 2>&1
rc=$?
echo "probe exit $rc in $((SECONDS - start)) s" >> "$out/probe.log"

grep -vE '^(TABLE|RESULT)' "$out/probe.log" | grep -E '^(GPU|cudnnGetVersion|libcudnn|shape|probe exit|FATAL)'
echo
table=$(grep '^TABLE' "$out/probe.log" | cut -f2-)
if [[ -z "$table" ]] && grep -q '^RESULT' "$out/probe.log"; then  # cut short: the lines so far
  table=$(printf 'shape\tvariant\tstatus\tplans\tchosen\tmedian_us\tGB/s\terr_O\terr_LSE\tcheck\tbuild_s\n'
    grep '^RESULT' "$out/probe.log" | cut -f2-)
fi
if [[ -n "$table" ]]; then
  if command -v column > /dev/null; then echo "$table" | column -t -s $'\t'; else echo "$table"; fi
else
  echo "no result lines; last lines of probe.log:"; tail -20 "$out/probe.log"
fi
