#!/usr/bin/env bash
# Session 2026-12-06 (eighteenth), call Z, after call Y: cuLibraryLoadData is no forbidden call any
# more (the runtime calls it for the candidate's own fat binary at the first launch of one of its
# kernels, outside the launch's API callback: call Y's monitor tests); the own-code rule judges
# what any load brings, now against the ELF images of the fat-binary containers in .nv_fatbin
# rather than any bytes of it (compile/fatbin.hpp; registered_fatbin_reads now hides a copy of its
# module in the section as an entry cuobjdump passes over). (0) the monitor tests, lazy and eager;
# (1) every sm90 expert the call Y
# did not evaluate, `ptxbench eval --no-timing --no-evidence` (correctness under the monitor:
# none may be refused); (2) the llm hostile group; (3) the committed top-level hostile
# submissions while time is left.
# Usage (repository root of the GPU machine): callZ.sh BIN OUT LIMIT_S
set -uo pipefail
bin="$(cd "$1" && pwd)" out="$2" limit="$3"; mkdir -p "$out/Z"
z="$(cd "$out/Z" && pwd)"
start=$SECONDS
left() { echo $((limit - 15 - (SECONDS - start))); }
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR=/tmp/zcache
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$z/gpu.txt"
for mode in LAZY EAGER; do
  echo "== monitor tests, CUDA_MODULE_LOADING=$mode"
  CUDA_MODULE_LOADING=$mode timeout 120 "$bin/ptxbench_gpu_tests" \
    --gtest_filter='MonitorGpu.*:MonitorApis.*' > "$z/monitor_$mode.txt" 2>&1
  grep -E "^\[ +(OK|FAILED|PASSED) |Failure|^  [a-z]" "$z/monitor_$mode.txt" | head -40
done
echo "== experts (correctness under the monitor)"
for pair in attention/bwd-bf16:sm90_attention_bwd_bf16 attention/bwd-bf16-gqa:sm90_attention_bwd_bf16_gqa \
  attention/decode-paged:sm90_attention_decode_paged attention/fwd-varlen:sm90_attention_fwd_varlen \
  attention/fwd-bf16-d256:sm90_attention_fwd_bf16_d256 gemm/bf16-grouped:sm90_gemm_bf16_grouped \
  gemm/bf16-wgmma:sm90_gemm_bf16_wgmma gemm/fp8-blockwise:sm90_gemm_fp8_blockwise \
  gemm_bias_gelu/bf16-wgmma-tma:sm90_gemm_bias_gelu_bf16_wgmma_tma; do
  task="sm90/${pair%%:*}" name="${pair#*:}"
  [[ $(left) -lt 60 ]] && { echo "$name: skipped"; continue; }
  timeout "$(left)" "$bin/ptxbench" eval "kernels/reference/$name.cu" --task "$task" --no-timing \
    --no-evidence --json-out "$z/$name.json" > "$z/$name.txt" 2>&1
  python3 -c "import json,sys; v=json.load(open(sys.argv[1])); print(sys.argv[2], v['outcome'], (v.get('reason') or '')[:160])" \
    "$z/$name.json" "$name" 2>&1 | tail -1
done
tests/adversarial/make_cheats.sh /tmp/cheats-src > /dev/null || exit 1
hostile() {  # hostile NAME CONTROL TASK FILES...
  local name="$1" control="$2" task="$3"; shift 3
  [[ $(left) -lt 60 ]] && { echo "$name: skipped, $(left) s left"; return; }
  PTXB_CONTROL="$control" PTXB_CONTROL_TASK="$task" timeout "$(left)" \
    tests/adversarial/run.sh "$bin" "$z/hostile_$name" "$@" > "$z/hostile_$name.log" 2>&1
  echo "== $name (after $((SECONDS - start)) s)"; tail -n $(($# + 4)) "$z/hostile_$name.log"
}
hostile llm kernels/reference/sm90_gemm_bf16_llm.cu sm90/gemm/bf16-llm /tmp/cheats-src/llm_*.cu
mapfile -t top < <(ls tests/adversarial/*.cu)
hostile top kernels/reference/sm90_gemm_bf16_wgmma_tma.cu sm90/gemm/bf16-wgmma-tma "${top[@]}"
tar -C "$out" -czf "$out/Z.tar.gz" Z && rm -rf "$out/Z"
echo "done after $((SECONDS - start)) s"
