#!/usr/bin/env bash
# Builds bench/probes/cudnn_plan_cache_probe.cpp and runs it twice: `save` (build each plan, run
# it, serialize it, load it in the same process) then `load` in a fresh process (the use a plan
# cache would have). Usage, on the GPU machine from anywhere:
#   bench/probes/cudnn_plan_cache_probe.sh OUT_DIR
# Writes OUT_DIR/build.log, OUT_DIR/save.log, OUT_DIR/load.log (the plans and outputs themselves
# go to a scratch folder: hundreds of MB) and prints the RESULT lines last. The build (g++, about
# 30 s; the same command works on a machine without a GPU, cuDNN being opened at run time) keeps
# the frontend's JSON support, which the project's build leaves out (CMakeLists.txt says why).
# Environment: PROBE_BIN (a probe built beforehand: skips the build), PROBE_BUILD_ONLY=1 (build
# OUT_DIR/cudnn_plan_cache_probe and stop: how a machine without a GPU prepares it, the device
# lacking the frontend's headers under the ignored .tools/), CUDNN_LIB (default:
# /lib/x86_64-linux-gnu/libcudnn.so.9 when present, else the soname libcudnn.so.9).
set -uo pipefail
out="${1:?usage: cudnn_plan_cache_probe.sh OUT_DIR}"
mkdir -p "$out"; out="$(cd "$out" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cuda=/usr/local/cuda
export LD_LIBRARY_PATH="$cuda/lib64:${LD_LIBRARY_PATH:-}"  # libcudart.so.13, libnvrtc.so.13

cudnn_inc=""
for d in "$cuda/include" /usr/include /usr/include/x86_64-linux-gnu; do
  if [[ -f "$d/cudnn_version.h" ]]; then cudnn_inc="$d"; break; fi
done
cudnn_lib="${CUDNN_LIB:-}"
if [[ -z "$cudnn_lib" ]]; then
  if [[ -e /lib/x86_64-linux-gnu/libcudnn.so.9 ]]; then cudnn_lib=/lib/x86_64-linux-gnu/libcudnn.so.9
  else cudnn_lib=libcudnn.so.9; fi
fi
bin="${PROBE_BIN:-}"
if [[ -z "$bin" ]]; then
  [[ -n "$cudnn_inc" ]] || { echo "cudnn_version.h not found" | tee "$out/build.log"; exit 1; }
  bin="$out/cudnn_plan_cache_probe"
  # shellcheck disable=SC2054  # the commas are -Wl,-rpath,DIR
  g++ -std=c++17 -O1 -DNV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING \
    -isystem "$root/.tools/cudnn-frontend/include" -isystem "$cudnn_inc" -isystem "$cuda/include" \
    "$root/bench/probes/cudnn_plan_cache_probe.cpp" -o "$bin" \
    -L"$cuda/lib64" -lcudart -ldl -lpthread -Wl,-rpath,"$cuda/lib64" > "$out/build.log" 2>&1 ||
    { tail -20 "$out/build.log"; exit 1; }
fi
if [[ "${PROBE_BUILD_ONLY:-0}" == 1 ]]; then echo "built $bin"; exit 0; fi
scratch="$(mktemp -d)"
"$bin" save "$scratch" "$cudnn_lib" > "$out/save.log" 2>&1
"$bin" load "$scratch" "$cudnn_lib" > "$out/load.log" 2>&1
rm -rf "$scratch"
grep -h '^RESULT' "$out/save.log" "$out/load.log" | cut -f2- | sed "s/\t/  /g"
