#!/usr/bin/env bash
# Session 2026-12-05 (sixteenth; no device was lent), prepared, not run. The changes of that
# session that only a GPU machine can confirm, in one call:
# (a) the new hostile submissions (run.sh with the new binaries, the TMA expert as the control):
#     the binary swap between the evaluation's processes, links where the parent reads and writes,
#     and reads of root-only files through the compiler (expected: passed, passed, compile_error,
#     compile_error, the last three with no line of /etc/shadow in the verdict);
# (b) the evidence run of the tasks that set no cap on other reads (attention backward,
#     block-scaled fp8), which no longer reads the other-read byte metrics (5 replay passes -> 1):
#     old and new binaries side by side, interleaved, `--no-timing`, evidence seconds and outcomes;
# (c) one full evaluation of the TMA and the bf16-llm experts with the new binaries (nvcc as uid
#     60999, the shared object outside the worker folder, fresh folders for the evidence run):
#     both must pass with the speedups of earlier calls.
# Usage (repository root of the GPU machine): callS.sh NEW_BIN OLD_BIN OUT LIMIT_S
#   NEW_BIN: ptxbench and ptxbench-worker of this session's last code commit (.carry/h.tar.xz);
#   OLD_BIN: those of 353df30 (.carry/old353.tar.xz).
set -uo pipefail
new="$(cd "$1" && pwd)" old="$(cd "$2" && pwd)" out="$3" limit="$4"; mkdir -p "$out"
out="$(cd "$out" && pwd)"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$out/gpu.txt"
start=$SECONDS
left() { echo $((limit - 10 - (SECONDS - start))); }
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export PTXBENCH_HOME="$PWD" PTXBENCH_TASKS_DIR="$PWD/tasks" PTXBENCH_CACHE_DIR=/tmp/scache
tests/adversarial/make_cheats.sh /tmp/cheats-src > /dev/null || exit 1
# (a)
timeout "$(left)" tests/adversarial/run.sh "$new" "$out/hostile" \
  /tmp/cheats-src/evidence_swap_shared_object.cu /tmp/cheats-src/evidence_link_worker_outputs.cu \
  tests/adversarial/include_root_file.cu tests/adversarial/incbin_root_file.cu \
  > "$out/hostile.log" 2>&1
echo "== hostile (after $((SECONDS - start)) s)"; tail -n 9 "$out/hostile.log"
# (b)
for round in 1 2; do
  for pair in attention/bwd-bf16:sm90_attention_bwd_bf16 gemm/fp8-blockwise:sm90_gemm_fp8_blockwise; do
    task="sm90/${pair%%:*}" name="${pair#*:}"
    for side in old new; do
      [[ $(left) -lt 60 ]] && { echo "$name $side $round: skipped, $(left) s left"; continue; }
      bin="$old"; [[ "$side" == new ]] && bin="$new"
      timeout "$(left)" "$bin/ptxbench" eval "kernels/reference/$name.cu" --task "$task" \
        --no-timing --json-out "$out/evidence_${name}_${side}_$round.json" \
        > "$out/evidence_${name}_${side}_$round.txt" 2>&1
      python3 -c "import json,sys; v=json.load(open(sys.argv[1])); s=v.get('stage_seconds',{}); print(sys.argv[2], v['outcome'], 'evidence %.1f s, worker %.1f s' % (s.get('evidence',0), s.get('worker',0)))" \
        "$out/evidence_${name}_${side}_$round.json" "$name $side $round" 2>&1 | tail -1
    done
  done
done
# (c)
for pair in gemm/bf16-wgmma-tma:sm90_gemm_bf16_wgmma_tma gemm/bf16-llm:sm90_gemm_bf16_llm; do
  task="sm90/${pair%%:*}" name="${pair#*:}"
  [[ $(left) -lt 60 ]] && { echo "$name: skipped, $(left) s left"; continue; }
  timeout "$(left)" "$new/ptxbench" eval "kernels/reference/$name.cu" --task "$task" \
    --json-out "$out/$name.json" > "$out/$name.txt" 2>&1
  python3 -c "import json,sys; v=json.load(open(sys.argv[1])); print(sys.argv[2], v['outcome'], v['config'].get('compile_uid'), ' / '.join(f\"{t['speedup']['median']:.3f}\" for t in v.get('timing', [])))" \
    "$out/$name.json" "$name" 2>&1 | tail -1
done
tar -C "$out" -czf "$out/hostile.tar.gz" hostile && rm -rf "$out/hostile"
echo "done after $((SECONDS - start)) s"
