#!/usr/bin/env bash
# Session 2026-12-05/06 (seventeenth), prepared, not run: the other-read selection (7d58209: the
# evidence run reads only the other-read metrics of load kinds the candidate's SASS has) on the GPU.
# (a) `ptxbench eval --no-timing` of the TMA, production-shape, per-tensor fp8 and attention
#     forward experts, binaries before (a500d1f: every other-read metric) and after, interleaved,
#     two rounds: evidence seconds, outcomes and what was left out;
# (b) with the new binaries, the hostile submissions whose verdicts rest on the other-read
#     metrics: the TMA task's (tma_repeated_box, tma_tiny_loads, tma_profiler_aware,
#     tma_plain_loads, tma_store_only; the TMA expert as the control) and the production-shape
#     task's, runtime_loaded_reads among them (its expert as the control).
# (0) first, bench/probes/module_load/module_load_probe.sh (about 10 s).
# Everything under OUT is packed into OUT/X.tar.gz (the device returns 8 files at most).
# Usage (repository root of the GPU machine): callX.sh NEW_BIN OLD_BIN OUT LIMIT_S
set -uo pipefail
new="$(cd "$1" && pwd)" old="$(cd "$2" && pwd)" out="$3" limit="$4"; mkdir -p "$out/X"
x="$(cd "$out/X" && pwd)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$x/gpu.txt"
start=$SECONDS
left() { echo $((limit - 15 - (SECONDS - start))); }
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR=/tmp/xcache
tests/adversarial/make_cheats.sh /tmp/cheats-src > /dev/null || exit 1
# (0) which API calls and module-loaded events a candidate's own lazy loading causes, and a module
#     it loads itself (docs/threat-model.md, known limits), about 10 s
timeout 120 bench/probes/module_load/module_load_probe.sh "$x/module_load" > /dev/null 2>&1
echo "== module loading"; grep -v "^\[" "$x/module_load/module_load_probe.txt" 2>/dev/null
grep -c "^\[" "$x/module_load/module_load_probe.txt" 2>/dev/null | sed 's/^/callbacks: /'
rm -f "$x/module_load"/*.so "$x/module_load"/*.cubin "$x/module_load/module_load_probe"
# (a)
for round in 1 2; do
  for pair in gemm/bf16-wgmma-tma:sm90_gemm_bf16_wgmma_tma gemm/bf16-llm:sm90_gemm_bf16_llm \
    gemm/fp8-e4m3:sm90_gemm_fp8_e4m3 attention/fwd-bf16:sm90_attention_fwd_bf16; do
    task="sm90/${pair%%:*}" name="${pair#*:}"
    for side in old new; do
      [[ $(left) -lt 200 ]] && { echo "$name $side $round: skipped, $(left) s left"; continue; }
      bin="$old"; [[ "$side" == new ]] && bin="$new"
      timeout "$(left)" "$bin/ptxbench" eval "kernels/reference/$name.cu" --task "$task" \
        --no-timing --json-out "$x/evidence_${name}_${side}_$round.json" \
        > "$x/evidence_${name}_${side}_$round.txt" 2>&1
      python3 -c "import json,sys; v=json.load(open(sys.argv[1])); s=v.get('stage_seconds',{}); e=v.get('evidence',{}); print(sys.argv[2], v['outcome'], 'evidence %.1f s' % s.get('evidence',0), 'left out', len(e.get('other_read_metrics_left_out',[])), 'again' if 'other_reads_taken_again' in e else '')" \
        "$x/evidence_${name}_${side}_$round.json" "$name $side $round" 2>&1 | tail -1
    done
  done
done
# (b)
hostile() {  # hostile NAME CONTROL TASK FILES...
  local name="$1" control="$2" task="$3"; shift 3
  [[ $(left) -lt 60 ]] && { echo "$name: skipped, $(left) s left"; return; }
  PTXB_CONTROL="$control" PTXB_CONTROL_TASK="$task" timeout "$(left)" \
    tests/adversarial/run.sh "$new" "$x/hostile_$name" "$@" > "$x/hostile_$name.log" 2>&1
  echo "== $name (after $((SECONDS - start)) s)"; tail -n $(($# + 4)) "$x/hostile_$name.log"
}
hostile llm kernels/reference/sm90_gemm_bf16_llm.cu sm90/gemm/bf16-llm /tmp/cheats-src/llm_*.cu
hostile tma kernels/reference/sm90_gemm_bf16_wgmma_tma.cu sm90/gemm/bf16-wgmma-tma \
  /tmp/cheats-src/evidence_tma_*.cu tests/adversarial/tma_plain_loads.cu \
  tests/adversarial/tma_store_only.cu
tar -C "$out" -czf "$out/X.tar.gz" X && rm -rf "$out/X"
echo "done after $((SECONDS - start)) s"
